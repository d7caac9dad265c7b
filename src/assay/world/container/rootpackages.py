"""What goes into a base root: every root's packages, by each suite's names, and the set-up that
makes a root's Python like the official Python image's."""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_SUITE = "bookworm"
# Every root has these: most published test scripts and solutions call python3 without installing it.
COMMON: tuple[str, ...] = (
    "ca-certificates",  # HTTPS for tests that download, and Python's ssl default verify paths
    "procps",  # ps, kill, pkill: test scripts and task services use them
    "python3",
)
# Shared libraries the host interpreter and its lib-dynload modules load (ldd + dpkg -S), by the
# names each suite gives them (bullseye's older sonames, trixie's 64-bit time_t "t64" renames); the
# interpreter itself is bind-mounted in, so these must be here. Some are in minbase already, named
# anyway so the list does not lean on what minbase happens to pull in.
LIBRARIES: dict[str, tuple[str, ...]] = {
    "bookworm": (
        "libssl3",  # _ssl, _hashlib: libssl.so.3, libcrypto.so.3
        "libffi8",  # _ctypes
        "libsqlite3-0",  # _sqlite3
        "libncursesw6",  # _curses, _curses_panel: libncursesw.so.6, libpanelw.so.6
        "libtinfo6",  # _curses, readline
        "libreadline8",  # readline
        "libnsl2",  # nis: libnsl.so.2, and through libtirpc3 the Kerberos libraries
        "libexpat1",  # pyexpat
        "libuuid1",  # _uuid
        "libbz2-1.0",  # _bz2
        "liblzma5",  # _lzma
        "zlib1g",  # zlib, binascii
        "libcrypt1",  # _crypt
    ),
}
# bullseye has OpenSSL 1.1 and libffi 7 only: an interpreter built against libssl.so.3 cannot load
# _ssl there (nor run at all when it needs glibc 2.34; bullseye has 2.31).
LIBRARIES["bullseye"] = tuple(
    {"libssl3": "libssl1.1", "libffi8": "libffi7"}.get(name, name) for name in LIBRARIES["bookworm"]
)
LIBRARIES["trixie"] = tuple(
    {"libssl3": "libssl3t64", "libreadline8": "libreadline8t64"}.get(name, name)
    for name in LIBRARIES["bookworm"]
)
DEFAULT_PACKAGES: tuple[str, ...] = COMMON + LIBRARIES[DEFAULT_SUITE]
# A root "like the official Python image": `python` and `venv` from Debian, and pip installed with
# pip (from Debian's own wheel, offline) into /usr/local as the image has it, so that pip may
# install as root and upgrade itself. Debian's PEP 668 marker is never unpacked, so a later
# apt-get upgrade does not bring it back.
PYTHON_PACKAGES: tuple[str, ...] = ("python3-venv", "python-is-python3")
PYTHON_DPKG = ("--dpkgopt=path-exclude=/usr/lib/python3*/EXTERNALLY-MANAGED",)
PYTHON_SETUP = """\
set -e
cd /usr/share/python-wheels
pip=$(ls pip-*.whl)
wheels=$pip
# Before 3.12 the official image came with setuptools and wheel too.
if python3 -c 'import sys; sys.exit(sys.version_info >= (3, 12))'; then
    wheels="$wheels $(ls setuptools-*.whl wheel-*.whl 2>/dev/null || true)"
fi
# Every wheel on the path: bullseye's pip wheel needs those of its dependencies.
PYTHONPATH=$(ls "$PWD"/*.whl | paste -sd:) python3 -m pip install --no-index --no-cache-dir \\
    --disable-pip-version-check --no-warn-script-location $wheels
"""
# The official image's interpreter is /usr/local/bin/python (pip puts its own commands there).
PYTHON_LINKS = ("python", "python3")


def root_packages(suite: str, extra: Sequence[str] = ()) -> list[str]:
    """Every root's packages for `suite` (the common ones, the libraries assay's interpreter loads
    by that suite's names), then `extra`."""
    return [*COMMON, *LIBRARIES.get(suite, ()), *extra]
