"""A compose file that only restates the main service runs as its Dockerfile; anything more is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import SpecError
from assay.formats.container_task import read_sandbox_task
from tests.formats.test_container_task import write_task

# What the format's own converter writes for a Terminal-Bench task it cannot collapse further.
CONVERTED = """services:
  main:
    build:
      context: ${CONTEXT_DIR}
    image: ${MAIN_IMAGE_NAME}
    command:
    - sh
    - -c
    - sleep infinity
    environment:
    - TEST_DIR=${TEST_DIR}
    - LANG=C.UTF-8
    deploy:
      resources:
        limits:
          cpus: ${CPUS}
          memory: ${MEMORY}
    working_dir: /app
    tty: true
    stdin_open: true
"""
DOCKERFILE = "FROM debian:bookworm-slim\nWORKDIR /app\n"


def task_with(tmp_path: Path, compose: str, dockerfile: str | None = DOCKERFILE):
    files = {"environment/docker-compose.yaml": compose}
    if dockerfile is not None:
        files["environment/Dockerfile"] = dockerfile
    return read_sandbox_task(write_task(tmp_path / "composed", files=files))


def test_the_main_service_alone_runs_as_its_dockerfile(tmp_path: Path) -> None:
    task = task_with(tmp_path, CONVERTED)
    assert task.unsupported() == []
    assert task.compose_main is not None
    # The runner's own variables fill TEST_DIR; a literal value is the container's.
    assert task.compose_main.env == {"LANG": "C.UTF-8"}
    assert task.compose_main.workdir == "/app"


def test_the_runners_own_template_runs(tmp_path: Path) -> None:
    template = (
        "services:\n  main:\n    build:\n      context: ${CONTEXT_DIR}\n"
        "    pull_policy: build\n    command: ['sh', '-c', 'sleep infinity']\n"
    )
    task = task_with(tmp_path, template)
    assert task.unsupported() == []
    assert task.compose_main is not None and task.compose_main.workdir is None


@pytest.mark.parametrize(
    ("compose", "reason"),
    [
        (
            "services:\n  main:\n    build: .\n  redis:\n    image: redis\n",
            "services main, redis (only `main` alone runs without a container engine)",
        ),
        ("services:\n  client:\n    build: .\n", "services client (only `main` alone runs"),
        (
            "services:\n  main:\n    build: .\n    volumes: ['./data:/data']\n",
            "services.main.volumes",
        ),
        ("services:\n  main:\n    build: .\n    ports: ['80:80']\n", "services.main.ports"),
        ("services:\n  main:\n    image: ubuntu:24.04\n", "services.main.build"),
        (
            "services:\n  main:\n    build:\n      context: ./server\n",
            "services.main.build (a build other than the environment directory)",
        ),
        ("services:\n  main:\n    build: .\nnetworks:\n  inner: {}\n", "top-level networks"),
    ],
)
def test_more_than_the_main_service_is_refused_by_name(
    tmp_path: Path, compose: str, reason: str
) -> None:
    (refused,) = task_with(tmp_path, compose).unsupported()
    assert refused.startswith(f"unsupported_environment:compose({reason}")


def test_a_main_service_with_no_dockerfile_is_refused(tmp_path: Path) -> None:
    (refused,) = task_with(tmp_path, CONVERTED, dockerfile=None).unsupported()
    assert refused.startswith("unsupported_environment:compose(services.main is built from")


@pytest.mark.parametrize(
    ("compose", "message"),
    [
        ("services: [main\n", "line 2: not valid YAML: expected ',' or ']'"),
        ("- main\n", "a compose file is a mapping with `services`"),
        ("services:\n  main:\n    build: .\n    environment: 3\n", "must be a list or a mapping"),
    ],
)
def test_a_file_that_is_not_compose_names_the_file(
    tmp_path: Path, compose: str, message: str
) -> None:
    with pytest.raises(SpecError) as raised:
        task_with(tmp_path, compose)
    assert "docker-compose.yaml" in str(raised.value)
    assert message in str(raised.value)
