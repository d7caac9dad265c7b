"""The voice line over HTTP acts on the run's started task run, and scores as in process."""

from __future__ import annotations

from apikit import new_run, world_api
from healthkit import write_line_world


def test_a_call_made_over_http_is_recorded_and_graded(tmp_path):
    world = write_line_world(tmp_path / "line")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "line")
        base = f"/v1/benchmark-runs/{run['benchmark_run_id']}/voice"
        assert run["endpoints"]["voice"] == base
        early = api.post(f"{base}/calls", json={"number": "+1-800-555-0100"}, headers=headers)
        assert (early.status_code, early.json()["error"]["code"]) == (409, "no_started_task_run")
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        wrong = api.post(f"{base}/calls", json={"number": "+1-800-000-0000"}, headers=headers)
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (404, "no_answer")
        call = api.post(f"{base}/calls", json={"number": "+1-800-555-0100"}, headers=headers).json()
        assert call["call_id"] == "call-0001"
        for text in ("My member ID is W123456789", "Date of birth May 14 1977; the copay?"):
            api.post(f"{base}/calls/call-0001/say", json={"text": text}, headers=headers)
        hung = api.post(f"{base}/calls/call-0001/hangup", headers=headers).json()
        assert hung == {"call_id": "call-0001", "ended": True}
        after = api.post(f"{base}/calls/call-0001/say", json={"text": "hi"}, headers=headers)
        assert after.status_code == 409
        done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
        assert (done["outcome"], done["reward"]) == ("verified", 1)
        assert done["summary"]["turns"] == 7  # every request an action: 6 calls and the finish


def test_a_prior_auth_submitted_over_http_is_graded_as_in_process(tmp_path):
    from healthkit import write_portal_world

    world = write_portal_world(tmp_path / "payer")
    pa = {
        "patient_member_id": "W123456789",
        "procedure_code": "72148",
        "provider_npi": "1234567890",
        "diagnosis_codes": ["M54.5"],
    }
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "payer")
        base = run["endpoints"]["portal"]
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        refused = api.post(f"{base}/prior-auths", json={"procedure_code": "72148"}, headers=headers)
        assert (refused.status_code, refused.json()["error"]["code"]) == (422, "validation_failed")
        made = api.post(f"{base}/prior-auths", json=pa, headers=headers).json()
        assert (made["key"], made["data"]["status"]) == ("PA-0001", "approved")
        assert api.get(f"{base}/prior-auths/PA-0001", headers=headers).json()["version"] == 1
        found = api.get(f"{base}/patients?plan=GOLD%20PPO", headers=headers).json()
        assert [row["key"] for row in found["rows"]] == ["W123456789"]
        missing = api.get(f"{base}/copay_note/W9", headers=headers)
        assert missing.status_code == 404
        done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
        assert done["outcome"] == "verified"
