"""The HTTP API page's curl walkthrough works as written, against a live server."""

from __future__ import annotations

import os
import re
import subprocess

from apikit import KEY, Server
from docskit import ROOT, run_by


def walkthrough() -> tuple[str, str]:
    """The shell block this test runs, and the block of output that follows it on the page."""
    (block,) = run_by("tests/e2e/test_api_docs.py")
    assert block.page == "docs/api.md"
    lines = (ROOT / block.page).read_text().splitlines()
    after = "\n".join(lines[block.line + len(block.text.splitlines()) + 1 :])  # past its fence
    expected = re.search(r"^```\n(.*?)^```", after, re.S | re.M)
    assert expected is not None, "the walkthrough's output block is missing"
    return block.text, expected.group(1)


def test_the_curl_walkthrough(tmp_path, assay_home):
    script, expected = walkthrough()
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
