"""Roots of every suite the image table maps to, and the Python set-up: real builds where a stand-in
cannot tell, and mmdebstrap's own resolver for every package name the table uses."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from rootkit import TEST_ROOTS, needs_mmdebstrap, needs_root, use_fake_mmdebstrap

from assay.world.container import baseroot, images
from assay.world.container.baseroot import BaseRootFailed, base_root, missing_libraries
from assay.world.container.imagemap import build, lookup
from assay.world.container.images import SUITES
from assay.world.container.rootpackages import DEFAULT_PACKAGES, PYTHON_PACKAGES, root_packages

# Every package a rule of the table can add, so that a name one suite lacks fails here.
TABLE_PACKAGES = sorted(
    {*images.PYTHON_FULL, *images.PYTHON_SLIM, *images.TBENCH_TOOLS, "nodejs", "npm"}
    | set(PYTHON_PACKAGES)
)


@pytest.fixture
def test_roots(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ASSAY_ROOTS", str(TEST_ROOTS))
    return TEST_ROOTS


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return use_fake_mmdebstrap(tmp_path, monkeypatch)


def test_each_suite_names_the_interpreters_libraries_its_own_way() -> None:
    assert "libssl3t64" in root_packages("trixie") and "libssl3" not in root_packages("trixie")
    assert {"libssl1.1", "libffi7"} <= set(root_packages("bullseye"))
    assert root_packages("bookworm") == list(DEFAULT_PACKAGES)
    assert root_packages("bookworm", ["jq"])[-1] == "jq"


@needs_root
class TestStandIn:
    def test_the_python_set_up_is_part_of_the_key_and_of_the_build(self, fake: Path) -> None:
        with pytest.raises(BaseRootFailed, match="no /usr/local/bin/pip"):
            base_root("fake", ["procps"], python=True)  # the stand-in's root has no pip
        run = fake.read_text()
        assert "path-exclude=/usr/lib/python3*/EXTERNALLY-MANAGED" in run
        assert "--customize-hook=chroot" in run and "python-wheels" in run
        assert all(name in run for name in PYTHON_PACKAGES)
        plain = base_root("fake", ["procps", *PYTHON_PACKAGES])
        assert "EXTERNALLY-MANAGED" not in fake.read_text().splitlines()[-1]
        assert plain.name.startswith("fake-") and not plain.name.startswith("fake-python")

    def test_the_hosts_own_authorities_are_trusted_and_keyed(
        self, fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        without = base_root("fake", ["procps"])
        authorities = tmp_path / "authorities"
        (authorities / "corp").mkdir(parents=True)
        (authorities / "corp" / "proxy.crt").write_text("-----BEGIN CERTIFICATE-----\n")
        monkeypatch.setattr(baseroot, "LOCAL_AUTHORITIES", authorities)
        with_them = base_root("fake", ["procps"])
        assert with_them != without
        run = fake.read_text().splitlines()[-1]
        assert f"copy-in {authorities / 'corp' / 'proxy.crt'}" in run
        assert "update-ca-certificates" in run
        (authorities / "corp" / "proxy.crt").write_text("-----BEGIN CERTIFICATE-----\nnew\n")
        assert base_root("fake", ["procps"]) != with_them  # a changed authority is a new root


def run_in(root: Path, command: str) -> subprocess.CompletedProcess[str]:
    """A command in the root, read-only, as bwrap runs it (no sandbox of assay's)."""
    line = ["bwrap", "--ro-bind", str(root), "/", "--proc", "/proc", "--dev", "/dev"]
    line += ["--tmpfs", "/tmp", "/bin/sh", "-c", command]
    return subprocess.run(line, capture_output=True, text=True, timeout=120)


@needs_root
@needs_mmdebstrap
class TestRealRoots:
    def test_a_python_like_root_runs_pip_as_the_official_image_does(self, test_roots) -> None:
        root = build(lookup("python:3.11-slim"))  # the root the task runs over it use
        plain = base_root("bookworm")
        assert root != plain and root.name.startswith("bookworm-python-")
        assert not list(root.glob("usr/lib/python3*/EXTERNALLY-MANAGED"))
        assert os.readlink(root / "usr/local/bin/python") == "/usr/bin/python3"
        assert list(plain.glob("usr/lib/python3*/EXTERNALLY-MANAGED"))  # a plain root keeps it
        done = run_in(root, "pip --version && python --version && python -m venv --help >/dev/null")
        assert done.returncode == 0, done.stderr
        assert "/usr/local/lib/python3.11/dist-packages/pip" in done.stdout
        assert "Python 3.11" in done.stdout
        assert missing_libraries(root) == []

    # bookworm and trixie are built for real (other tests run task runs over them); every suite's
    # package names, bullseye's too, are resolved by mmdebstrap in the test below, which costs
    # seconds where a third real build would cost a minute of every test run.
    @pytest.mark.parametrize("suite", ["bookworm", "trixie"])
    def test_each_suite_builds_with_what_assays_interpreter_loads(
        self, suite: str, test_roots
    ) -> None:
        root = base_root(suite, root_packages(suite))
        release = (root / "etc" / "os-release").read_text()
        assert f"VERSION_CODENAME={suite}" in release
        assert missing_libraries(root) == []

    @pytest.mark.parametrize("suite", sorted(SUITES))
    def test_every_package_the_table_names_is_in_each_suite(self, suite: str) -> None:
        wanted = ",".join([*root_packages(suite), *TABLE_PACKAGES])
        command = ["mmdebstrap", "--variant=minbase", "--mode=root", "--simulate"]
        command += [f"--include={wanted}", suite, "/dev/null"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        errors = [line for line in done.stderr.splitlines() if line.startswith("E: ")]
        assert done.returncode == 0 and not errors, errors[:3]
