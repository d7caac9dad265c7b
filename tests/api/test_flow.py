"""The v1 flow: create a run, start, act, complete; the run finishes itself with its aggregate."""

from __future__ import annotations

from apikit import OPERATOR, bearer, create

from assay.taskrun.observation import HELD_MESSAGE, UNKNOWN_MESSAGE


def drive(api, run, task_run, actions, output):
    headers = bearer(run["bearer_token"])
    first = api.post(task_run["start_url"], headers=headers)
    assert first.status_code == 200, first.text
    seen = [first.json()]
    for action in actions:
        response = api.post(task_run["act_url"], json=action, headers=headers)
        seen.append(response.json())
    done = api.post(task_run["complete_url"], json={"output": output}, headers=headers)
    assert done.status_code == 200, done.text
    return seen, done.json()


def test_create_returns_token_urls_and_task_runs(api):
    run = create(api, tasks=["update-address", "refund-double-charge"], repeats=2)
    assert run["benchmark"] == {"slug": "shop@1", "version": "1", "name": "shop"}
    assert (run["phase"], run["scored"]) == ("created", False)
    assert run["bearer_token"].startswith("asr_")
    assert run["bearer_token_expires_at"].endswith("Z")
    assert [(t["task_id"], t["repeat"], t["phase"]) for t in run["task_runs"]] == [
        ("update-address", 0, "created"),
        ("update-address", 1, "created"),
        ("refund-double-charge", 0, "created"),
        ("refund-double-charge", 1, "created"),
    ]
    first = run["task_runs"][0]
    assert first["name"] == "Change the delivery address of an open order"
    assert first["start_url"] == f"/v1/task-runs/{first['id']}/start"
    assert first["act_url"] == f"/v1/task-runs/{first['id']}/act"
    assert first["complete_url"] == f"/v1/task-runs/{first['id']}/complete"
    assert first["mcp_url"] == f"/v1/task-runs/{first['id']}/mcp"
    assert run["endpoints"]["benchmark_run"] == f"/v1/benchmark-runs/{run['benchmark_run_id']}"


def test_start_gives_the_request_the_tools_and_the_limits(api):
    run = create(api, tasks=["ask-for-email"])
    observation = api.post(
        run["task_runs"][0]["start_url"], headers=bearer(run["bearer_token"])
    ).json()
    assert observation["request"].startswith("Please refund my last order as store credit.")
    assert observation["events"] == [
        {"type": "message", "from": "customer", "text": observation["request"]}
    ]
    assert observation["limits"] == {"max_turns": 10, "max_contacts": 1}
    tool = next(t for t in observation["tools"] if t["name"] == "refund_payment")
    assert tool["parameters"]["required"] == ["order_id", "amount_cents"]
    again = api.post(run["task_runs"][0]["start_url"], headers=bearer(run["bearer_token"]))
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "already_started"


def test_a_whole_task_with_its_messy_middle(api):
    run = create(api, tasks=["refund-unknown-outcome"])
    seen, done = drive(
        api,
        run,
        run["task_runs"][0],
        [
            {
                "call": {
                    "tool": "refund_payment",
                    "args": {"order_id": "D-4001", "amount_cents": 2500},
                }
            },
            {"call": {"tool": "retry_operation", "args": {"operation_id": "op-1"}}},
        ],
        "Refunded $25.00 to your card.",
    )
    assert seen[1]["events"][0]["message"] == UNKNOWN_MESSAGE
    assert seen[2]["events"][0]["result"]["refund"] == "re_0001"
    assert (done["phase"], done["outcome"], done["reward"], done["verdict"]) == (
        "completed",
        "verified",
        1,
        "pass",
    )
    assert done["summary"]["recovered"] is True
    assert done["checks"][0]["details"] == "the query returned 1; wanted = 1"
    assert done["checks"][0]["id"].startswith("cr_")
    whole = api.get(
        f"/v1/benchmark-runs/{run['benchmark_run_id']}", headers=bearer(run["bearer_token"])
    ).json()
    assert (whole["phase"], whole["status"]) == ("completed", "completed")
    assert whole["aggregate"]["score"] == 1.0
    assert whole["aggregate"]["outcomes"]["verified"] == 1
    assert whole["task_runs"][0]["result"]["outcome"] == "verified"


def test_a_held_write_over_http(api):
    run = create(api, tasks=["refund-changed-to-credit"])
    headers = bearer(run["bearer_token"])
    task_run = run["task_runs"][0]
    api.post(task_run["start_url"], headers=headers)
    held = api.post(
        task_run["act_url"],
        json={
            "call": {"tool": "refund_payment", "args": {"order_id": "A-1042", "amount_cents": 4200}}
        },
        headers=headers,
    ).json()
    assert held["events"][0]["status"] == "HELD"
    assert held["events"][0]["message"] == HELD_MESSAGE
    assert held["events"][1]["text"] == "Sorry, please make it store credit, not a card refund."


