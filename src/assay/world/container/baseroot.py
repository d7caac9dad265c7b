"""Root filesystems for sandboxes: Debian, built by mmdebstrap, owned by the sandbox's shifted ids."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from assay.world.container.idmap import IdMap, sandbox_ids
from assay.world.container.rootlibraries import missing_libraries as missing_libraries
from assay.world.container.rootpackages import (
    DEFAULT_PACKAGES,
    DEFAULT_SUITE,
    PYTHON_DPKG,
    PYTHON_LINKS,
    PYTHON_PACKAGES,
    PYTHON_SETUP,
)
from assay.world.snapshot import cache_dir

# Part of every cache key: raise it when what a build puts in a root changes.
FORMAT = 2
TIMEOUT = 900
# Docs, manuals and translations are of no use to a grader; dpkg keeps skipping them for later
# installs too, as Debian's slim container images do.
SLIM = (
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/info/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    "--dpkgopt=path-include=/usr/share/locale/locale.alias",
)
CLEAN_PATH = "PATH=/usr/sbin:/usr/bin:/sbin:/bin"  # hooks run in the root, not in the host's env
LOCAL_AUTHORITIES = Path("/usr/local/share/ca-certificates")
MOUNTPOINTS = ("logs", "opt/assay/bin", "run")
# The apt and dpkg settings Debian's official container images carry (debuerreotype's): no
# translations fetched, indexes kept compressed, downloaded packages removed once installed,
# dpkg without fsync. A task's `apt-get update` here costs what it costs there.
IMAGE_SETTINGS = {
    "etc/apt/apt.conf.d/docker-no-languages": 'Acquire::Languages "none";\n',
    "etc/apt/apt.conf.d/docker-gzip-indexes": 'Acquire::GzipIndexes "true";\n',
    "etc/apt/apt.conf.d/docker-autoremove-suggests": 'Apt::AutoRemove::SuggestsImportant "false";\n',
    "etc/apt/apt.conf.d/docker-clean": (
        'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb'
        ' /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\n'
        'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb'
        ' /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\n'
        'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n'
    ),
    "etc/dpkg/dpkg.cfg.d/docker-apt-speedup": "force-unsafe-io\n",
}
SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
PACKAGE_NAME = re.compile(r"[a-z0-9][a-z0-9+.-]*(:[a-z0-9-]+)?")


class BaseRootFailed(Exception):
    """str() is one line saying why the base root could not be built."""


def roots_dir() -> Path:
    """Where base roots are kept: $ASSAY_ROOTS, else the cache directory's roots/."""
    configured = os.environ.get("ASSAY_ROOTS")
    return (Path(configured) if configured else cache_dir() / "roots").expanduser().resolve()


def base_root(
    suite: str = DEFAULT_SUITE, packages: Sequence[str] = DEFAULT_PACKAGES, *, python: bool = False
) -> Path:
    """The root filesystem for (suite, packages, python), built now unless cached; BaseRootFailed
    if mmdebstrap fails or is missing.

    python: set the root up like the official Python image (PYTHON_PACKAGES, no PEP 668 marker,
    the commands in /usr/local/bin).
    """
    wanted = sorted(set(packages) | (set(PYTHON_PACKAGES) if python else set()))
    _check_names(suite, wanted)
    ids = sandbox_ids()
    directory = roots_dir()
    directory.mkdir(parents=True, exist_ok=True)
    kind = f"{suite}-python" if python else suite
    name = f"{kind}-{_key(suite, wanted, ids, python)}"
    root, marker = directory / name, directory / f"{name}.done"
    if marker.exists():
        return root
    with _locked(directory / f"{name}.lock"):
        if marker.exists():  # another process built it while this one waited
            return root
        _clear(directory, name)
        _build(suite, wanted, ids, directory / name, python)
        partial = directory / f"{name}.done.partial"
        partial.write_text(f"{suite}\n{' '.join(wanted)}\n{'python' if python else ''}\n")
        os.replace(partial, marker)
    return root


