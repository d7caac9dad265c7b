"""The MCP page's Python client works as written: on stdio against `assay mcp`, and over
Streamable HTTP against a live `assay serve`, printing what the page shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from apikit import KEY, Server
from docskit import ROOT, blocks

PAGE = ROOT / "docs" / "mcp.md"


def client_script() -> tuple[str, str]:
    """The page's client and the output block that follows it."""
    (block,) = [
        b
        for b in blocks(PAGE)
        if b.marks.get("run-by", "").startswith("tests/e2e/test_mcp_client_docs.py")
    ]
    assert block.language == "python"
    lines = PAGE.read_text().splitlines()
    after = "\n".join(lines[block.line + len(block.text.splitlines()) + 1 :])
    shown = re.search(r"^```\n(.*?)^```", after, re.S | re.M)
    assert shown is not None, "the client's output block is missing"
    return block.text, shown.group(1)


def test_the_python_client_on_stdio_and_over_http(tmp_path, assay_home):
    script, expected = client_script()
    (tmp_path / "client.py").write_text(script)
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / "shop").symlink_to(ROOT / "worlds" / "shop")
    server = Server(tmp_path / "records.db", assay_home).start()
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "ASSAY_API_KEY": KEY, "ASSAY_URL": server.url, "HOME": str(tmp_path)}
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"  # `assay`, as the SDK spawns it
    try:
        done = subprocess.run(
            [sys.executable, "client.py"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == expected
