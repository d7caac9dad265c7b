from __future__ import annotations

import warnings

import pytest
from apikit import OPERATOR_KEY
from worldkit import SHOP

from assay.api import open_api

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx transport
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def api(request, tmp_path_factory):
    """The API over the shop, its records in an SQLite file or on the PostgreSQL server."""
    if request.param == "sqlite":
        store = str(tmp_path_factory.mktemp("api") / "api.db")
    else:
        store = request.getfixturevalue("postgres_store")
    app, _ = open_api([SHOP], store=store, operator_key=OPERATOR_KEY)
    with TestClient(app) as client:
        yield client
