"""The OpenAPI document describes the API truthfully: generated requests find no 500 and no
response that breaks the schema."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from apikit import OPERATOR, OPERATOR_KEY
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance
from worldkit import SHOP

from assay.api import open_api

_app, _ = open_api(
    [SHOP],
    store=str(Path(tempfile.mkdtemp(prefix="assay-openapi-")) / "api.db"),
    operator_key=OPERATOR_KEY,
)
schema = schemathesis.openapi.from_asgi("/openapi.json", _app)


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error_and_no_schema_violation(case):
    # Well-formed requests for runs, task runs or worlds that do not exist are rightly 404 or 422.
    case.call_and_validate(headers=OPERATOR, excluded_checks=[positive_data_acceptance])


def test_the_document_is_served():
    document = schema.raw_schema
    assert document["info"]["title"] == "assay"
    assert "/v1/task-runs/{task_run_id}/act" in document["paths"]
    assert document["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
