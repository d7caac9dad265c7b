"""The HTTP API as an agent that knows only HTTP meets it: a real server on a loopback port."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys

import httpx
import pytest
from apikit import ASSAY, KEY, Server, bearer, every_endpoint, free_port
from processkit import wait_ready
from worldkit import ROOT, SHOP

from assay.api.fhir_http import FHIR_PATH
from assay.client import ApiError, Client, RunClient
from assay.runs import open_benchmark
from assay.runs.store import open_store
from assay.served.wire import Completion, RunCreated
from assay.taskrun.agents import ScriptedAgent
from assay.taskrun.observation import Observation


@pytest.fixture
def server(tmp_path, assay_home):
    running = Server(tmp_path / "records.db", assay_home).start()
    yield running
    running.stop()


def cli_reference() -> dict[str, dict]:
    done = subprocess.run(
        [ASSAY, "run", str(SHOP), "--agent", "reference", "--json", "--workers", "1"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return {run["task_id"]: run for run in json.loads(done.stdout)["task_runs"]}


def test_the_example_agent_gets_the_same_results_as_the_cli(server):
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "http_agent.py"),
            "--url",
            server.url,
            "--key",
            KEY,
            "--world",
            str(SHOP),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    over_http = json.loads(done.stdout)
    expected = cli_reference()
    task_runs = over_http["benchmark_run"]["task_runs"]
    assert {t["task_id"] for t in task_runs} == set(expected)
    for task_run, completion in zip(task_runs, over_http["completions"], strict=True):
        cli = expected[task_run["task_id"]]
        assert completion["outcome"] == cli["outcome"] == "verified"
        assert completion["score"] == cli["score"]
        assert completion["summary"] == cli["summary"]
        assert [c["passed"] for c in completion["checks"]] == [c["passed"] for c in cli["checks"]]
        assert [c["details"] for c in completion["checks"]] == [c["details"] for c in cli["checks"]]
    assert over_http["benchmark_run"]["phase"] == "completed"
    assert over_http["benchmark_run"]["aggregate"]["score"] == 1.0


def test_the_python_client_with_an_in_process_agent(server):
    shop = open_benchmark(SHOP)
    with Client(server.url, api_key=KEY) as client:
        run = client.create_run(
            "shop@1", tasks=["refund-changed-to-credit", "cancel-without-pestering"]
        )
        completions = run.run_agent(
            lambda task_run: ScriptedAgent(shop.tasks[task_run.task_id].solution.steps)
        )
        assert all(isinstance(c, Completion) for c in completions)
        assert [c.outcome for c in completions] == ["verified", "verified"]
        checks = run.criterion_runs(completions[0].task_run_id)
        assert [c.id for c in checks] == [c.id for c in completions[0].checks]
        assert checks[0].kind == completions[0].checks[0].kind  # sent as "assert"
        assert client.criterion_run(checks[0].id).evidence["actual"] == 1
        whole = run.get()
        assert (whole.phase, whole.aggregate.score) == ("completed", 1.0)
        task_run = run.task_run(completions[1].task_run_id)
        assert (task_run.phase, task_run.result.outcome) == ("completed", "verified")
        with pytest.raises(ApiError) as refused:
            run.start(run.task_runs[0].id)
        assert (refused.value.status, refused.value.code) == (409, "already_started")


def test_the_python_clients_refused_call_and_cancels_are_typed_answers(server):
    with Client(server.url, api_key=KEY) as client:
        run = client.create_run("shop@1", tasks=["update-address", "refund-unknown-outcome"])
        first, second = (task_run.id for task_run in run.task_runs)
        run.start(first)
        refused = run.call(first, "no_such_tool")  # a 422 that still counts: its observation
        assert isinstance(refused, Observation)
        assert (refused.turn, refused.events[-1].status) == (1, "REJECTED")
        cancelled = run.cancel_task_run(first)
        assert (cancelled.id, cancelled.phase, cancelled.status) == (
            first,
            "completed",
            "cancelled",
        )
        whole = run.cancel()
        assert whole.phase == "cancelled"
        assert [t.id for t in whole.task_runs] == [first, second]


def test_a_restarted_server_carries_on_with_runs_in_progress(server):
    with Client(server.url, api_key=KEY) as client:
        run = client.create_run("shop@1", tasks=["refund-unknown-outcome"])
        task_run_id = run.task_runs[0].id
        run.start(task_run_id)
        first = run.call(task_run_id, "refund_payment", order_id="D-4001", amount_cents=2500)
        assert first.events[0].status == "UNKNOWN"
    server.kill()
    server.start()  # same store, same port
    with Client(server.url, api_key=KEY) as client:
        again = client.benchmark_run(run.id)
        assert again.task_runs[0].phase == "started"
        kept = run.created.model_dump_json()  # what another process keeps to carry on
        resumed = RunClient(server.url, RunCreated.model_validate_json(kept))
        retried = resumed.call(task_run_id, "retry_operation", operation_id="op-1")
        assert retried.events[0].message.startswith("already carried out")
        assert retried.turn == 2
        done = resumed.complete(task_run_id, "Refunded $25.00 to your card.")
    assert done.outcome == "verified"
    assert done.summary.duplicate_effects == 0
    assert done.summary.turns == 3


def test_serve_makes_up_an_operator_key_and_prints_it_once(tmp_path, assay_home):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_API_KEY"}
    command = [
        ASSAY,
        "serve",
        "--worlds",
        str(SHOP),
        "--port",
        str(port),
        "--store",
        str(tmp_path / "r.db"),
    ]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        assert line.startswith("operator key: aso_")
        key = line.split()[2]
        wait_ready(process, f"http://127.0.0.1:{port}/v1/health")
        response = httpx.post(
            f"http://127.0.0.1:{port}/v1/benchmark-runs",
            json={"benchmark": "shop", "tasks": ["update-address"]},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert response.status_code == 201
    finally:
        process.terminate()
        process.wait(10)


def test_serve_refuses_a_bad_world(tmp_path):
    done = subprocess.run(
        [ASSAY, "serve", "--worlds", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert "nowhere: not a directory" in done.stderr


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_a_non_ascii_token_is_401_on_every_endpoint_and_the_connection_lives_on(server, encoding):
    header = "Bearer é-token".encode(encoding)
    with httpx.Client(base_url=server.url) as client:  # one kept-alive connection for all of it
        endpoints = every_endpoint(client.get("/openapi.json").json())
        for method, path in endpoints:
            response = client.request(
                method,
                path,
                params={"task_run_id": "x"},
                json={},
                headers={"Authorization": header},
            )
            assert response.status_code == 401, (method, path, response.text)
            body = response.json()  # R4: a FHIR error is an OperationOutcome
            code = body["issue"][0]["code"] if FHIR_PATH.match(path) else body["error"]["code"]
            assert code == ("login" if FHIR_PATH.match(path) else "unauthorized")
        assert client.get("/v1/criterion-runs/x", headers=bearer(KEY)).status_code == 404
    assert len(endpoints) == 49  # the flow, keys, worlds, episodes and every service surface


def read_response(connection: socket.socket, pending: bytes) -> tuple[bytes, bytes, bytes]:
    """One HTTP/1.1 response with a content-length read off a raw socket: head, body, what is left."""
    while b"\r\n\r\n" not in pending:
        pending += connection.recv(65536)
    head, _, pending = pending.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?im)^content-length: *(\d+)", head)[1])
    while len(pending) < length:
        pending += connection.recv(65536)
    return head, pending[:length], pending[length:]


def test_the_lanes_answers_on_one_kept_alive_connection_are_whole_and_in_order(server):
    """start and acts answered by the lane (its head and body written together) and a request of
    the routes, sent on one connection, two of them at once (pipelined): each answer whole, in turn."""
    with httpx.Client(base_url=server.url) as client:
        run = client.post("/v1/benchmark-runs", json={"benchmark": "shop@1"}, headers=bearer(KEY))
    token, task_run = run.json()["bearer_token"], run.json()["task_runs"][0]
    say = json.dumps({"say": "What is your email?"})

    def post(path: str, body: str = "") -> bytes:
        return (
            f"POST {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n{body}"
        ).encode()

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(post(task_run["start_url"]) + post(task_run["act_url"], say))
        answers, pending = [], b""
        for _ in range(2):
            head, body, pending = read_response(connection, pending)
            answers.append((head.split(b"\r\n")[0], json.loads(body)))
        connection.sendall(post(task_run["act_url"], "{}"))  # no action: the routes' 422
        head, body, pending = read_response(connection, pending)
        answers.append((head.split(b"\r\n")[0], json.loads(body)))
        connection.sendall(post(task_run["act_url"], say))
        head, body, pending = read_response(connection, pending)
        answers.append((head.split(b"\r\n")[0], json.loads(body)))
    statuses = [status for status, _ in answers]
    assert statuses == [b"HTTP/1.1 200 OK"] * 2 + [b"HTTP/1.1 422 Unprocessable Entity"] + [
        b"HTTP/1.1 200 OK"
    ]
    assert [answers[0][1]["turn"], answers[1][1]["turn"], answers[3][1]["turn"]] == [0, 1, 2]
    assert answers[2][1]["error"]["code"] == "invalid_request"
    assert pending == b""


def test_a_50_mb_body_is_413_and_nothing_is_stored(server):
    body = b'{"benchmark": "shop@1", "agent": "' + b"x" * 50_000_000 + b'"}'
    headers = {**bearer(KEY), "content-type": "application/json"}
    with httpx.Client(base_url=server.url, timeout=60) as client:
        declared = client.post("/v1/benchmark-runs", content=body, headers=headers)
        chunked = client.post(
            "/v1/benchmark-runs",
            content=(body[i : i + 65536] for i in range(0, len(body), 65536)),
            headers=headers,
        )
        after = client.post("/v1/benchmark-runs", json={"benchmark": "shop@1"}, headers=headers)
    assert declared.status_code == 413
    assert declared.json()["error"] == {
        "code": "payload_too_large",
        "message": f"the request body is {len(body)} bytes; the limit is 1048576",
    }
    assert chunked.status_code == 413
    assert (
        chunked.json()["error"]["message"] == "the request body is over the limit of 1048576 bytes"
    )
    assert after.status_code == 201
    with open_store(str(server.store)) as records:
        assert [run.id for run in records.recent()] == [after.json()["benchmark_run_id"]]


def test_serve_takes_its_body_limit_from_the_option_or_the_environment(tmp_path, assay_home):
    limited = Server(tmp_path / "r.db", assay_home, "--max-body-bytes", "64").start()
    try:
        headers = {**bearer(KEY), "content-type": "application/json"}
        fits = httpx.post(
            f"{limited.url}/v1/benchmark-runs", content=b"{}" + b" " * 62, headers=headers
        )
        over = httpx.post(
            f"{limited.url}/v1/benchmark-runs", content=b"{}" + b" " * 63, headers=headers
        )
    finally:
        limited.stop()
    assert (fits.status_code, over.status_code) == (422, 413)
    done = subprocess.run(
        [ASSAY, "serve", "--worlds", str(SHOP), "--port", str(free_port())],
        env={**os.environ, "ASSAY_MAX_BODY_BYTES": "lots"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "error: ASSAY_MAX_BODY_BYTES: the body limit must be a whole number of bytes, 1 or more\n"
    )
