"""The table of base images at its edges (tags, digests, registries, ties between suites), and a
user's images.toml, good and bad."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import SpecError
from assay.formats.container_images import SUITE_NAMES
from assay.world.container.imagemap import (
    UnsupportedImage,
    base_for,
    image_env,
    load_user_images,
    lookup,
)
from assay.world.container.imageref import parse_reference
from assay.world.container.images import DOCKER_PATH, PYTHON_PATH, SUITES

PYTHON_ENV = {"PATH": PYTHON_PATH, "LANG": "C.UTF-8"}


@pytest.mark.parametrize(
    ("image", "registry", "name", "tag", "digest"),
    [
        ("python", None, "python", "latest", None),
        ("python:3.12-slim", None, "python", "3.12-slim", None),
        ("docker.io/library/python:3.12", None, "python", "3.12", None),
        ("--platform=linux/amd64 python:3.12", None, "python", "3.12", None),
        ("python@sha256:abc", None, "python", "latest", "sha256:abc"),
        ("python:3.11@sha256:abc", None, "python", "3.11", "sha256:abc"),
        ("localhost:5000/python:3.11", "localhost:5000", "python", "3.11", None),
        ("registry:5000/team/app", "registry:5000", "team/app", "latest", None),
        ("public.ecr.aws/docker/library/node:20", "public.ecr.aws", "node", "20", None),
        ("ghcr.io/astral-sh/uv:0.5", "ghcr.io", "astral-sh/uv", "0.5", None),
        ("Ubuntu:24.04", None, "ubuntu", "24.04", None),
    ],
)
def test_a_reference_is_read_apart(image, registry, name, tag, digest) -> None:
    ref = parse_reference(image)
    assert (ref.registry, ref.name, ref.tag, ref.digest) == (registry, name, tag, digest)


def test_the_table_knows_the_suites_a_user_may_name() -> None:
    assert set(SUITES) == set(SUITE_NAMES)


@pytest.mark.parametrize(
    ("image", "suite", "python"),
    [
        ("python:3.11-slim", "bookworm", "3.11"),  # Debian has it
        ("python:3.9", "bullseye", "3.9"),
        ("python:3.13-slim", "trixie", "3.13"),
        ("python:3.12-slim", "trixie", "3.13"),  # a tie goes to the newer
        ("python:3.10", "bookworm", "3.11"),
        ("python:3.12-slim-bookworm", "bookworm", "3.11"),  # a tie goes to the suite named
        ("python:3.10-bullseye", "bullseye", "3.9"),
        ("python:3.13-slim-bookworm", "trixie", "3.13"),  # the version beats the suite named
        ("python:3.8-slim", "bullseye", "3.9"),
        ("python:3.14-rc-slim", "trixie", "3.13"),
        ("python:3.12.4-slim-bookworm", "bookworm", "3.11"),
        ("python:3", "trixie", "3.13"),  # no minor: the newest
        ("python", "trixie", "3.13"),
        ("python:slim-bullseye", "trixie", "3.13"),
        ("docker.io/library/python:3.11@sha256:0123abcd", "bookworm", "3.11"),
        ("--platform=linux/amd64 localhost:5000/python:3.11-slim", "bookworm", "3.11"),
        ("ghcr.io/laude-institute/t-bench/python-3-13:20250620", "trixie", "3.13"),
        ("ghcr.io/astral-sh/uv:python3.12-bookworm-slim", "bookworm", "3.11"),
        ("ghcr.io/astral-sh/uv:0.8.3-python3.13-trixie-slim", "trixie", "3.13"),
    ],
)
def test_a_python_image_gets_the_nearest_python_with_a_note_naming_both(
    image, suite, python
) -> None:
    base = lookup(image)
    assert (base.suite, base.python) == (suite, True)
    assert dict(base.env) == {**PYTHON_ENV, "PYTHON_VERSION": python}
    shown = image.split()[-1]
    assert base.notes[0] == f"base_image_mapped:{shown}=debian:{suite}+python{python}"


def test_slim_python_images_carry_no_compilers_and_the_full_ones_do() -> None:
    slim, full = lookup("python:3.11-slim"), lookup("python:3.11")
    assert "gcc" not in slim.packages and "tzdata" in slim.packages
    assert {"gcc", "make", "git", "curl", "wget", "libssl-dev", "python3-dev"} <= set(full.packages)


@pytest.mark.parametrize(
    ("image", "suite"),
    [
        ("debian:bookworm-slim", "bookworm"),
        ("debian:bullseye", "bullseye"),
        ("debian:trixie-20250811-slim", "trixie"),
        ("debian:12", "bookworm"),
        ("debian:11.9-slim", "bullseye"),
        ("debian:13", "trixie"),
        ("debian:latest", "trixie"),
        ("debian:stable-slim", "trixie"),
        ("debian:oldstable", "bookworm"),
        ("debian", "trixie"),
        ("debian:buster", "bullseye"),  # gone from deb.debian.org: the nearest built
        ("debian:sid", "trixie"),
        ("debian@sha256:feed", "trixie"),
        ("ubuntu:24.04", "trixie"),
        ("ubuntu:noble-20240605", "trixie"),
        ("ubuntu:22.04", "bookworm"),
        ("ubuntu:jammy", "bookworm"),
        ("ubuntu:20.04", "bullseye"),
        ("ubuntu:focal", "bullseye"),
        ("ubuntu:latest", "trixie"),
        ("ubuntu", "trixie"),
        ("buildpack-deps:jammy", "bookworm"),
        ("buildpack-deps:bookworm-curl", "bookworm"),
        ("buildpack-deps:scm", "trixie"),
        ("ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624", "trixie"),
        ("ghcr.io/astral-sh/uv:bookworm-slim", "bookworm"),
    ],
)
def test_a_distribution_image_gets_the_suite_of_its_release(image, suite) -> None:
    base = lookup(image)
    assert (base.suite, base.python, dict(base.env)) == (suite, False, {"PATH": DOCKER_PATH})
    assert base.notes[0] == f"base_image_mapped:{image}=debian:{suite}"


def test_buildpack_deps_flavours_and_the_tools_images_add() -> None:
    curl, scm, full = (lookup(f"buildpack-deps:bookworm{f}") for f in ("-curl", "-scm", ""))
    assert {"curl", "wget"} <= set(curl.packages) and "git" not in curl.packages
    assert {"curl", "git"} <= set(scm.packages) and "gcc" not in scm.packages
    assert {"gcc", "g++", "make", "git", "libpq-dev"} <= set(full.packages)
    tbench = lookup("ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624")
    assert {"tmux", "asciinema"} <= set(tbench.packages)
    assert {"tmux", "asciinema"} <= set(
        lookup("ghcr.io/laude-institute/t-bench/python-3-13").packages
    )


@pytest.mark.parametrize(
    ("image", "suite", "node"),
    [
        ("node:20", "trixie", "20"),
        ("node:18-slim", "bookworm", "18"),
        ("node:22-bookworm-slim", "trixie", "20"),  # nearest version first, as for Python
        ("node:16", "bookworm", "18"),
        ("node:hydrogen", "bookworm", "18"),
        ("node:lts-slim", "trixie", "20"),
        ("node", "trixie", "20"),
    ],
)
def test_a_node_image_gets_debians_nodejs_nearest_the_version(image, suite, node) -> None:
    base = lookup(image)
    assert base.suite == suite and {"nodejs", "npm"} <= set(base.packages)
    assert base.env["NODE_VERSION"] == node and base.env["PATH"] == DOCKER_PATH
    assert base.notes == (f"base_image_mapped:{image}=debian:{suite}+nodejs{node}",)
    assert ("gcc" in base.packages) == ("slim" not in image)


@pytest.mark.parametrize(
    "image", ["ghcr.io/astral-sh/uv:latest", "ghcr.io/astral-sh/uv:0.5.11", "ghcr.io/astral-sh/uv"]
)
def test_the_distroless_uv_image_is_a_plain_root_and_uv_comes_from_the_tool_layer(image) -> None:
    base = lookup(image)
    assert (base.suite, base.packages, base.python) == ("bookworm", (), False)
    assert base.notes == (f"base_image_mapped:{image}=debian:bookworm", "uv_from_tool_layer")


@pytest.mark.parametrize(
    "image",
    ["scratch", "debian:nosuch", "myorg/tool:1", "swebench/sweb.eval.x86_64.django:latest"],
)
def test_an_image_no_rule_knows_is_refused_with_the_way_to_map_it(image) -> None:
    # A root for it would lack whatever the image carries: its score could be a false zero.
    assert lookup(image).problem == (
        f"unsupported_base_image:{image}: no rule of the built-in table knows it; "
        "map it to a Debian root in images.toml (docs/container-tasks.md, Base images)"
    )


@pytest.mark.parametrize(
    ("image", "suite", "packages", "path"),
    [
        ("gcc:13", "trixie", (), "/usr/local/sbin"),
        ("golang:1.22-bookworm", "bookworm", ("golang-go",), "/go/bin:/usr/local/go/bin:"),
        ("rust:1-slim-bookworm", "bookworm", ("rustc", "cargo"), "/usr/local/cargo/bin:"),
        ("maven:3-eclipse-temurin-17", "trixie", ("maven", "default-jdk-headless"), "/usr/local/"),
        ("ruby:3.3", "trixie", ("ruby-full",), "/usr/local/sbin"),
    ],
)
def test_a_language_image_is_buildpack_deps_with_debians_toolchain(
    image, suite, packages, path
) -> None:
    base = lookup(image)
    assert base.problem is None and base.suite == suite
    assert base.packages[-len(packages) :] == packages if packages else "gcc" in base.packages
    assert ("gcc" in base.packages) == ("slim" not in image)
    assert base.env["PATH"].startswith(path)
    assert base.notes == (
        "base_image_mapped:" + image + "=" + "+".join([f"debian:{suite}", *packages]),
    )


@pytest.mark.parametrize(
    ("image", "why"),
    [
        ("alpine", "musl"),
        ("alpine:3.19", "musl"),
        ("python:3.12-alpine", "musl"),
        ("node:20-alpine3.19", "musl"),
        ("ghcr.io/astral-sh/uv:python3.12-alpine", "musl"),
        ("nvidia/cuda:12.4.1-runtime-ubuntu22.04", "CUDA"),
        ("pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime", "CUDA"),
        ("mcr.microsoft.com/windows/servercore:ltsc2022", "Windows"),
        ("python:3.12-windowsservercore", "Windows"),
        ("fedora:40", "package manager"),
        ("python:2.7", "Python 2"),
    ],
)
def test_an_image_no_root_is_like_is_refused_with_the_way_to_map_it(image, why) -> None:
    base = lookup(image)
    assert base.problem is not None
    assert base.problem.startswith(f"unsupported_base_image:{image}: ")
    assert why in base.problem and "images.toml" in base.problem
    with pytest.raises(UnsupportedImage, match="unsupported_base_image"):
        base_for(image)


def test_no_image_is_the_default_root_with_dockers_path() -> None:
    assert (lookup(None).suite, lookup("").notes) == ("bookworm", ())
    assert image_env(None) == {"PATH": DOCKER_PATH}
    assert image_env("python:3.11-slim")["PYTHON_VERSION"] == "3.11"


# -- images.toml -----------------------------------------------------------------------------


def write_images(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "images.toml").write_text(text)
    return folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("ASSAY_HOME", str(folder))
    return folder


def test_a_task_sets_mapping_comes_before_the_users_and_the_table(
    tmp_path: Path, home: Path
) -> None:
    tasks = write_images(
        tmp_path / "tasks",
        '[images."alpine:3.*"]\nsuite = "trixie"\npackages = ["jq"]\n\n'
        '[images."registry.example.com/ml/*"]\nlike = "python:3.11-slim"\n'
        'packages = ["libgomp1"]\nenv = { OMP_NUM_THREADS = "1" }\n\n'
        '[images."python:3.12-slim"]\nsuite = "bookworm"\n',
    )
    write_images(home, '[images.alpine]\nsuite = "bullseye"\n[images."node:*"]\npython = true\n')
    user = load_user_images(tasks)
    alpine = lookup("alpine:3.19", user)
    assert (alpine.suite, alpine.packages, alpine.problem) == ("trixie", ("jq",), None)
    assert alpine.notes == ("base_image_mapped:alpine:3.19=debian:trixie by images.toml",)
    assert lookup("alpine:edge", user).suite == "bullseye"  # the user's file, after the set's
    ml = lookup("registry.example.com/ml/train:2@sha256:aa", user)
    assert (ml.suite, ml.python) == ("bookworm", True)
    assert ml.packages == ("netbase", "tzdata", "libgomp1")
    assert ml.env == {**PYTHON_ENV, "PYTHON_VERSION": "3.11", "OMP_NUM_THREADS": "1"}
    # A suite changed under a Python image changes its Python and says so.
    swapped = lookup("python:3.12-slim", user)
    assert swapped.env["PYTHON_VERSION"] == "3.11"
    assert swapped.notes[0].endswith("=debian:bookworm+python3.11 by images.toml")
    node = lookup("node:20", user)
    assert node.python and node.env["PATH"] == PYTHON_PATH and "nodejs" in node.packages
    assert lookup("python:3.11", user).notes[0].endswith("python3.11")  # the table's, unmapped


def test_no_file_leaves_the_table_as_it_is(tmp_path: Path, home: Path) -> None:
    assert load_user_images(tmp_path).rules == ()


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ('[images.alpine]\nsuite = "buster"\n', "images.alpine.suite", "'bookworm'"),
        ('[images.alpine]\npackages = ["jq,curl"]\n', "images.alpine.packages[0]", "match"),
        ('[images.alpine]\npackage = ["jq"]\n', "images.alpine.package", "unknown key"),
        ('[images.alpine]\nenv = { "A B" = "1" }\n', "images.alpine.env.A B.[key]", "match"),
        ('[images.alpine]\npython = "yes"\n', "images.alpine.python", "boolean"),
        ('[images.alpine]\nlike = "alpine:3"\n', "images.alpine.like", "no Debian root"),
        (
            '[images.alpine]\nlike = "myorg/tool:1"\n',
            "images.alpine.like",
            "no rule of the built-in",
        ),
        ("[image.alpine]\n", "image", "unknown key"),
        ("[images.alpine\n", None, "not valid TOML"),
    ],
)
def test_a_bad_file_is_one_line_naming_the_file_and_the_field(
    tmp_path: Path, home: Path, text: str, field: str | None, message: str
) -> None:
    tasks = write_images(tmp_path / "tasks", text)
    with pytest.raises(SpecError) as failed:
        load_user_images(tasks)
    error = failed.value
    assert error.file.endswith("images.toml") and error.field == field
    assert message in error.message and "\n" not in str(error)


def test_a_bad_file_in_assay_home_is_named_too(tmp_path: Path, home: Path) -> None:
    write_images(home, "[images.x]\nsuite = 12\n")
    with pytest.raises(SpecError) as failed:
        load_user_images(tmp_path)
    assert failed.value.file.endswith(str(Path("home") / "images.toml"))
