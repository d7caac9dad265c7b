"""The one table of base images: which Debian root stands for the image a Dockerfile's FROM (or
`[environment] docker_image`) names, and the default environment that image's own config sets.

No image is pulled: each rule reads the image's reference (repository and tag) and says which suite
to build, with which packages, set up like the official Python image or not. `IMAGES` maps a
repository pattern to its rule; an image no rule knows, and one that no Debian root is like (musl,
Windows, CUDA, rpm-based systems), is refused until images.toml maps it. docs/container-tasks.md ("Base images") shows the table to users.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from assay.world.container.imageref import Reference, version_of
from assay.world.container.rootpackages import DEFAULT_SUITE

DOCKER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # Docker's default
PYTHON_PATH = f"/usr/local/bin:{DOCKER_PATH}"  # the Python image's `ENV PATH /usr/local/bin:$PATH`


@dataclass(frozen=True)
class Suite:
    """A Debian release roots are built from, and the versions of what it carries."""

    codename: str
    python: int  # Python 3's minor version
    nodejs: int  # Node.js's major version


SUITES = {
    suite.codename: suite
    for suite in (Suite("bullseye", 9, 12), Suite("bookworm", 11, 18), Suite("trixie", 13, 20))
}
NEWEST = "trixie"
# Every name an image's tag gives a Debian release, to the suite built for it: releases no longer
# on deb.debian.org, and those not yet released, go to the nearest suite that is.
DEBIAN_NAMES = {
    **{name: name for name in SUITES},
    **{"11": "bullseye", "12": "bookworm", "13": "trixie"},
    **{"stable": "trixie", "latest": "trixie", "oldstable": "bookworm", "oldoldstable": "bullseye"},
    **dict.fromkeys(["buster", "10", "stretch", "9", "jessie", "8"], "bullseye"),
    **dict.fromkeys(["testing", "forky", "14", "unstable", "sid", "experimental"], "trixie"),
}
# Ubuntu releases by codename; a release maps to the Debian suite of its time (glibc, toolchain,
# package names: jammy's 2.35 is near bookworm's 2.36, noble's t64 renames are trixie's).
UBUNTU = {
    "trusty": 14.04, "xenial": 16.04, "bionic": 18.04, "focal": 20.04, "jammy": 22.04,
    "kinetic": 22.10, "lunar": 23.04, "mantic": 23.10, "noble": 24.04, "oracular": 24.10,
    "plucky": 25.04, "questing": 25.10, "latest": 24.04, "rolling": 25.10, "devel": 25.10,
}  # fmt: skip
NODE_NAMES = {
    "gallium": 16, "hydrogen": 18, "iron": 20, "jod": 22, "krypton": 24,
}  # fmt: skip

# What buildpack-deps carries in its three flavours (a subset: no ImageMagick, Mercurial or
# Subversion); ca-certificates and procps are in every root already.
CURL = ("curl", "gnupg", "netbase", "wget")
SCM = (*CURL, "git", "openssh-client")
BUILDPACK = (
    *SCM, "autoconf", "automake", "bzip2", "dpkg-dev", "file", "g++", "gcc", "libbz2-dev",
    "libc6-dev", "libcurl4-openssl-dev", "libffi-dev", "libgdbm-dev", "libgmp-dev", "libjpeg-dev",
    "libkrb5-dev", "liblzma-dev", "libncurses-dev", "libpng-dev", "libpq-dev", "libreadline-dev",
    "libsqlite3-dev", "libssl-dev", "libtool", "libxml2-dev", "libxslt1-dev", "libyaml-dev", "make",
    "patch", "unzip", "xz-utils", "zlib1g-dev",
)  # fmt: skip
PYTHON_SLIM = ("netbase", "tzdata")  # what the slim Python image installs beside Python
PYTHON_FULL = (*BUILDPACK, "python3-dev", "tzdata")  # the full image is buildpack-deps + Python
TBENCH_TOOLS = ("tmux", "asciinema", "curl")  # what Terminal-Bench's base images add
# Tag words no Debian root is like: the image's libc, package manager or OS differs.
FOREIGN_WORDS = {
    "alpine": "musl libc and apk", "windowsservercore": "Windows", "nanoserver": "Windows",
}  # fmt: skip
FOREIGN_NAMES = {
    "alpine": "musl libc and apk", "*/alpine": "musl libc and apk",
    "nvidia/*": "CUDA", "*cuda*": "CUDA", "*windows*": "Windows", "*/dotnet/framework*": "Windows",
    **dict.fromkeys(
        ["fedora", "centos", "rockylinux", "almalinux", "amazonlinux", "oraclelinux", "redhat/*",
         "opensuse/*", "photon", "clearlinux", "archlinux", "gentoo/*"],
        "another distribution's packages and package manager",
    ),
}  # fmt: skip
HINT = "map it to a Debian root in images.toml (docs/container-tasks.md, Base images)"


@dataclass(frozen=True)
class Base:
    """What root stands for an image: the suite and packages to build, Python set up like the
    official image's or not, the image's default environment, and notes saying what was swapped."""

    image: str
    suite: str = DEFAULT_SUITE
    packages: tuple[str, ...] = ()  # beyond what every root has (baseroot.root_packages)
    python: bool = False
    env: Mapping[str, str] = field(default_factory=lambda: {"PATH": DOCKER_PATH})
    notes: tuple[str, ...] = ()
    unsupported: str | None = None  # why no root is like the image

    @property
    def problem(self) -> str | None:
        """The reason a task run over this image cannot start, with the way out."""
        if self.unsupported is None:
            return None
        return f"unsupported_base_image:{self.image}: {self.unsupported}; {HINT}"

    def plus(self, packages: tuple[str, ...]) -> Base:
        return replace(self, packages=(*self.packages, *packages))


Rule = Callable[[Reference], "Base | None"]


def builtin(ref: Reference) -> Base:
    """The built-in table's base for `ref`."""
    why = foreign(ref)
    if why is not None:
        return Base(ref.text, unsupported=f"no Debian root is like it ({why})")
    for pattern, rule in IMAGES.items():
        if fnmatch.fnmatchcase(ref.name, pattern):
            found = rule(ref)
            if found is not None:
                return found
    # A root for an image no rule knows would lack whatever the image carries: a score over it
    # could be a false zero, so the task run is refused, with the way to map the image.
    return Base(ref.text, unsupported="no rule of the built-in table knows it")


