"""HL7, SFTP and X12 figures: an HL7 send through the tool path and over MLLP, an SFTP upload with
asyncssh's client, and a 270/271 round trip through the tool path and over HTTP.

Run `python bench/protocols.py`; it prints one JSON object. The world is made here (a copy of the
clinic's clearinghouse data, an HL7 interface and a drop box) with a turn limit the samples fit.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLINIC = ROOT / "worlds" / "clinic"
SAMPLES = 200
KEY = "bench-operator-key"
A04 = (
    "MSH|^~\\&|GENHOSP|ER|EHR|GENHOSP|20260302090000||ADT^A04^ADT_A01|MSG{n:05d}|P|2.5.1\r"
    "EVN|A04|20260302090000\rPID|1||MRN{n:05d}^^^GENHOSP^MR||Lee^Grace||19880314|F\rPV1|1|E"
)
WORLD = """
name = "protocols"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.interface]
kind = "hl7"

[services.dropbox]
kind = "files"
writable = ["outbound/**"]

[services.clearinghouse]
kind = "x12"
payers = "data/x12/payers.csv"
members = "data/x12/members.csv"
claims = "data/x12/claims.csv"

[roles.clerk]
tools = ["hl7_send", "files_write", "x12_eligibility"]
"""
TASK = """
title = "Bench"
role = "clerk"
max_turns = 100000

[customer]
request = "Bench."

[[checks]]
name = "anything"
sql = "SELECT 1"
expect = 1
"""
ELIGIBILITY = {"member_id": "W123456789", "payer_id": "ACME01", "dob": "1977-05-14"}
SERVICE_TYPES = ("30", "1", "33", "35", "47", "48", "50", "86", "88", "98")  # each a new question


def median_ms(call, samples: int = SAMPLES) -> float:
    times = []
    for index in range(samples):
        started = time.perf_counter()
        call(index)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


def make_world(root: Path) -> Path:
    (root / "tasks").mkdir(parents=True)
    shutil.copytree(CLINIC / "data" / "x12", root / "data" / "x12")
    (root / "world.toml").write_text(WORLD)
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    (root / "tasks" / "bench.toml").write_text(TASK)
    return root


def tool_path(world_root: Path) -> dict[str, float]:
    from assay.runs import open_benchmark

    benchmark = open_benchmark(world_root)
    live = benchmark.world.reset()
    tools = benchmark.world.tools
    figures = {
        "hl7_send_tool_ms": median_ms(lambda n: tools["hl7_send"].fn(live, A04.format(n=n))),
        "x12_270_271_tool_ms": median_ms(
            lambda n: tools["x12_eligibility"].fn(
                live, **ELIGIBILITY, service_type=SERVICE_TYPES[n % 10]
            )
        ),
    }
    live.close()
    return figures


def mllp_round_trip(url: str, message: str) -> str:
    host, port = url.removeprefix("mllp://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b"\x0b" + message.encode() + b"\x1c\r")
        answer = b""
        while not answer.endswith(b"\x1c\r"):
            answer += sock.recv(65536)
    return answer.decode()


def sftp_uploads(url: str, user: str, password: str, samples: int) -> float:
    import asyncssh

    host, port = url.removeprefix("sftp://").split(":")

    async def main() -> list[float]:
        times = []
        async with (
            asyncssh.connect(
                host, int(port), username=user, password=password, known_hosts=None
            ) as connection,
            connection.start_sftp_client() as sftp,
        ):
            for index in range(samples):
                started = time.perf_counter()
                async with sftp.open(f"outbound/file-{index}.csv", "w") as handle:
                    await handle.write("member_id,copay\nW123456789,25\n" * 20)
                times.append((time.perf_counter() - started) * 1000)
        return times

    return round(statistics.median(asyncio.run(main())), 3)


def served(world_root: Path, tmp: Path) -> dict[str, float]:
    from assay.api import open_api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    app, _ = open_api(
        [world_root],
        store=str(tmp / "api.db"),
        operator_key=KEY,
        mllp_port=0,
        sftp_port=0,
        sftp_host_key=tmp / "host_key",
    )
    with TestClient(app) as api:
        made = api.post(
            "/v1/benchmark-runs",
            json={"benchmark": "protocols"},
            headers={"Authorization": f"Bearer {KEY}"},
        ).json()
        headers = {"Authorization": f"Bearer {made['bearer_token']}"}
        api.post(made["task_runs"][0]["start_url"], headers=headers)
        endpoints = made["endpoints"]
        return {
            "hl7_send_mllp_ms": median_ms(
                lambda n: mllp_round_trip(endpoints["hl7_mllp"], A04.format(n=n + 90000))
            ),
            "x12_270_271_http_ms": median_ms(
                lambda n: api.post(
                    f"{endpoints['x12']}/eligibility",
                    json={**ELIGIBILITY, "service_type": SERVICE_TYPES[n % 10]},
                    headers=headers,
                )
            ),
            "sftp_upload_ms": sftp_uploads(
                endpoints["sftp"], made["benchmark_run_id"], made["bearer_token"], 100
            ),
        }


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        world_root = make_world(tmp / "protocols")
        figures = {**tool_path(world_root), **served(world_root, tmp)}
    figures["python"] = sys.version.split()[0]
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
