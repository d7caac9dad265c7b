"""Base roots for tests: where the real one is kept between runs, and a stand-in mmdebstrap."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

# Kept between test runs (and shared by xdist workers), so the real build happens once per machine.
TEST_ROOTS = Path("/var/tmp/assay-test-roots")

# Building needs root (mmdebstrap --mode=root, and chown to the shifted ids).
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="building a base root needs root")
needs_mmdebstrap = pytest.mark.skipif(
    shutil.which("mmdebstrap") is None, reason="mmdebstrap is not installed"
)

# Writes a tiny root's tarball to stdout as mmdebstrap does, after noting its arguments in
# $FAKE_RUNS; $FAKE_SLEEP delays it, $FAKE_FAIL makes it fail as mmdebstrap does.
FAKE = """\
#!{python}
import io, os, sys, tarfile, time

with open(os.environ["FAKE_RUNS"], "a") as runs:
    runs.write(" ".join(sys.argv[1:]) + "\\n")
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
if os.environ.get("FAKE_FAIL"):
    sys.stderr.write("I: running apt-get update...\\n")
    sys.stderr.write("E: The repository 'nosuch Release' does not have a Release file.\\n")
    sys.stderr.write("E: mmdebstrap failed to run\\n")
    sys.exit(1)
with tarfile.open(fileobj=sys.stdout.buffer, mode="w|") as tar:
    def add(name, kind=tarfile.DIRTYPE, mode=0o755, uid=0, gid=0, data=b"", link=""):
        member = tarfile.TarInfo(name)
        member.type, member.mode, member.uid, member.gid = kind, mode, uid, gid
        member.size, member.linkname = len(data), link
        tar.addfile(member, io.BytesIO(data) if data else None)
    for name in ["./", "./etc", "./usr", "./usr/bin", "./var", "./var/cache", "./dev"]:
        add(name)
    add("./tmp", mode=0o1777)
    add("./etc/passwd", tarfile.REGTYPE, 0o644, data=b"root:x:0:0:root:/root:/bin/bash\\n")
    add("./etc/resolv.conf", tarfile.SYMTYPE, 0o777, link="../run/resolv.conf")
    add("./usr/bin/su", tarfile.REGTYPE, 0o4755, data=b"su")
    add("./usr/bin/dash", tarfile.REGTYPE, data=b"dash")
    add("./usr/bin/sh", tarfile.SYMTYPE, 0o777, link="dash")
    add("./usr/bin/perl5", tarfile.LNKTYPE, link="./usr/bin/dash")
    add("./var/cache/partial", mode=0o700, uid=42)
    add("./dev/null", tarfile.CHRTYPE, 0o666)
"""


def fake_mmdebstrap(directory: Path) -> Path:
    """Write the stand-in mmdebstrap into directory/bin and return that bin directory."""
    bin_dir = directory / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "mmdebstrap"
    script.write_text(FAKE.format(python=sys.executable))
    script.chmod(0o755)
    return bin_dir


def use_fake_mmdebstrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh roots directory, the stand-in mmdebstrap first on PATH and no host authorities (so
    a root's key is the same on every machine); returns the file the stand-in logs its runs to."""
    from assay.world.container import baseroot

    bin_dir = fake_mmdebstrap(tmp_path)
    runs = tmp_path / "runs"
    runs.touch()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ASSAY_ROOTS", str(tmp_path / "roots"))
    monkeypatch.setenv("FAKE_RUNS", str(runs))
    monkeypatch.setattr(baseroot, "LOCAL_AUTHORITIES", tmp_path / "no-authorities")
    return runs
