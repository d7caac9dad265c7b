"""Real published container-format tasks, run as a user runs them: the oracle and noop on each.

    python bench/real_tasks.py --corpus NAME=DIR [--corpus NAME=DIR …] [--sample N] [--seed S]
                               [--tb1-converter PYTHON] [--agents reference,noop] [--out FILE]

A corpus is a directory holding task directories at any depth: container-format ones (task.toml)
are run as they are; Terminal-Bench 1 ones (task.yaml and run-tests.sh) are first converted by the
format's own converter, run by PYTHON (an interpreter with the `harbor` package installed, which
needs Python 3.12 or newer), into a scratch directory. Each task runs through `assay run TASK
--agent A --json` in a process of its own, as a user would start it. `--sample N` takes N tasks of
each corpus, chosen by `--seed` (the same seed, the same tasks).

It prints one JSON object: per corpus and in all, how many tasks the oracle verified, how many
noop verified (it must be none), the oracle's rate over the tasks that need nothing this machine
cannot have (a task assay refuses as needing such a thing is counted apart, by the reason it
gives), every other outcome with its reason and the verifier's last line, and the seconds per
task run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TASK_TIMEOUT_S = 1800
# Reasons that name what no offline machine of this kind can have: the task is set apart, not
# failed. Anything else that is not `verified` for the oracle counts against the rate.
NOT_HERE = re.compile(
    r"unsupported_environment:(compose|mcp_servers|gpus|tpu|windows|os)"
    r"|unsupported_base_image:"
    r"|missing_env:"
    r"|unreachable:"
    r"|collect_service:|artifact_service:"  # a hook or artifact of a sidecar service
    r"|no_solution"  # a dataset published without reference solutions: the oracle has nothing to run
)
# What a task's own output says when it needed a host this machine cannot reach (sites other than
# the package registries; a proxy that refuses a name it cannot resolve), a package the Debian
# suite standing for its image lacks, or a converted test script that can write no reward in any
# runner (the converter's reward lines come after the script's own `exit`). These are read from
# the task run's reason and the verifier's output, so they are the bench's reading, not assay's.
NOT_HERE_OUTPUT = {
    "unreachable_host": re.compile(
        r"Could not resolve host: (?!astral\.sh)|Temporary failure in name resolution|Name or service not known"
        r"|does not resolve|getaddrinfo failed|Tunnel connection failed: (403|502)"
        r"|launchpadlib|PPA"
    ),
    "package_missing_from_debian": re.compile(r"Unable to locate package"),
    # A COPY source the task's own files lack: `docker build` fails on it the same way.
    "task_lacks_a_copy_source": re.compile(r"is not in the build context"),
}
PASSED = ("verified", "all_metrics_1")
CONVERT = """
import sys
from pathlib import Path
from harbor.mappers.terminal_bench import TerminalBenchMapper
result = TerminalBenchMapper().map(Path(sys.argv[1]), Path(sys.argv[2]))
for name, error in result.failed:
    print(f"{name}\\t{error}", file=sys.stderr)