def _check_names(suite: str, packages: list[str]) -> None:
    if not SUITE_NAME.fullmatch(suite):
        raise BaseRootFailed(f"{suite!r} is not a suite name")
    for package in packages:
        if not PACKAGE_NAME.fullmatch(package):
            raise BaseRootFailed(f"{package!r} is not a Debian package name")


def _key(suite: str, packages: list[str], ids: IdMap, python: bool) -> str:
    # The ids are in the key because a root's owners are shifted by them; what is added after the
    # packages is added only when there is some, so a plain root keeps the key it always had.
    setup = ["python-like", PYTHON_SETUP] if python else []
    authorities = [hashlib.sha256(path.read_bytes()).hexdigest() for path in local_authorities()]
    fields = [str(FORMAT), suite, str(ids.uid_base), str(ids.gid_base), *packages, *setup]
    text = "\0".join(fields + authorities)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def local_authorities() -> list[Path]:
    """The certificate authorities the host's administrator added (update-ca-certificates reads
    them from LOCAL_AUTHORITIES): trusted in every root too, so that behind a TLS-inspecting proxy
    a sandbox reaches what the host reaches."""
    return sorted(path for path in LOCAL_AUTHORITIES.rglob("*.crt") if path.is_file())


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive flock on path, removing the file before letting go."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            current = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            current = False
        if current:  # else the holder before removed it: lock the file that is there now
            break
        os.close(fd)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def _clear(directory: Path, name: str) -> None:
    """Remove what a build that died left: its scratch directories, a root without its marker."""
    for leftover in [*directory.glob(f".{name}-*"), directory / name]:
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover)


