"""start, act and complete answer the same whichever way a request goes: the fast lane (a JSON body
that validates, a valid credential) or the ordinary routes (anything else)."""

from __future__ import annotations

import json

from apikit import bearer, create

SAY = json.dumps({"say": "What is your email?"}).encode()


def test_an_act_declined_by_the_lane_answers_as_the_route_does_and_is_not_counted(api):
    run = create(api, tasks=["ask-for-email"])
    headers, task_run = bearer(run["bearer_token"]), run["task_runs"][0]
    api.post(task_run["start_url"], headers=headers)
    json_with_charset = {**headers, "content-type": "application/json; charset=utf-8"}
    first = api.post(task_run["act_url"], content=SAY, headers=json_with_charset)
    untyped = api.post(task_run["act_url"], content=SAY, headers=headers)  # no content type
    second = api.post(task_run["act_url"], json=json.loads(SAY), headers=headers)
    assert (first.status_code, untyped.status_code, second.status_code) == (200, 422, 200)
    assert untyped.json()["error"]["code"] == "invalid_request"
    assert [first.json()["turn"], second.json()["turn"]] == [1, 2]
    done = api.post(task_run["complete_url"], json={"output": "Asked."}, headers=headers).json()
    assert done["summary"]["turns"] == 3  # both says and the finish


def test_a_bad_credential_or_body_gets_the_routes_error(api):
    run = create(api, tasks=["ask-for-email"])
    headers, task_run = bearer(run["bearer_token"]), run["task_runs"][0]
    refused = api.post(task_run["start_url"], headers=bearer("asr_not-a-token"))
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"
    assert refused.json()["error"]["code"] == "unauthorized"
    api.post(task_run["start_url"], headers=headers)
    typed = {**headers, "content-type": "application/json"}
    malformed = api.post(task_run["complete_url"], content=b"{", headers=typed)
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (400, "malformed_json")
    empty = api.post(task_run["complete_url"], content=b"", headers=typed)
    assert (empty.status_code, empty.json()["error"]["code"]) == (422, "invalid_request")
    unknown = api.post(task_run["complete_url"], json={"output": "x", "extra": 1}, headers=headers)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (422, "invalid_request")
    gone = api.post("/v1/task-runs/tr_nowhere/act", json={"say": "hi"}, headers=headers)
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "not_found")


class Transport:
    """What the lane's answer writes, call by call."""

    def __init__(self):
        self.calls: list[tuple[str, bytes]] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def close(self) -> None:
        self.calls.append(("close", b""))


def test_one_write_sends_the_head_with_the_body_and_anything_else_after_the_head():
    from assay.api.lane import OneWrite

    transport = Transport()
    held = OneWrite(transport)
    held.write(b"HEAD\r\n\r\n")
    assert transport.calls == []
    held.write(b"{}")
    assert transport.calls == [("write", b"HEAD\r\n\r\n{}")]
    held.close()  # a response that ends the connection: closed after it is written
    assert transport.calls[1:] == [("close", b"")]

    transport = Transport()
    held = OneWrite(transport)
    held.write(b"HEAD\r\n\r\n")
    held.close()  # no body came: the head is not lost, and goes before the close
    assert transport.calls == [("write", b"HEAD\r\n\r\n"), ("close", b"")]