"""


def main() -> None:
    arguments = _arguments()
    scratch = Path(tempfile.mkdtemp(prefix="real-tasks-"))
    store = f"sqlite:///{scratch / 'assay.db'}"
    agents = [agent.strip() for agent in arguments.agents.split(",") if agent.strip()]
    report: dict[str, object] = {"corpora": {}, "agents": agents, "python": sys.version.split()[0]}
    every: list[dict[str, object]] = []
    for name, folder in arguments.corpus:
        tasks = _tasks(Path(folder), scratch / "converted" / name, arguments.tb1_converter)
        if arguments.sample and len(tasks) > arguments.sample:
            tasks = sorted(random.Random(arguments.seed).sample(tasks, arguments.sample))
        runs = [_run(task, agent, store) for task in tasks for agent in agents]
        for run in runs:
            run["corpus"] = name
        every += runs
        report["corpora"][name] = _summary(runs)  # type: ignore[index]
        print(f"{name}: {json.dumps(report['corpora'][name]['counts'])}", file=sys.stderr)  # type: ignore[index]
    report["all"] = _summary(every)
    text = json.dumps(report, indent=2)
    if arguments.out:
        Path(arguments.out).write_text(text + "\n")
    print(text)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", type=_named, default=[], required=True)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--tb1-converter", default=None, metavar="PYTHON")
    parser.add_argument("--agents", default="reference,noop")
    parser.add_argument("--out", default=None)
    return parser.parse_args()


def _named(text: str) -> tuple[str, str]:
    name, equals, folder = text.partition("=")
    if not equals or not name or not Path(folder).is_dir():
        raise argparse.ArgumentTypeError(f"--corpus wants NAME=DIR with DIR a directory: {text!r}")
    return name, folder


def _tasks(folder: Path, converted: Path, converter: str | None) -> list[Path]:
    """Every task directory under folder: container-format ones, and TB1 ones once converted."""
    native = sorted(path.parent for path in folder.rglob("task.toml"))
    legacy = sorted(
        path.parent
        for path in folder.rglob("task.yaml")
        if (path.parent / "run-tests.sh").exists() and not (path.parent / "task.toml").exists()
    )
    if legacy:
        if converter is None:
            print(
                f"{folder}: {len(legacy)} TB1 tasks left out (no --tb1-converter)", file=sys.stderr
            )
        else:
            native += _converted(legacy, converted, converter)
    return native


def _converted(tasks: list[Path], converted: Path, converter: str) -> list[Path]:
    """The TB1 tasks as the format's own converter writes them (one parent per task's parent)."""
    out: list[Path] = []
    for parent in sorted({task.parent for task in tasks}):
        target = converted / str(abs(hash(parent)) % 10**8)
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run([converter, "-c", CONVERT, str(parent), str(target)], check=False)
        out += [target / task.name for task in tasks if task.parent == parent]
    return [task for task in out if (task / "task.toml").exists()]


def _run(task: Path, agent: str, store: str) -> dict[str, object]:
    if agent == "reference" and not _has_solution(task):
        return _row(task, agent, time.perf_counter(), outcome="no_solution", reason="no_solution")
    command = [sys.executable, "-m", "assay", "run", str(task), "--agent", agent, "--json"]
    command += ["--store", store]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=TASK_TIMEOUT_S, env=os.environ
        )
    except subprocess.TimeoutExpired:
        return _row(
            task, agent, started, outcome="bench_timeout", reason=f"over {TASK_TIMEOUT_S} s"
        )
    if done.returncode not in (0, 1):
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return _row(task, agent, started, outcome=f"exit_{done.returncode}", reason=last[:300])
    try:
        (run,) = json.loads(done.stdout)["task_runs"]
    except (ValueError, KeyError, TypeError):
        return _row(task, agent, started, outcome="unreadable_output", reason=done.stdout[-300:])
    evidence = next((check.get("evidence") or {} for check in run.get("checks", [])), {})
    full_tail = evidence.get("test_stdout_tail") or ""
    stdout_tail = full_tail.strip().splitlines()
    outcome = run.get("outcome")
    rewards = evidence.get("rewards") or {}
    if outcome == "not_scored" and evidence.get("status") == "SCORED" and rewards:
        # Several metrics and no primary one: scored, but no single outcome (DESIGN's rule);
        # the oracle has done its job when every metric is at its best.
        outcome = "all_metrics_1" if all(value == 1 for value in rewards.values()) else outcome
    return _row(
        task,
        agent,
        started,
        outcome=outcome,
        reason=evidence.get("reason") or run.get("error"),
        status=evidence.get("status"),
        reward=run.get("reward"),
        last_line=stdout_tail[-1][:200] if stdout_tail else "",
        not_here=_not_here(task, str(evidence.get("reason") or run.get("error") or ""), full_tail),
        duration_s=run.get("duration_s"),
    )


def _not_here(task: Path, reason: str, output: str) -> str | None:
    """Why, by the task's own output, it cannot pass on this machine; None when nothing says so."""
    for name, marker in NOT_HERE_OUTPUT.items():
        if marker.search(reason) or marker.search(output):
            return name
    if "no reward file" in reason and _exits_before_reward(task / "tests" / "test.sh"):
        return "test_script_exits_before_its_reward_lines"
    return None


def _exits_before_reward(script: Path) -> bool:
    """A top-level `exit` line before the first line that writes a reward file."""
    if not script.is_file():
        return False
    for line in script.read_text(errors="replace").splitlines():
        if "/logs/verifier/reward" in line:
            return False
        if re.match(r"exit\b", line):
            return True
    return False


def _has_solution(task: Path) -> bool:
    """Whether the oracle has anything to run (assay's own rule: solution/solve.sh, or one per
    step); a task assay cannot read is left for `assay run` to say why."""
    from assay.errors import SpecError
    from assay.formats.container_task import read_sandbox_task
    from assay.world.container.dataset import solution_dirs

    try:
        return bool(solution_dirs(read_sandbox_task(task)))
    except SpecError:
        return True


def _row(task: Path, agent: str, started: float, **fields: object) -> dict[str, object]:
    return {
        "task": task.name,
        "agent": agent,
        "wall_s": round(time.perf_counter() - started, 2),
        **fields,
    }


def _summary(runs: list[dict[str, object]]) -> dict[str, object]:
    oracle = [run for run in runs if run["agent"] == "reference"]
    noop = [run for run in runs if run["agent"] == "noop"]
    set_apart = [
        run
        for run in oracle
        if run.get("outcome") not in PASSED
        and (NOT_HERE.search(str(run.get("reason") or "")) or run.get("not_here"))
    ]
    feasible = [run for run in oracle if run not in set_apart]
    verified = [run for run in feasible if run.get("outcome") in PASSED]
    times = sorted(float(run["wall_s"]) for run in runs)  # type: ignore[arg-type]
    return {
        "counts": {
            "tasks": len(oracle),
            "oracle_verified": len(verified),
            "needs_what_this_machine_lacks": len(set_apart),
            "feasible": len(feasible),
            "oracle_rate_feasible": round(len(verified) / len(feasible), 3) if feasible else None,
            "noop_verified": sum(run.get("outcome") in PASSED for run in noop),
        },
        "seconds_per_task_run": {
            "median": round(statistics.median(times), 2) if times else None,
            "p90": round(times[int(len(times) * 0.9)], 2) if times else None,
        },
        "oracle_failures": [_brief(run) for run in feasible if run not in verified],
        "set_apart": [_brief(run) for run in set_apart],
        "noop_verified": [_brief(run) for run in noop if run.get("outcome") in PASSED],
    }


def _brief(run: dict[str, object]) -> dict[str, object]:
    keys = ("task", "outcome", "status", "reward", "reason", "not_here", "last_line", "wall_s")
    return {key: run.get(key) for key in keys if run.get(key) not in (None, "")}


if __name__ == "__main__":
    main()
