"""The base root builder: a real Debian root built once and kept, and a stand-in mmdebstrap for the
lock, failure and timeout paths."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rootkit import TEST_ROOTS, needs_mmdebstrap, needs_root, use_fake_mmdebstrap

from assay.world.container import baseroot
from assay.world.container.baseroot import (
    DEFAULT_PACKAGES,
    BaseRootFailed,
    base_root,
    missing_libraries,
    roots_dir,
)
from assay.world.container.idmap import sandbox_ids

IDS = sandbox_ids()
SRC = Path(baseroot.__file__).parents[3]


@pytest.fixture(scope="session")
def built_root() -> Iterator[Path]:
    """The real default root, built into TEST_ROOTS unless an earlier run built it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ASSAY_ROOTS", str(TEST_ROOTS))
        yield base_root()


@pytest.fixture
def test_roots(built_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ASSAY_ROOTS", str(TEST_ROOTS))
    return TEST_ROOTS


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh roots directory and the stand-in mmdebstrap first on PATH; returns its runs file."""
    return use_fake_mmdebstrap(tmp_path, monkeypatch)


def owner(path: Path) -> tuple[int, int]:
    info = path.lstat()
    return info.st_uid - IDS.uid_base, info.st_gid - IDS.gid_base


def test_roots_dir_is_the_variable_else_under_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_ROOTS", "here/roots")
    assert roots_dir() == tmp_path / "here" / "roots"
    monkeypatch.delenv("ASSAY_ROOTS")
    monkeypatch.setenv("ASSAY_HOME", "home")
    assert roots_dir() == tmp_path / "home" / "roots"


def test_names_that_are_not_a_suite_or_package_are_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ASSAY_ROOTS", str(tmp_path))
    with pytest.raises(BaseRootFailed, match="not a suite name"):
        base_root("../bookworm")
    with pytest.raises(BaseRootFailed, match="not a Debian package name"):
        base_root("bookworm", ["procps,less"])
    assert list(tmp_path.iterdir()) == []


def test_missing_libraries_names_what_an_empty_root_lacks(tmp_path: Path) -> None:
    missing = missing_libraries(tmp_path)
    assert "libc.so.6" in missing
    assert not any(name.startswith("libpython") for name in missing)  # comes with the interpreter


def test_missing_libraries_reads_absolute_links_from_the_root(tmp_path: Path) -> None:
    loaders = [name for name in missing_libraries(tmp_path) if name.startswith("ld-linux")]
    assert loaders
    # As Debian ships it, /lib64/ld-linux… is an absolute link: to a file the host has, not this root.
    (tmp_path / "lib64").mkdir()
    for loader in loaders:
        (tmp_path / "lib64" / loader).symlink_to(os.path.realpath(f"/lib64/{loader}"))
    assert set(loaders) <= set(missing_libraries(tmp_path))


@needs_root
@needs_mmdebstrap
class TestRealRoot:
    def test_owners_are_shifted_and_modes_kept(self, built_root: Path) -> None:
        assert owner(built_root) == (0, 0)
        assert owner(built_root / "etc" / "passwd") == (0, 0)
        su = built_root / "usr" / "bin" / "su"
        assert owner(su) == (0, 0)
        assert su.stat().st_mode & stat.S_ISUID
        assert owner(built_root / "var" / "cache" / "apt" / "archives" / "partial") == (42, 0)
        assert (built_root / "lib64").is_symlink()
        unshifted = subprocess.run(
            ["find", str(built_root), "-xdev", "!", "-uid", f"+{IDS.uid_base - 1}", "-print"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert unshifted == ""

    def test_files_a_sandbox_needs(self, built_root: Path) -> None:
        resolv = built_root / "etc" / "resolv.conf"
        assert not resolv.is_symlink() and resolv.is_file() and resolv.read_text() == ""
        assert (built_root / "etc" / "hostname").read_text() == "sandbox\n"
        assert stat.S_IMODE((built_root / "tmp").stat().st_mode) == 0o1777
        for name in ["logs", "opt/assay/bin", "run"]:
            path = built_root / name
            assert path.is_dir() and not path.is_symlink()
            assert stat.S_IMODE(path.stat().st_mode) == 0o755 and owner(path) == (0, 0)
        kinds = {stat.S_IFMT(path.lstat().st_mode) for path in (built_root / "dev").iterdir()}
        assert kinds <= {stat.S_IFDIR, stat.S_IFLNK}  # no device nodes: bwrap gives /dev

    def test_the_built_root_is_used_again(self, test_roots: Path, built_root: Path) -> None:
        marker = built_root.with_name(f"{built_root.name}.done")
        before = marker.stat().st_mtime_ns
        again = base_root("bookworm", [*reversed(DEFAULT_PACKAGES), "procps"])
        assert again == built_root
        assert marker.stat().st_mtime_ns == before
        assert not built_root.with_name(f"{built_root.name}.lock").exists()

    def test_every_library_of_the_interpreter_is_there(self, built_root: Path) -> None:
        assert missing_libraries(built_root) == []

    def test_apt_and_dpkg_are_set_up_as_in_debians_container_images(self, built_root: Path) -> None:
        conf = built_root / "etc" / "apt" / "apt.conf.d"
        assert (conf / "docker-no-languages").read_text() == 'Acquire::Languages "none";\n'
        assert "/var/cache/apt/archives/*.deb" in (conf / "docker-clean").read_text()
        speedup = built_root / "etc" / "dpkg" / "dpkg.cfg.d" / "docker-apt-speedup"
        assert speedup.read_text() == "force-unsafe-io\n"

    @pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
    def test_the_host_interpreter_imports_its_modules_inside(self, built_root: Path) -> None:
        prefix = str(Path(sys.base_prefix).resolve())
        interpreter = os.path.realpath(sys.executable)
        assert interpreter.startswith(prefix)
        code = (
            "import importlib, pathlib, ssl, sys\n"
            "dynload = next(p for p in sys.path if p.endswith('lib-dynload'))\n"
            "names = {p.name.split('.')[0] for p in pathlib.Path(dynload).glob('*.so')}\n"
            "for name in sorted(names - {'_tkinter'}): importlib.import_module(name)\n"
            "assert ssl.create_default_context().get_ca_certs()\n"
            "print(len(names))\n"
        )
        # The tmpfs over /root holds the interpreter's mount point, so the cached root is not written.
        command = ["bwrap", "--ro-bind", str(built_root), "/", "--tmpfs", "/root"]
        command += ["--ro-bind", prefix, prefix, "--proc", "/proc", "--dev", "/dev"]
        command += ["--tmpfs", "/tmp", interpreter, "-c", code]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert int(done.stdout) > 40

    def test_a_bad_suite_fails_in_one_line_and_leaves_nothing(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("ASSAY_ROOTS", str(tmp_path))
        with pytest.raises(BaseRootFailed) as failed:
            base_root("nosuchsuite", ["procps"])
        message = str(failed.value)
        assert "\n" not in message and message.startswith("mmdebstrap nosuchsuite failed: ")
        assert "Release" in message  # apt's reason, not mmdebstrap's closing line
        assert list(tmp_path.iterdir()) == []


@needs_root
class TestStandIn:
    def test_owners_shift_links_stay_devices_go(self, fake: Path) -> None:
        root = base_root("fake", ["procps"])
        assert "--include=procps" in fake.read_text() and "--format=tar" in fake.read_text()
        assert owner(root / "etc" / "passwd") == (0, 0)
        assert owner(root / "var" / "cache" / "partial") == (42, 0)
        assert stat.S_IMODE((root / "var" / "cache" / "partial").stat().st_mode) == 0o700
        su = root / "usr" / "bin" / "su"
        assert stat.S_IMODE(su.stat().st_mode) == 0o4755 and owner(su) == (0, 0)
        assert os.readlink(root / "usr" / "bin" / "sh") == "dash"
        assert owner(root / "usr" / "bin" / "sh") == (0, 0)
        dash, perl = (root / "usr" / "bin" / "dash").stat(), (root / "usr" / "bin" / "perl5").stat()
        assert dash.st_ino == perl.st_ino
        assert not (root / "dev" / "null").exists()
        assert (root / "etc" / "resolv.conf").is_file()
        assert not (root / "etc" / "resolv.conf").is_symlink()
        assert owner(root / "opt") == owner(root / "opt" / "assay") == (0, 0)
        names = {path.name for path in root.parent.iterdir()}
        assert names == {root.name, f"{root.name}.done", f"{root.name}.log"}

    def test_another_package_list_is_another_root(self, fake: Path) -> None:
        first = base_root("fake", ["procps"])
        second = base_root("fake", ["procps", "less"])
        assert first != second and first.parent == second.parent
        assert base_root("fake", ["less", "procps", "less"]) == second
        assert len(fake.read_text().splitlines()) == 2

    def test_a_failure_says_why_and_leaves_nothing(
        self, fake: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("FAKE_FAIL", "1")
        with pytest.raises(BaseRootFailed) as failed:
            base_root("fake", [])
        reason = "The repository 'nosuch Release' does not have a Release file."
        assert str(failed.value) == f"mmdebstrap fake failed: {reason}"
        assert list(roots_dir().iterdir()) == []

    def test_a_build_that_runs_over_is_stopped(
        self, fake: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("FAKE_SLEEP", "60")
        monkeypatch.setattr(baseroot, "TIMEOUT", 1)
        with pytest.raises(BaseRootFailed, match="ran over 1 s"):
            base_root("fake", [])
        assert list(roots_dir().iterdir()) == []

    def test_a_missing_mmdebstrap_is_named(self, tmp_path: Path, monkeypatch) -> None:
        monkeypatch.setenv("ASSAY_ROOTS", str(tmp_path / "roots"))
        monkeypatch.setenv("PATH", str(tmp_path))
        with pytest.raises(BaseRootFailed, match="mmdebstrap is not installed"):
            base_root("fake", [])

    def test_what_a_dead_build_left_is_cleared(self, fake: Path) -> None:
        root = base_root("fake", [])
        root.with_name(f"{root.name}.done").unlink()
        scratch = root.with_name(f".{root.name}-dead")
        scratch.mkdir()
        (root / "stale").touch()
        assert base_root("fake", []) == root
        assert not scratch.exists() and not (root / "stale").exists()
        assert len(fake.read_text().splitlines()) == 2

    def test_concurrent_builders_build_once(
        self, fake: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("FAKE_SLEEP", "1")
        monkeypatch.setenv("PYTHONPATH", str(SRC))
        code = "from assay.world.container.baseroot import base_root; print(base_root('fake', []))"
        builders = [
            subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
            for _ in range(3)
        ]
        paths = {builder.communicate(timeout=60)[0].strip() for builder in builders}
        assert [builder.returncode for builder in builders] == [0, 0, 0]
        assert len(paths) == 1
        assert len(fake.read_text().splitlines()) == 1
        root = Path(paths.pop())
        assert {path.name for path in root.parent.iterdir()} == {
            root.name,
            f"{root.name}.done",
            f"{root.name}.log",
        }