def test_a_rejected_call_is_422_and_still_counts(api):
    run = create(api, tasks=["forward-account-closure"])
    headers = bearer(run["bearer_token"])
    task_run = run["task_runs"][0]
    api.post(task_run["start_url"], headers=headers)
    lacks = api.post(
        task_run["act_url"],
        json={"call": {"tool": "close_account", "args": {"customer_id": "C-2"}}},
        headers=headers,
    )
    assert lacks.status_code == 422
    assert lacks.json()["error"] == {
        "code": "not_allowed",
        "message": "the support role cannot call close_account",
    }
    assert lacks.json()["observation"]["events"][0]["status"] == "REJECTED"
    invalid = api.post(
        task_run["act_url"],
        json={"call": {"tool": "send_email", "args": {"to": "x"}}},
        headers=headers,
    )
    assert invalid.status_code == 422
    assert invalid.json()["error"]["code"] == "invalid_arguments"
    done = api.post(task_run["complete_url"], json={"output": "Closed."}, headers=headers).json()
    assert done["summary"]["rejected_attempts"] == 2
    assert done["summary"]["false_completion"] is True


def test_say_gets_the_customer_reply(api):
    run = create(api, tasks=["email-tracking"])
    headers = bearer(run["bearer_token"])
    task_run = run["task_runs"][0]
    api.post(task_run["start_url"], headers=headers)
    reply = api.post(
        task_run["act_url"], json={"say": "Which email address?"}, headers=headers
    ).json()
    assert reply["events"] == [
        {"type": "message", "from": "customer", "text": "It's lee@example.com."}
    ]


def test_bad_requests_are_4xx_with_the_error_body(api):
    run = create(api, tasks=["update-address"])
    headers = bearer(run["bearer_token"])
    act_url = run["task_runs"][0]["act_url"]
    assert (
        api.post(act_url, json={"say": "hi"}, headers=headers).json()["error"]["code"]
        == "not_started"
    )
    api.post(run["task_runs"][0]["start_url"], headers=headers)
    cases = [
        (
            api.post(
                act_url, content=b"{", headers={**headers, "content-type": "application/json"}
            ),
            400,
            "malformed_json",
        ),
        (
            api.post(act_url, json={"say": "hi", "call": {"tool": "x"}}, headers=headers),
            422,
            "invalid_request",
        ),
        (api.post(act_url, json={"dance": 1}, headers=headers), 422, "invalid_request"),
        (api.post(act_url, json={"finish": "done"}, headers=headers), 422, "invalid_request"),
        (
            api.post("/v1/benchmark-runs", json={"benchmark": "bank"}, headers=OPERATOR),
            404,
            "not_found",
        ),
        (
            api.post(
                "/v1/benchmark-runs",
                json={"benchmark": "shop", "tasks": ["nope"]},
                headers=OPERATOR,
            ),
            422,
            "unknown_task",
        ),
        (
            api.post(
                "/v1/benchmark-runs", json={"benchmark": "shop", "repeats": 0}, headers=OPERATOR
            ),
            422,
            "invalid_request",
        ),
        (
            api.post(
                "/v1/benchmark-runs",
                json={"benchmark": "shop", "tasks": ["damaged-order-refund"]},
                headers=OPERATOR,
            ),
            422,
            "invalid_request",
        ),
        (
            api.get(
                "/v1/criterion-runs",
                params={"task_run_id": run["task_runs"][0]["id"], "cursor": "x"},
                headers=headers,
            ),
            422,
            "invalid_request",
        ),
        (api.get("/v1/nowhere", headers=headers), 404, "not_found"),
        (api.delete(act_url, headers=headers), 405, "method_not_allowed"),
    ]
    for response, status, code in cases:
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), (
            response.text
        )


def test_complete_twice_and_act_after_the_end(api):
    run = create(api, tasks=["update-address"])
    headers = bearer(run["bearer_token"])
    task_run = run["task_runs"][0]
    api.post(task_run["start_url"], headers=headers)
    api.post(task_run["complete_url"], json={"output": ""}, headers=headers)
    assert (
        api.post(task_run["complete_url"], json={"output": ""}, headers=headers).status_code == 409
    )
    assert api.post(task_run["act_url"], json={"say": "hi"}, headers=headers).status_code == 409


