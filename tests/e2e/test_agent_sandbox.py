"""`assay run --agent file.py:Class` against agents that go for their grade around their actions:
each row of the attack table, run as a user runs it, must leave the grade and the records true."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path

import pytest
from attackkit import assay, attacker, run_json
from modelkit import ScriptedModel, StandIn
from worldkit import write_world

from assay.taskrun.agents import sandbox

needs_sandbox = pytest.mark.skipif(
    sandbox.unavailable() is not None, reason=f"no agent sandbox here: {sandbox.unavailable()}"
)


@pytest.fixture
def desk(tmp_path: Path) -> Path:
    return write_world(tmp_path / "desk")


@needs_sandbox
def test_postgres_on_loopback_is_out_of_the_agents_reach(tmp_path, desk, postgres_url):
    prefix = os.environ["ASSAY_WORLD_DB_PREFIX"]
    agent = attacker(tmp_path, {"prefix": f"{prefix}_r_"})
    (run,) = run_json(
        desk, "--agent", f"{agent}:PostgresSuperuser", "--world-db", postgres_url, cwd=tmp_path
    )
    assert run["output"] == "cannot connect: OperationalError"
    assert (run["outcome"], run["agent_isolation"]) == ("not_achieved", "sandbox")


@needs_sandbox
def test_an_agent_cannot_reach_the_snapshot_cache(tmp_path, desk):
    agent = attacker(tmp_path, {"home": str(tmp_path / "home")})
    (run,) = run_json(desk, "--agent", f"{agent}:CachePoisoner", cwd=tmp_path)
    assert run["output"] == "cannot write the cache: FileNotFoundError"
    (later,) = run_json(desk, "--agent", "noop", cwd=tmp_path)
    assert later["outcome"] == "not_achieved"


def test_a_changed_snapshot_image_is_built_again_with_a_note(tmp_path, desk):
    """As if an agent without a sandbox had rewritten the image: the digest tells."""
    run_json(desk, "--agent", "noop", cwd=tmp_path)
    (image,) = (tmp_path / "home" / "snapshots").glob("*.sqlite")
    poisoned = sqlite3.connect(":memory:", isolation_level=None)
    poisoned.deserialize(image.read_bytes())
    poisoned.execute("INSERT INTO notes (text) VALUES ('hello')")
    image.write_bytes(poisoned.serialize())
    ran = assay("run", desk, "--agent", "noop", "--json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["task_runs"][0]["outcome"] == "not_achieved"
    assert "is not the image built: building it again" in ran.stderr
    rebuilt = sqlite3.connect(":memory:")
    rebuilt.deserialize(image.read_bytes())
    assert rebuilt.execute("SELECT count(*) FROM notes WHERE text = 'hello'").fetchone() == (0,)


@needs_sandbox
def test_an_agent_cannot_tamper_with_the_records(tmp_path, desk):
    store = tmp_path / "records.db"
    agent = attacker(tmp_path, {"store": str(store)})
    ran = assay(
        "run", desk, "--agent", f"{agent}:StoreTamperer", "--repeats", 2, "--store", store,
        "--json", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    outcome = json.loads(ran.stdout)
    outputs = {run["output"] for run in outcome["task_runs"]}
    assert outputs == {"cannot write the store: unable to open database file"}
    shown = assay("show", outcome["benchmark_run"]["id"], "--store", store, "--json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    recorded = json.loads(shown.stdout)["task_runs"]
    assert [run["outcome"] for run in recorded] == ["not_achieved", "not_achieved"]
    assert json.loads(shown.stdout)["benchmark_run"]["score"] == 0.0


@needs_sandbox
def test_an_agent_cannot_read_its_task_file_and_play_the_solution(tmp_path, desk):
    agent = attacker(tmp_path, {"world": str(desk)})
    (run,) = run_json(desk, "--agent", f"{agent}:SolutionThief", cwd=tmp_path)
    assert (run["output"], run["outcome"]) == ("no task file", "not_achieved")


@needs_sandbox
def test_an_agent_cannot_read_its_parents_environment(tmp_path, desk):
    agent = attacker(tmp_path, {})
    store = tmp_path / "secret-place.db"
    (run,) = run_json(
        desk, "--agent", f"{agent}:EnvironReader", cwd=tmp_path, env={"ASSAY_STORE": str(store)}
    )
    assert run["output"] == "found nothing"


@needs_sandbox
def test_an_agent_cannot_kill_or_see_its_parent(tmp_path, desk):
    agent = attacker(tmp_path, {})
    ran = assay("run", desk, "--agent", f"{agent}:ParentKiller", "--json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    (run,) = json.loads(ran.stdout)["task_runs"]
    said, _, seen = run["output"].partition("; sees ")
    assert said == "cannot kill 1: PermissionError"  # its parent is its sandbox's pid 1
    assert max(json.loads(seen)) < 10  # its own pid namespace: no process of the host's
    assert run["agent_isolation"] == "sandbox"


@needs_sandbox
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the prober uses x86_64's numbers")
def test_an_agent_cannot_reach_the_kernels_wider_surface(tmp_path, desk):
    agent = attacker(tmp_path, {})
    (run,) = run_json(desk, "--agent", f"{agent}:KernelProber", cwd=tmp_path)
    assert run["output"] == "unshare: EPERM; io_uring_setup: EPERM; bpf: EPERM"
    assert run["agent_isolation"] == "sandbox"


def test_without_a_sandbox_one_line_says_so_and_every_task_run_records_it(tmp_path, desk):
    agent = attacker(tmp_path, {})
    bare = tmp_path / "no-bwrap"
    bare.mkdir()
    ran = assay(
        "run", desk, "--agent", f"{agent}:EnvironReader", "--repeats", 2, "--json", cwd=tmp_path,
        env={"PATH": str(bare)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    notes = [line for line in ran.stderr.splitlines() if "sandbox" in line]
    assert notes == [
        "note: the agent runs as a process, not in a sandbox: bubblewrap (bwrap) is not installed"
    ]
    runs = json.loads(ran.stdout)["task_runs"]
    assert [run["agent_isolation"] for run in runs] == ["process", "process"]


@needs_sandbox
def test_a_model_agent_reaches_only_the_endpoint_named_on_the_command_line(tmp_path, desk):
    scripts = {"Please add a note saying hello.": [{"content": "hello from the model"}] * 2}
    with StandIn(ScriptedModel(scripts)) as model:
        agent = f"{attacker(tmp_path, {'model': model.url})}:ModelCaller"
        (named,) = run_json(desk, "--agent", agent, "--agent-endpoint", model.url, cwd=tmp_path)
        (unnamed,) = run_json(desk, "--agent", agent, cwd=tmp_path)
    assert named["output"] == "hello from the model | direct: ConnectionRefusedError | proxied: 403"
    assert unnamed["output"] == (
        "no model: APIConnectionError | direct: ConnectionRefusedError | proxied: no proxy"
    )


def test_an_endpoint_that_is_not_a_url_is_one_line_and_exit_2(tmp_path, desk):
    ran = assay("run", desk, "--agent", "noop", "--agent-endpoint", "localhost:8000", cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr == (
        "error: --agent-endpoint: 'localhost:8000' is not an http:// or https:// URL\n"
    )


def test_a_changed_template_database_is_built_again_with_a_note(tmp_path, desk, postgres_url):
    """As if a superuser had written the template: the first copy a process makes is checked."""
    import psycopg

    prefix = f"tpl{os.urandom(4).hex()}"
    env = {"ASSAY_WORLD_DB_PREFIX": prefix}
    run_json(desk, "--agent", "noop", "--world-db", postgres_url, cwd=tmp_path, env=env)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        ((template,),) = admin.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s AND datistemplate",
            [f"{prefix}_w_%"],
        ).fetchall()
        admin.execute(f'ALTER DATABASE "{template}" ALLOW_CONNECTIONS true')
        with psycopg.connect(postgres_url, dbname=template, autocommit=True) as poisoned:
            poisoned.execute("INSERT INTO notes (text) VALUES ('hello')")
        admin.execute(f'ALTER DATABASE "{template}" ALLOW_CONNECTIONS false')
    try:
        ran = assay("run", desk, "--agent", "noop", "--world-db", postgres_url, "--json",
                    cwd=tmp_path, env=env)  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout)["task_runs"][0]["outcome"] == "not_achieved"
        assert f"note: template database {template} is not the one built" in ran.stderr
    finally:
        from assay.world.postgres.server import Server

        server = Server(postgres_url, prefix, RuntimeError)
        server.drop_everything()
        server.close()


def test_an_agent_that_floods_its_output_is_cut_off_with_one_line(tmp_path, desk):
    agent = attacker(tmp_path, {})
    ran = assay("run", desk, "--agent", f"{agent}:Flooder", "--json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-500:]
    (run,) = json.loads(ran.stdout)["task_runs"]
    assert (run["output"], run["outcome"]) == ("flooded", "not_achieved")
    assert len(ran.stderr) < 9 * 1024 * 1024
    note = "note: the agent printed over 8 MiB; the rest of its output is left out"
    assert ran.stderr.count(note) == 1


@needs_sandbox
def test_what_an_agent_leaves_running_ends_with_its_sandbox(tmp_path, desk):
    marker = f"{900 + int.from_bytes(os.urandom(2), 'big') / 1000:.3f}"
    agent = attacker(tmp_path, {"sleep": marker})
    (run,) = run_json(desk, "--agent", f"{agent}:Leaver", cwd=tmp_path)
    assert run["output"] == "left one behind"
    left = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if (entry / "cmdline").read_bytes() == f"sleep\0{marker}\0".encode():
                left.append(entry.name)
    assert left == []


@needs_sandbox
def test_the_tmp_of_an_agent_whose_assay_was_killed_is_removed_at_the_next_start(tmp_path):
    import subprocess
    import tempfile

    from assay.taskrun.agents import agent_factory, close_agents

    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = Path(tempfile.mkdtemp(prefix=f"{sandbox.SCRATCH_PREFIX}{gone.pid}-"))
    alive = Path(tempfile.mkdtemp(prefix=f"{sandbox.SCRATCH_PREFIX}{os.getpid()}-"))
    factory = agent_factory(f"{attacker(tmp_path, {})}:EnvironReader")
    close_agents(factory)
    assert not stale.exists()
    assert alive.exists()
    alive.rmdir()
