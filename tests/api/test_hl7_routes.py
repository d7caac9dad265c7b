"""The HL7 interface over HTTP and over MLLP acts on the run's started task run: every message one
`hl7_send` call, answered with its ACK; the same sends score as the same calls made in process."""

from __future__ import annotations

import socket
import warnings

from apikit import OPERATOR_KEY, new_run
from healthkit import A04, write_hl7_world

from assay.api import open_api

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

START, END = b"\x0b", b"\x1c\r"


def mllp_send(url: str, message: str) -> str:
    """One framed message over a plain socket, and the framed answer."""
    host, port = url.removeprefix("mllp://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(START + message.encode() + END)
        answer = b""
        while not answer.endswith(END):
            chunk = sock.recv(65536)
            assert chunk, "the listener closed the connection"
            answer += chunk
    return answer[1:-2].decode()


def test_hl7_routes_send_read_and_refuse_before_the_start(tmp_path):
    world = write_hl7_world(tmp_path / "interface")
    app, _ = open_api([world], store=str(tmp_path / "api.db"), operator_key=OPERATOR_KEY)
    with TestClient(app) as api:
        run, headers = new_run(api, "interface")
        endpoints = run["endpoints"]
        assert endpoints["hl7_outbound"].endswith("/hl7/outbound") and "hl7_mllp" not in endpoints
        early = api.get(endpoints["hl7_inbox"], headers=headers)
        assert (early.status_code, early.json()["error"]["code"]) == (409, "no_started_task_run")
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        inbox = api.get(endpoints["hl7_inbox"], headers=headers).json()
        assert inbox["messages"][0]["message_type"] == "ORU^R01"
        sent = api.post(endpoints["hl7_outbound"], json={"payload": A04}, headers=headers)
        assert (sent.status_code, sent.json()["ack_code"]) == (200, "AA")
        assert "MSA|AA|MSG0001" in sent.json()["ack"]
        garbage = api.post(endpoints["hl7_outbound"], json={"payload": "PID|1"}, headers=headers)
        assert (garbage.status_code, garbage.json()["ack_code"]) == (200, "AR")  # no MSH: rejected
        wrong = api.post(endpoints["hl7_outbound"], json={"message": A04}, headers=headers)
        assert wrong.status_code == 422
        done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
    assert (done["outcome"], done["reward"]) == ("verified", 1)


def test_mllp_listener_acks_each_framed_message_as_an_action_of_the_started_run(tmp_path):
    world = write_hl7_world(tmp_path / "interface")
    app, _ = open_api(
        [world], store=str(tmp_path / "api.db"), operator_key=OPERATOR_KEY, mllp_port=0
    )
    with TestClient(app) as api:
        run, headers = new_run(api, "interface")
        url = run["endpoints"]["hl7_mllp"]
        assert url.startswith("mllp://127.0.0.1:")
        early = mllp_send(url, A04)
        assert "MSA|AR|MSG0001" in early and "no started task run" in early
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        ack = mllp_send(url, A04.replace("\r", "\n"))
        assert ack.split("\r")[1] == "MSA|AA|MSG0001"
        broken = mllp_send(url, "not hl7 at all")
        assert broken.split("\r")[1] == 'MSA|AR|""' and "|100^Segment sequence error^" in broken
        huge = mllp_send(url, A04 + "\rNTE|1||" + "x" * (1 << 20))
        assert huge.split("\r")[1] == 'MSA|AR|""' and "at most 1048576 bytes" in huge
        trajectory = api.get(f"/v1/task-runs/{task_run['id']}", headers=headers).json()
        done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
    assert (done["outcome"], done["reward"]) == ("verified", 1)
    assert trajectory["phase"] == "started"
