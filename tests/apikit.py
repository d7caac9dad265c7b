"""Helpers for API tests: the operator's header, a run's header, creating a run."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from processkit import wait_ready
from worldkit import SHOP

OPERATOR_KEY = "operator-key"
OPERATOR = {"Authorization": f"Bearer {OPERATOR_KEY}"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(api, **body):
    response = api.post(
        "/v1/benchmark-runs", json={"benchmark": "shop@1", **body}, headers=OPERATOR
    )
    assert response.status_code == 201, response.text
    return response.json()


def every_endpoint(document: dict) -> list[tuple[str, str]]:
    """(method, path) of every operation in an OpenAPI document, each path parameter set to `x`."""
    return [
        (method.upper(), re.sub(r"\{[^}]+\}", "x", path))
        for path, operations in document["paths"].items()
        for method in operations
    ]


ASSAY = str(Path(sys.executable).parent / "assay")
KEY = "aso_test-operator"  # the operator key of servers the tests start


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`assay serve` in a subprocess, on a free port, with its records in `store`."""

    def __init__(self, store: Path, home: Path, *options: str):
        self.store, self.home, self.options = store, home, options
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> Server:
        env = {**os.environ, "ASSAY_API_KEY": KEY, "ASSAY_HOME": str(self.home)}
        command = [
            ASSAY,
            "serve",
            "--worlds",
            str(SHOP),
            "--port",
            str(self.port),
            "--store",
            str(self.store),
            *self.options,
        ]
        self.process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        wait_ready(self.process, f"{self.url}/v1/health")
        return self

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@contextmanager
def world_api(world: Path, store: Path) -> Iterator[Any]:
    """The API over one world, its records in the SQLite file `store`, as a test client."""
    import warnings

    from assay.api import open_api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's test client warns about its httpx transport
        from fastapi.testclient import TestClient

    app, _ = open_api([world], store=str(store), operator_key=OPERATOR_KEY)
    with TestClient(app) as api:
        yield api


def new_run(api: Any, benchmark: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A benchmark run created by the operator, and the headers that carry its token."""
    response = api.post("/v1/benchmark-runs", json={"benchmark": benchmark}, headers=OPERATOR)
    assert response.status_code == 201, response.text
    run = response.json()
    return run, bearer(run["bearer_token"])