def foreign(ref: Reference) -> str | None:
    """What makes the image unlike any Debian root, or None."""
    if "cuda" in ref.tag:  # pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime and the like
        return "CUDA"
    for pattern, why in FOREIGN_NAMES.items():
        if fnmatch.fnmatchcase(ref.name, pattern):
            return why
    for word in ref.words:
        for start, why in FOREIGN_WORDS.items():
            if word.startswith(start):
                return why
    return None


def mapped(ref: Reference, suite: str, *what: str) -> tuple[str, ...]:
    """The note saying which root stands for the image: `base_image_mapped:python:3.12=debian:trixie+python3.13`."""
    return (f"base_image_mapped:{ref.text}=" + "+".join([f"debian:{suite}", *what]),)


@dataclass(frozen=True)
class Tag:
    """An official image's tag read as `[VERSION][-slim][-SUITE]…`, in any order after VERSION."""

    version: tuple[int, ...] | None
    slim: bool
    suite: str | None  # the Debian suite it names, as built here


def read_tag(ref: Reference) -> Tag:
    words = ref.words
    version = version_of(words[0]) if words else None
    suites = [DEBIAN_NAMES[word] for word in words if word in DEBIAN_NAMES and not word.isdigit()]
    return Tag(version, "slim" in words, suites[0] if suites else None)


def nearest(wanted: int | None, offered: Mapping[str, int], named: str | None) -> str:
    """The suite whose version is nearest `wanted` (the newest when None); of two as near, the one
    the tag names, else the newer."""
    if wanted is None:
        wanted = max(offered.values())
    best = min(abs(version - wanted) for version in offered.values())
    near = [suite for suite, version in offered.items() if abs(version - wanted) == best]
    return named if named in near else max(near, key=lambda suite: offered[suite])


