"""The Python client reads the API's answer models without loading the API's app, its server or
the records store."""

from __future__ import annotations

import subprocess
import sys

from worldkit import ROOT

SERVER_SIDE = ("uvicorn", "fastapi", "sqlalchemy", "assay.api", "assay.api.app", "assay.api.serve")


def test_importing_the_client_loads_neither_the_app_nor_the_store():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, assay.client; "
            f"print(sorted(name for name in {SERVER_SIDE!r} if name in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout == "[]\n"


def test_the_api_package_still_gives_its_app_on_first_use():
    from assay import api
    from assay.api.serve import open_api

    assert api.open_api is open_api
    assert "create_app" in api.__all__
