"""The tests' stand-in model server is quiet when a client stops waiting for its answer."""

from __future__ import annotations

import time

import pytest
from modelkit import StandIn

from assay.provider import ModelOptions, ProviderFailed, Usage, counted_reply, make_client


def test_a_client_that_gives_up_leaves_no_broken_pipe_traceback(capfd):
    """The answer written to a closed connection printed a BrokenPipeError traceback."""
    with StandIn(lambda body: {"content": "late"}, latency_s=0.5) as stand_in:
        client = make_client(ModelOptions(base_url=stand_in.url, retries=0, timeout_s=0.1))
        with pytest.raises(ProviderFailed, match="APITimeoutError"):
            counted_reply(client, Usage(), model="m", messages=[{"role": "user", "content": "x"}])
        time.sleep(0.8)  # the stand-in answers after the client has gone
    assert "Traceback" not in capfd.readouterr().err