def _build(suite: str, packages: list[str], ids: IdMap, root: Path, python: bool) -> None:
    scratch = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        tree = scratch / "root"
        tree.mkdir()
        log = scratch / "mmdebstrap.log"
        _bootstrap(suite, packages, ids, tree, log, python)
        _settle(tree, ids, python)
        os.rename(tree, root)
        os.replace(log, root.with_name(f"{root.name}.log"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _bootstrap(
    suite: str, packages: list[str], ids: IdMap, tree: Path, log: Path, python: bool
) -> None:
    """Run mmdebstrap and extract the tarball it writes to stdout into tree, owners shifted."""
    with log.open("wb") as errors:
        try:
            process = subprocess.Popen(
                _command(suite, packages, python),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                start_new_session=True,  # so a timeout stops apt and dpkg under it too
            )
        except FileNotFoundError:
            raise BaseRootFailed(
                "mmdebstrap is not installed (apt-get install mmdebstrap)"
            ) from None
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        _stop(process)

    timer = threading.Timer(TIMEOUT, expire)
    timer.daemon = True
    timer.start()
    try:
        unreadable = _take(process, tree, ids)
    finally:
        timer.cancel()
    if expired.is_set() and process.returncode:
        raise BaseRootFailed(f"mmdebstrap {suite} ran over {TIMEOUT} s")
    if process.returncode:
        raise BaseRootFailed(f"mmdebstrap {suite} failed: {_reason(log)}")
    if unreadable is not None:
        raise BaseRootFailed(
            f"mmdebstrap {suite} wrote a tarball that cannot be read: {unreadable}"
        )


def _command(suite: str, packages: list[str], python: bool) -> list[str]:
    """mmdebstrap's command line: the root as a tarball on stdout."""
    command = ["mmdebstrap", "--variant=minbase", "--mode=root", *SLIM]
    if python:
        setup = shlex.quote(PYTHON_SETUP)
        command += [*PYTHON_DPKG, f'--customize-hook=chroot "$1" env -i {CLEAN_PATH} sh -c {setup}']
    command += [f"--include={','.join(packages)}"] if packages else []
    authorities = local_authorities()
    if authorities:
        command += [
            '--customize-hook=mkdir -p "$1/usr/local/share/ca-certificates/host"',
            "--customize-hook=copy-in "
            + " ".join(shlex.quote(str(path)) for path in authorities)
            + " /usr/local/share/ca-certificates/host",
            f'--customize-hook=chroot "$1" env -i {CLEAN_PATH} update-ca-certificates --fresh',
        ]
    return [*command, "--format=tar", suite, "-"]


def _take(process: subprocess.Popen[bytes], tree: Path, ids: IdMap) -> tarfile.TarError | None:
    """Extract the process's tarball into tree and wait for its end; the error of a tarball that
    cannot be read."""
    assert process.stdout is not None
    try:
        with process.stdout:
            try:
                _extract(process.stdout, tree, ids)
                while process.stdout.read(1 << 16):  # tar writes padding after the end marker
                    pass
            except tarfile.TarError as error:
                return error
    except BaseException:
        _stop(process)
        raise
    finally:
        process.wait()
    return None


def _stop(process: subprocess.Popen[bytes]) -> None:
    """TERM mmdebstrap's process group, so it unmounts what it mounted, then KILL it."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is not None:
            return
        try:
            os.killpg(process.pid, sig)
            process.wait(30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def _extract(stream: IO[bytes], tree: Path, ids: IdMap) -> None:
    def shift(member: tarfile.TarInfo, _dest: str) -> tarfile.TarInfo | None:
        if member.ischr() or member.isblk() or member.isfifo():
            return None  # bwrap gives each sandbox its own /dev
        name = os.path.normpath(member.name)
        if name.startswith(("/", "..")) or max(member.uid, member.gid) >= ids.count:
            raise BaseRootFailed(f"mmdebstrap's tarball has a member {member.name!r} out of bounds")
        return member.replace(
            uid=ids.host_uid(member.uid),
            gid=ids.host_gid(member.gid),
            uname="",
            gname="",
            deep=False,
        )

    with tarfile.open(fileobj=stream, mode="r|") as archive:
        archive.extractall(tree, numeric_owner=True, filter=shift)


def _reason(log: Path) -> str:
    """The line of mmdebstrap's stderr that says why: its first error, which later ones follow from."""
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    meaningful = [line for line in lines if line and not line.startswith("I: ")]
    errors = [line.removeprefix("E: ") for line in meaningful if line.startswith("E: ")]
    return (errors[:1] or meaningful[-1:] or ["it wrote nothing"])[0]


def _settle(tree: Path, ids: IdMap, python: bool) -> None:
    """Make the files a sandbox needs as it needs them, owned by shifted root."""
    owner = (ids.host_uid(0), ids.host_gid(0))
    # mmdebstrap copies in the host's resolv.conf and hostname; the sandbox gets its own.
    files = {"etc/resolv.conf": "", "etc/hostname": "sandbox\n", **IMAGE_SETTINGS}
    for name, text in files.items():
        path = tree / name
        for parent in reversed(path.relative_to(tree).parents[:-1]):
            if not (tree / parent).is_dir():
                (tree / parent).mkdir()
                _own(tree / parent, owner, 0o755)
        path.unlink(missing_ok=True)
        path.write_text(text)
        _own(path, owner, 0o644)
    for name in MOUNTPOINTS:
        parts = Path(name).parts
        for depth in range(1, len(parts) + 1):
            path = tree.joinpath(*parts[:depth])
            if not path.is_dir() or path.is_symlink():
                path.unlink(missing_ok=True)
                path.mkdir()
                _own(path, owner, 0o755)
        _own(tree / name, owner, 0o755)
    (tree / "tmp").mkdir(exist_ok=True)
    _own(tree / "tmp", owner, 0o1777)
    if python:
        _link_python(tree, owner)


def _link_python(tree: Path, owner: tuple[int, int]) -> None:
    """/usr/local/bin/python and python3, where the official image has them, beside pip's own."""
    local = tree / "usr" / "local" / "bin"
    if not (local / "pip").exists() or not (tree / "usr" / "bin" / "python3").exists():
        raise BaseRootFailed("the Python set-up left no /usr/local/bin/pip or /usr/bin/python3")
    for name in PYTHON_LINKS:
        link = local / name
        link.unlink(missing_ok=True)
        link.symlink_to("/usr/bin/python3")
        os.lchown(link, *owner)


def _own(path: Path, owner: tuple[int, int], mode: int) -> None:
    os.lchown(path, *owner)
    path.chmod(mode)
