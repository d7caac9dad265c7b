"""Run the `assay` command in this process, as a user would type it."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

from assay.cli.app import run_app


@dataclass
class Ran:
    code: int
    out: str
    err: str


@pytest.fixture
def assay(capsys, monkeypatch, tmp_path):
    """Call `assay ARGS…` in a fresh working directory; gives the exit code, stdout and stderr."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    monkeypatch.setenv("ASSAY_HOME", ".assay")  # a store of its own, in the working directory
    monkeypatch.setenv("COLUMNS", "200")

    def call(*args: str) -> Ran:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["assay", *map(str, args)])
        code = 0
        try:
            run_app()
        except SystemExit as done:
            code = int(done.code or 0)
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return call
