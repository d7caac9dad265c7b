"""assay worlds as inspect_ai tasks, through inspect's entry point, driven by `inspect eval` itself:
with its mockllm model, and with the local stand-in model server through inspect's openai provider.
The entry point is read from this checkout's pyproject.toml by installing it (editable) into a
test-only venv that sees the project's own packages."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
from importlib.util import find_spec
from pathlib import Path

import pytest
from modelkit import ScriptedModel, StandIn, solution_replies
from worldkit import SHOP

from assay.runs import open_benchmark

if find_spec("inspect_ai") is None or find_spec("litellm") is None:
    pytest.skip("needs the inspect and providers extras", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
ASSAY = str(Path(sys.executable).parent / "assay")
# Offline, inspect counts mockllm's tokens with tiktoken's o200k table, which LiteLLM ships.
TIKTOKEN = Path(find_spec("litellm").origin).parent / "litellm_core_utils" / "tokenizers"


@pytest.fixture(scope="module")
def venv() -> Path:
    """A venv holding this checkout, installed editable, over the project's site-packages;
    kept under build/ while pyproject.toml is unchanged."""
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:12]
    place = ROOT / "build" / f"test-venv-inspect-{key}"
    python = place / "bin" / "python"
    if not (place / "ready").exists():
        subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", place], check=True)
        site = sysconfig.get_paths()["purelib"]
        (
            Path(sysconfig.get_paths(vars={"base": str(place)})["purelib"]) / "zz_project.pth"
        ).write_text(f"import site; site.addsitedir({site!r})\n")
        uv = str(Path(sys.executable).parent / "uv")  # from the sandbox extra; twice pip's speed
        subprocess.run(
            [uv, "pip", "install", "--quiet", "--python", python, "--no-deps", "-e", ROOT],
            check=True,
            capture_output=True,
        )
        (place / "ready").touch()
    return place


def inspect_eval(venv: Path, workdir: Path, *args: str) -> dict:
    """`inspect eval …` in `workdir` (which holds ./worlds/shop); the one log it wrote, read by
    inspect's own reader."""
    from inspect_ai.log import read_eval_log

    (workdir / "worlds").mkdir(exist_ok=True)
    if not (workdir / "worlds" / "shop").exists():
        (workdir / "worlds" / "shop").symlink_to(SHOP)
    env = {**os.environ, "ASSAY_HOME": str(workdir / "home"), "TIKTOKEN_CACHE_DIR": str(TIKTOKEN)}
    env |= {"OPENAI_API_KEY": "stand-in", "INSPECT_LOG_DIR": str(workdir / "logs")}
    env.pop("PYTHONPATH", None)  # the venv's editable install is this checkout already
    done = subprocess.run(
        [venv / "bin" / "python", "-m", "inspect_ai", "eval", *args, "--display", "plain"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (log,) = (workdir / "logs").glob("*.eval")
    return read_eval_log(str(log))


def reference_results(tmp_path: Path) -> dict[str, dict]:
    done = subprocess.run(
        [ASSAY, "run", str(SHOP), "--agent", "reference", "--json"],
        env={**os.environ, "ASSAY_HOME": str(tmp_path / "ref-home")},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return {run["task_id"]: run for run in json.loads(done.stdout)["task_runs"]}


def test_mockllm_runs_a_world_task_and_the_score_carries_assays_grading(venv, tmp_path):
    log = inspect_eval(
        venv, tmp_path, "assay/shop", "--model", "mockllm/model", "-T", "tasks=refund-double-charge"
    )
    assert log.status == "success"
    (sample,) = log.samples
    (score,) = sample.scores.values()
    assert score.value == {"score": 0.0, "reward": 0.0, "verified": 0.0}
    graded = score.metadata
    assert graded["outcome"] == "not_achieved" and graded["task_id"] == "refund-double-charge"
    first = graded["checks"][0]
    assert first["name"] == "Exactly one card refund for A-1042"
    assert first["evidence"]["actual"] == 0 and "details" in first
    assert "✗ [goal] Exactly one card refund for A-1042" in score.explanation
    assert set(graded["axes"]) >= {"correctness"}
    # mockllm only talks: each reply went to the customer, until the task's turns ran out
    assert graded["summary"]["termination"] == "max_turns"


def test_the_reference_through_inspects_openai_provider_reaches_the_same_final_state(
    venv, tmp_path
):
    shop = open_benchmark(SHOP)
    scripts = {t.customer.request: solution_replies(t) for t in shop.tasks.values() if t.solution}
    reference = reference_results(tmp_path)
    with StandIn(ScriptedModel(scripts)) as server:
        log = inspect_eval(
            venv,
            tmp_path,
            "assay/world",
            "-T",
            f"world={SHOP}",
            "--model",
            "openai/stand-in",
            "--model-base-url",
            server.url,
        )
    assert log.status == "success"
    assert {s.id for s in log.samples} == set(reference)
    for sample in log.samples:
        (score,) = sample.scores.values()
        wanted = reference[sample.id]
        assert score.metadata["outcome"] == wanted["outcome"], sample.id
        assert score.metadata["final_state_hash"] == wanted["final_state_hash"], sample.id
    means = {score.name: score.metrics["mean"].value for score in log.results.scores}
    assert means["verified"] == pytest.approx(
        sum(r["outcome"] == "verified" for r in reference.values()) / len(reference)
    )


MOCK = ("--model", "mockllm/model", "--display", "plain")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (("-T", "world=no-such-world"), "-T world: no-such-world: not a directory"),
        (("-T", f"world={SHOP}", "-T", "tasks=nope"), "-T tasks: unknown task 'nope'"),
    ],
)
def test_a_wrong_world_or_task_is_one_line_not_a_traceback(venv, tmp_path, given, said):
    done = subprocess.run(
        [venv / "bin" / "python", "-m", "inspect_ai", "eval", "assay/world", *given, *MOCK],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
            "ASSAY_HOME": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    shown = done.stdout + done.stderr  # inspect's plain display prints its errors on stdout
    assert said in shown and "Traceback" not in shown, shown[-2000:]
