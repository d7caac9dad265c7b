"""The OpenAPI document describes the API truthfully: generated requests find no 500 and no
response that breaks the schema."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
from apikit import OPERATOR, OPERATOR_KEY
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance
from worldkit import SHOP

from assay.api import open_api

# made as the module is collected (the operations parametrize its test), in every test process
_STORE = Path(tempfile.mkdtemp(prefix="assay-openapi-"))
atexit.register(shutil.rmtree, _STORE, True)
_app, _ = open_api([SHOP], store=str(_STORE / "api.db"), operator_key=OPERATOR_KEY)
schema = schemathesis.openapi.from_asgi("/openapi.json", _app)


# Each operation a test of its own, named by its label: schemathesis's own parametrization gives
# them one node id, and pytest-xdist then runs only the first of them.
OPERATIONS = [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("operation", OPERATIONS, ids=[op.label for op in OPERATIONS])
def test_no_server_error_and_no_schema_violation(operation):
    # Well-formed requests for runs, task runs or worlds that do not exist are rightly 404 or 422.
    @given(case=operation.as_strategy())
    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    def each(case):
        case.call_and_validate(headers=OPERATOR, excluded_checks=[positive_data_acceptance])

    each()


def test_each_operation_has_a_test_of_its_own():
    labels = [operation.label for operation in OPERATIONS]
    assert len(set(labels)) == len(labels) > 40


def test_the_document_is_served():
    document = schema.raw_schema
    assert document["info"]["title"] == "assay"
    assert "/v1/task-runs/{task_run_id}/act" in document["paths"]
    assert document["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
