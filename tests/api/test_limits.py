"""Request bodies have a limit: over it is 413 `payload_too_large`, and the body is never read whole."""

from __future__ import annotations

import asyncio
import json
import warnings

import pytest
from apikit import OPERATOR, OPERATOR_KEY, every_endpoint
from worldkit import SHOP

from assay.api import open_api
from assay.api.fhir_http import FHIR_PATH
from assay.api.limits import BodyLimit
from assay.errors import UsageError
from assay.runs.store import open_store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

LIMIT = 200
RUN = {"benchmark": "shop@1", "tasks": ["update-address"]}


def padded(size: int) -> bytes:
    """A valid create-run body of exactly `size` bytes (JSON allows trailing spaces)."""
    body = json.dumps(RUN).encode()
    return body + b" " * (size - len(body))


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    store = str(tmp_path_factory.mktemp("limits") / "api.db")
    app, _ = open_api([SHOP], store=store, operator_key=OPERATOR_KEY, max_body_bytes=LIMIT)
    with TestClient(app) as client:
        yield client, store


def runs_in(store: str) -> int:
    with open_store(store) as records:
        return len(records.recent())


def post(client, body, **headers: str):
    headers = {**OPERATOR, "content-type": "application/json", **headers}
    return client.post("/v1/benchmark-runs", content=body, headers=headers)


@pytest.mark.parametrize(
    ("size", "status"), [(LIMIT - 1, 201), (LIMIT, 201), (LIMIT + 1, 413), (50_000_000, 413)]
)
def test_a_body_over_the_limit_is_413_and_nothing_is_stored(limited, size, status):
    client, store = limited
    before = runs_in(store)
    response = post(client, padded(size))
    assert response.status_code == status, response.text
    if status == 413:
        assert response.json() == {
            "error": {
                "code": "payload_too_large",
                "message": f"the request body is {size} bytes; the limit is {LIMIT}",
            }
        }
        assert response.headers["connection"] == "close"
    assert runs_in(store) == before + (status == 201)


@pytest.mark.parametrize(("size", "status"), [(LIMIT, 201), (LIMIT + 1, 413)])
def test_a_chunked_body_is_held_to_the_same_limit(limited, size, status):
    client, _ = limited
    body = padded(size)
    chunks = (body[i : i + 7] for i in range(0, len(body), 7))  # no Content-Length: chunked
    response = post(client, chunks)
    assert response.status_code == status, response.text
    if status == 413:
        message = f"the request body is over the limit of {LIMIT} bytes"
        assert response.json()["error"] == {"code": "payload_too_large", "message": message}


def test_every_endpoint_refuses_a_large_body_before_anything_else(limited):
    client, _ = limited
    for method, path in every_endpoint(client.get("/openapi.json").json()):
        response = client.request(method, path, content=b"x" * (LIMIT + 1))  # and no credential
        assert response.status_code == 413, (method, path)
        if FHIR_PATH.match(path):  # R4: a FHIR error is an OperationOutcome
            assert response.json()["issue"][0]["code"] == "too-long"
        else:
            assert response.json()["error"]["code"] == "payload_too_large"


def test_a_chunked_body_is_not_read_past_the_limit():
    """Straight at the middleware: it stops asking for chunks once it holds more than the limit."""
    asked = 0
    sent: list[dict] = []

    async def receive() -> dict:
        nonlocal asked
        asked += 1
        return {"type": "http.request", "body": b"x" * 1000, "more_body": True}  # never ends

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope, receive, send) -> None:
        raise AssertionError("the app must not be called")

    scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
    asyncio.run(BodyLimit(app, max_bytes=10_000)(scope, receive, send))
    assert asked == 11
    assert sent[0]["status"] == 413


def test_the_app_gets_the_whole_body_and_then_what_the_server_sends_next():
    messages = [
        {"type": "http.request", "body": b"ab", "more_body": True},
        {"type": "http.request", "body": b"cd", "more_body": False},
        {"type": "http.disconnect"},
    ]
    seen: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0)

    async def app(scope, receive, send) -> None:
        seen.extend([await receive(), await receive()])

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [(b"content-length", b"4")]}
    asyncio.run(BodyLimit(app, max_bytes=4)(scope, receive, None))
    assert seen == [
        {"type": "http.request", "body": b"abcd", "more_body": False},
        {"type": "http.disconnect"},
    ]


def test_the_default_limit_is_one_mebibyte_and_the_environment_sets_another(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_MAX_BODY_BYTES", raising=False)
    app, _ = open_api([SHOP], store=str(tmp_path / "a.db"), operator_key=OPERATOR_KEY)
    with TestClient(app) as client:
        assert post(client, padded(1024 * 1024)).status_code == 201
        assert post(client, padded(1024 * 1024 + 1)).status_code == 413
    monkeypatch.setenv("ASSAY_MAX_BODY_BYTES", "100")
    app, _ = open_api([SHOP], store=str(tmp_path / "b.db"), operator_key=OPERATOR_KEY)
    with TestClient(app) as client:
        assert post(client, padded(100)).status_code == 201
        assert post(client, padded(101)).status_code == 413
        document = client.get("/openapi.json").json()
    assert "at most 100 bytes (413 `payload_too_large`)" in document["info"]["description"]
    for operations in document["paths"].values():
        for operation in operations.values():
            assert "413" in operation["responses"]


@pytest.mark.parametrize(
    ("given", "environment", "named"),
    [
        (0, None, "max_body_bytes"),
        (-5, None, "max_body_bytes"),
        (None, "1MB", "ASSAY_MAX_BODY_BYTES"),
        (None, "0", "ASSAY_MAX_BODY_BYTES"),
    ],
)
def test_a_bad_limit_is_refused_naming_where_it_came_from(
    tmp_path, monkeypatch, given, environment, named
):
    monkeypatch.setenv("ASSAY_MAX_BODY_BYTES", environment or "")
    with pytest.raises(UsageError) as refused:
        open_api(
            [SHOP], store=str(tmp_path / "a.db"), operator_key=OPERATOR_KEY, max_body_bytes=given
        )
    assert (
        str(refused.value) == f"{named}: the body limit must be a whole number of bytes, 1 or more"
    )
