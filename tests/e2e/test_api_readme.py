"""The README's curl walkthrough works as written, against a live server."""

from __future__ import annotations

import os
import re
import subprocess

from apikit import KEY, Server
from worldkit import ROOT


def readme_block(marker: str) -> tuple[str, str]:
    """The shell block after the marker, and the block of output that follows it."""
    text = (ROOT / "README.md").read_text()
    after = text[text.index(marker) :]
    script, expected = re.findall(r"```(?:sh)?\n(.*?)```", after, re.S)[:2]
    return script, expected


def test_the_curl_walkthrough(tmp_path, assay_home):
    script, expected = readme_block("<!-- api-walkthrough")
    server = Server(tmp_path / "records.db", assay_home).start()
    try:
        script = script.replace("http://127.0.0.1:8000", server.url)
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            env={**os.environ, "ASSAY_API_KEY": KEY},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