def debian_image(ref: Reference) -> Base | None:
    """`debian:bookworm`, `debian:12-slim`, `debian:stable`: that suite, or the nearest built."""
    suite = next((DEBIAN_NAMES[word] for word in ref.words if word in DEBIAN_NAMES), None)
    if suite is None:
        numbered = version_of(ref.words[0]) if ref.words else None
        suite = DEBIAN_NAMES.get(str(numbered[0])) if numbered else None
    return None if suite is None else Base(ref.text, suite, notes=mapped(ref, suite))


def python_image(ref: Reference) -> Base | None:
    """`python:3.X[-slim][-SUITE]`: a root whose Python acts as the official image's, of the
    version named where a suite has it, else the nearest (the tag's suite when it is as near)."""
    tag = read_tag(ref)
    if tag.version is not None and tag.version[0] != 3:
        return Base(
            ref.text, unsupported=f"no suite built here has Python {tag.version[0]} with pip"
        )
    offered = {name: suite.python for name, suite in SUITES.items()}
    wanted = tag.version[1] if tag.version is not None and len(tag.version) > 1 else None
    suite = nearest(wanted, offered, tag.suite)
    env = python_env(suite)
    packages = PYTHON_SLIM if tag.slim else PYTHON_FULL
    notes = mapped(ref, suite, f"python{env['PYTHON_VERSION']}")
    return Base(ref.text, suite, packages, python=True, env=env, notes=notes)


def python_env(suite: str) -> dict[str, str]:
    """What the official Python image's config sets, for the Python of `suite`."""
    return {"PATH": PYTHON_PATH, "LANG": "C.UTF-8", "PYTHON_VERSION": f"3.{SUITES[suite].python}"}


def ubuntu_image(ref: Reference) -> Base | None:
    """`ubuntu:24.04`, `ubuntu:noble`: the Debian suite of that release's time."""
    suite = ubuntu_suite(ref.words[0] if ref.words else "latest")
    return None if suite is None else Base(ref.text, suite, notes=mapped(ref, suite))


def ubuntu_suite(word: str) -> str | None:
    """The suite for an Ubuntu release, by codename or number (`noble`, `24.04`)."""
    numbered = version_of(word) or ()
    release = UBUNTU.get(word) or (numbered[0] + numbered[1] / 100 if len(numbered) > 1 else None)
    if release is None:
        return None
    return "bullseye" if release < 22 else "bookworm" if release < 24 else "trixie"


def release_suite(word: str) -> str | None:
    """The suite for a Debian or Ubuntu release's name in a tag."""
    if word in DEBIAN_NAMES and not word.isdigit():
        return DEBIAN_NAMES[word]
    return ubuntu_suite(word) if word in UBUNTU else None


def buildpack_image(ref: Reference) -> Base | None:
    """`buildpack-deps:SUITE[-curl|-scm]` (a Debian or Ubuntu release): its packages."""
    words = ref.words or ["latest"]
    suite = release_suite(words[0]) if words[0] not in ("curl", "scm") else DEBIAN_NAMES["latest"]
    if suite is None:
        return None
    packages = CURL if "curl" in words else SCM if "scm" in words else BUILDPACK
    return Base(ref.text, suite, packages, notes=mapped(ref, suite))


def node_image(ref: Reference) -> Base | None:
    """`node:20[-slim][-SUITE]`: Debian's Node.js and npm, of the version nearest the one named."""
    tag = read_tag(ref)
    words = ref.words
    named = tag.version[0] if tag.version else NODE_NAMES.get(words[0]) if words else None
    offered = {name: suite.nodejs for name, suite in SUITES.items()}
    suite = nearest(named, offered, tag.suite)
    packages = ("nodejs", "npm") if tag.slim else (*BUILDPACK, "nodejs", "npm")
    version = str(offered[suite])
    env = {"PATH": DOCKER_PATH, "NODE_VERSION": version}
    return Base(ref.text, suite, packages, env=env, notes=mapped(ref, suite, f"nodejs{version}"))


