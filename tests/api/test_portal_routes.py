"""The payer portal over HTTP acts on the run's started task run: every route one tool call, each
business error its status, and the same requests score as the same calls made in process."""

from __future__ import annotations

from apikit import new_run, world_api
from healthkit import write_portal_world

from assay.runs import open_benchmark
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent

PA = {
    "patient_member_id": "W123456789",
    "procedure_code": "72148",
    "provider_npi": "1234567890",
    "diagnosis_codes": ["M54.5"],
}
NOTE = {"member_id": "W123456789", "copay": 25}


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


IN_PROCESS = [
    call("portal_submit", resource="prior_auth", data=PA),
    call("portal_submit", resource="copay_note", data=NOTE),
    call("portal_update", resource="copay_note", key="W123456789", data={"copay": 30}),
]


def test_portal_routes_refuse_before_the_start_and_map_each_error(tmp_path):
    world = write_portal_world(tmp_path / "payer")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "payer")
        base = run["endpoints"]["portal"]
        early = api.get(f"{base}/patients", headers=headers)
        assert (early.status_code, early.json()["error"]["code"]) == (409, "no_started_task_run")
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        made = api.post(f"{base}/prior-auths", json=PA, headers=headers)
        assert (made.status_code, made.json()["key"]) == (200, "PA-0001")
        api.post(f"{base}/copay_note", json=NOTE, headers=headers)
        again = api.post(f"{base}/copay_note", json=NOTE, headers=headers)
        assert (again.status_code, again.json()["error"]["code"]) == (409, "conflict")
        changed = api.put(f"{base}/copay_note/W123456789", json={"copay": 30}, headers=headers)
        assert (changed.json()["version"], changed.json()["data"]["copay"]) == (2, 30)
        forced = api.put(f"{base}/prior_auth/PA-0001", json={"status": "denied"}, headers=headers)
        assert (forced.status_code, forced.json()["error"]["code"]) == (422, "read_only")
        providers = api.get(f"{base}/providers", headers=headers)
        assert (providers.status_code, providers.json()["error"]["code"]) == (404, "not_found")
        assert api.get(f"{base}/prior-auths/PA-0009", headers=headers).status_code == 404
        done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
    expected = run_task(
        open_benchmark(world),
        open_benchmark(world).tasks["prior-auth"],
        ActionsAgent(IN_PROCESS),
        run_id=new_id("tr"),
    )
    assert (done["outcome"], done["reward"]) == (expected.outcome, 1) == ("verified", 1)


def test_a_fault_on_a_portal_call_is_503_with_the_operation_to_retry(tmp_path):
    world = write_portal_world(tmp_path / "payer")
    task = world / "tasks" / "prior-auth.toml"
    faults = '\n[[faults]]\ntool = "portal_submit"\ncall = 1\neffect = "unknown"\n'
    faults += '\n[[faults]]\ntool = "portal_submit"\ncall = 2\neffect = "fail"\n'
    task.write_text(task.read_text() + faults)
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "payer")
        base = run["endpoints"]["portal"]
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        unknown = api.post(f"{base}/prior-auths", json=PA, headers=headers)
        failed = api.post(f"{base}/copay_note", json=NOTE, headers=headers)
    for response, code in ((unknown, "unknown_outcome"), (failed, "failed")):
        error = response.json()["error"]
        assert (response.status_code, error["code"]) == (503, code)
        assert error["operation_id"] and error["message"]
