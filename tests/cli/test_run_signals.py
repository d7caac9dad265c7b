"""`assay run` stopped before or after its task runs: one line and exit 130, never a traceback."""

from __future__ import annotations

import os
import signal
import time

import pytest
import typer

from assay.cli.run import _cancel_on_terminate


def test_sigterm_outside_the_task_runs_is_one_line_and_exit_130(capsys) -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(typer.Exit) as stopped, _cancel_on_terminate():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler runs before this ends
    assert stopped.value.exit_code == 130
    assert capsys.readouterr().err == "cancelled\n"
    assert signal.getsignal(signal.SIGTERM) == before