def tbench_image(ref: Reference) -> Base | None:
    """Terminal-Bench's `…/t-bench/python-3-13` and `…/t-bench/ubuntu-24-04`: the image they are
    built FROM, plus the tools they add."""
    kind, _, version = ref.name.rpartition("/")[2].partition("-")
    if kind == "python":
        base = python_image(replace(ref, tag=f"{version.replace('-', '.')}-slim-bookworm"))
    elif kind == "ubuntu":
        base = ubuntu_image(replace(ref, tag=version.replace("-", ".")))
    else:
        return None
    return base.plus(TBENCH_TOOLS) if base is not None else None


def uv_image(ref: Reference) -> Base | None:
    """`ghcr.io/astral-sh/uv:[VERSION-]BASE`: the image BASE names (`python3.12-bookworm-slim`,
    `bookworm-slim`; none is the distroless image: a plain root); uv comes from the tool layer."""
    words = [word for word in ref.words if word != "latest"]
    if words and re.fullmatch(r"\d+(\.\d+)*", words[0]):
        words = words[1:]
    if not words:
        base: Base | None = Base(ref.text, notes=mapped(ref, DEFAULT_SUITE))
    elif words[0].startswith("python"):
        base = python_image(replace(ref, tag="-".join([words[0][6:], *words[1:]])))
    elif words[0] == "debian" or words[0] in DEBIAN_NAMES:
        tag = "-".join([NEWEST if words[0] == "debian" else words[0], *words[1:]])
        rule = debian_image if "slim" in words else buildpack_image
        base = rule(replace(ref, tag=tag))
    else:
        return None
    return replace(base, notes=(*base.notes, "uv_from_tool_layer")) if base else None


@dataclass(frozen=True)
class Toolchain:
    """An official language image: buildpack-deps (or its slim self) plus Debian's packages of
    the language, with the environment the image's config sets."""

    packages: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    path: str = ""  # put before Docker's default PATH, as the image's ENV PATH does


TOOLCHAINS = {
    "gcc": Toolchain(()),
    "golang": Toolchain(("golang-go",), {"GOPATH": "/go"}, "/go/bin:/usr/local/go/bin"),
    "rust": Toolchain(
        ("rustc", "cargo"),
        {"CARGO_HOME": "/usr/local/cargo", "RUSTUP_HOME": "/usr/local/rustup"},
        "/usr/local/cargo/bin",
    ),
    "openjdk": Toolchain(("default-jdk-headless",)),
    "eclipse-temurin": Toolchain(("default-jdk-headless",)),
    "maven": Toolchain(("maven", "default-jdk-headless")),
    "gradle": Toolchain(("gradle", "default-jdk-headless")),
    "ruby": Toolchain(("ruby-full",)),
    "php": Toolchain(("php-cli",)),
    "perl": Toolchain(("perl",)),
    "r-base": Toolchain(("r-base",)),
}


def toolchain_image(ref: Reference) -> Base | None:
    """`gcc:13`, `golang:1.22-bookworm`, `rust:1-slim`…: the tag's suite (else the newest) with
    Debian's version of the language, which may differ from the one named (the note says which
    root stands for it)."""
    chain = TOOLCHAINS.get(ref.name.rpartition("/")[2])
    if chain is None:
        return None
    tag = read_tag(ref)
    suite = tag.suite or NEWEST
    packages = (*(() if tag.slim else BUILDPACK), *chain.packages)
    path = f"{chain.path}:{DOCKER_PATH}" if chain.path else DOCKER_PATH
    env = {"PATH": path, **chain.env}
    return Base(ref.text, suite, packages, env=env, notes=mapped(ref, suite, *chain.packages))


# The table: a repository (without its registry) to its rule, first match first.
IMAGES: dict[str, Rule] = {
    "debian": debian_image,
    "python": python_image,
    "ubuntu": ubuntu_image,
    "buildpack-deps": buildpack_image,
    "node": node_image,
    "laude-institute/t-bench/*": tbench_image,
    "astral-sh/uv": uv_image,
    **dict.fromkeys(TOOLCHAINS, toolchain_image),
}
