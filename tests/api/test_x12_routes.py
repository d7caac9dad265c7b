"""The clearinghouse over HTTP acts on the run's started task run; broken X12 is a 400 that
records nothing but the refused request."""

from __future__ import annotations

from apikit import new_run, world_api
from healthkit import claim_837, write_x12_world


def test_x12_routes_answer_pairs_and_refuse_broken_interchanges(tmp_path):
    world = write_x12_world(tmp_path / "clearing")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "clearing")
        base = run["endpoints"]["x12"]
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        ask = {"member_id": "W123456789", "payer_id": "ACME01", "dob": "1977-05-14"}
        answer = api.post(f"{base}/eligibility", json=ask, headers=headers)
        assert (answer.status_code, answer.json()["parsed"]["copay"]) == (200, "25")
        status = api.post(f"{base}/claim-status", json={"claim_id": "PCN0042"}, headers=headers)
        assert status.json()["parsed"]["status_category"] == "F2"
        ack = api.post(f"{base}/claims", json={"raw_837": claim_837()}, headers=headers)
        assert ack.json()["accepted"] is True
        broken = api.post(f"{base}/claims", json={"raw_837": "ISA*cut~"}, headers=headers)
        assert (broken.status_code, broken.json()["error"]["code"]) == (400, "bad_x12")
        typo = api.post(f"{base}/eligibility", json={"member": "W1"}, headers=headers)
        assert typo.status_code == 422
        done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
    assert (done["outcome"], done["reward"]) == ("verified", 1)