def test_max_turns_then_complete(api):
    run = create(api, tasks=["update-address"])
    headers = bearer(run["bearer_token"])
    task_run = run["task_runs"][0]
    api.post(task_run["start_url"], headers=headers)
    for _ in range(10):
        last = api.post(task_run["act_url"], json={"say": "hello?"}, headers=headers)
    assert last.json()["done"] is True
    ended = api.post(task_run["act_url"], json={"say": "hello?"}, headers=headers)
    assert (ended.status_code, ended.json()["error"]["code"]) == (409, "ended")
    done = api.post(task_run["complete_url"], json={"output": "sorry"}, headers=headers).json()
    assert done["summary"]["termination"] == "max_turns"


def test_cancel_keeps_finished_task_runs(api):
    run = create(api, tasks=["update-address", "cancel-unshipped-order", "refund-double-charge"])
    headers = bearer(run["bearer_token"])
    first, second, _third = run["task_runs"]
    drive(
        api,
        run,
        first,
        [
            {
                "call": {
                    "tool": "update_address",
                    "args": {"order_id": "B-2003", "address": "18 Mill Lane, York"},
                }
            }
        ],
        "done",
    )
    api.post(second["start_url"], headers=headers)
    cancelled = api.post(f"/v1/benchmark-runs/{run['benchmark_run_id']}/cancel", headers=headers)
    assert cancelled.status_code == 200
    body = cancelled.json()
    assert (body["phase"], body["status"]) == ("cancelled", "cancelled")
    assert [(t["phase"], t["status"]) for t in body["task_runs"]] == [
        ("completed", "completed"),
        ("completed", "cancelled"),
        ("completed", "cancelled"),
    ]
    assert body["aggregate"]["outcomes"]["verified"] == 1
    assert body["aggregate"]["score"] == 1.0
    again = api.post(f"/v1/benchmark-runs/{run['benchmark_run_id']}/cancel", headers=headers)
    assert again.status_code == 409


def test_cancel_one_task_run(api):
    run = create(api, tasks=["update-address", "cancel-unshipped-order"])
    headers = bearer(run["bearer_token"])
    first, second = run["task_runs"]
    api.post(first["start_url"], headers=headers)
    out = api.post(f"/v1/task-runs/{first['id']}/cancel", headers=headers).json()
    assert (out["phase"], out["status"]) == ("completed", "cancelled")
    assert out["result"]["summary"]["termination"] == "cancelled"
    drive(
        api,
        run,
        second,
        [{"call": {"tool": "cancel_order", "args": {"order_id": "B-2001"}}}],
        "done",
    )
    whole = api.get(f"/v1/benchmark-runs/{run['benchmark_run_id']}", headers=headers).json()
    assert whole["phase"] == "completed"
    assert whole["aggregate"]["outcomes"] == {
        "verified": 1,
        "not_achieved": 0,
        "rule_violated": 0,
        "not_scored": 0,
    }


def test_criterion_runs_page_by_cursor(api):
    run = create(api, tasks=["refund-double-charge"])
    _, done = drive(api, run, run["task_runs"][0], [], "")
    headers = bearer(run["bearer_token"])
    ids, cursor = [], None
    while True:
        params = {
            "task_run_id": done["task_run_id"],
            "limit": 3,
            **({"cursor": cursor} if cursor else {}),
        }
        page = api.get("/v1/criterion-runs", params=params, headers=headers).json()
        ids += [check["id"] for check in page["data"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert ids == [check["id"] for check in done["checks"]]
    one = api.get(f"/v1/criterion-runs/{ids[0]}", headers=headers).json()
    assert one["name"] == "Exactly one card refund for A-1042"
    assert one["evidence"]["query"].startswith("SELECT count(*) FROM refunds")


def test_many_task_runs_in_flight_at_once_each_on_its_own_world(api):
    run = create(api, tasks=["update-address"], repeats=3)
    headers = bearer(run["bearer_token"])
    task_runs = run["task_runs"]
    for task_run in task_runs:
        api.post(task_run["start_url"], headers=headers)
    addresses = ["18 Mill Lane, York", "1 Wrong Rd, York", "18 Mill Lane, York"]
    for task_run, address in zip(task_runs, addresses, strict=True):
        act = {
            "call": {"tool": "update_address", "args": {"order_id": "B-2003", "address": address}}
        }
        assert api.post(task_run["act_url"], json=act, headers=headers).status_code == 200
    outcomes = [
        api.post(t["complete_url"], json={"output": ""}, headers=headers).json()["outcome"]
        for t in reversed(task_runs)
    ]
    assert outcomes == ["verified", "not_achieved", "verified"]


def test_start_briefs_the_agent_on_its_world_and_time(api):
    run = create(api, tasks=["ask-for-email"])
    observation = api.post(
        run["task_runs"][0]["start_url"], headers=bearer(run["bearer_token"])
    ).json()
    assert observation["briefing"]["world"] == "shop"
    assert observation["briefing"]["world_description"].startswith("An online shop")
    assert observation["briefing"]["now"] == "2026-03-02T09:00:00Z"
