"""The example plugin (examples/plugin-kinds) through the CLI: its service kind `sms` and check kind
`sms-sent` found by the entry points its pyproject.toml declares, or named as `module:Class`; an
installed agent by its entry point's name; and each bad plugin reference one line naming it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "examples" / "plugin-kinds"
WORLD = PLUGIN / "world"
SERVICE = "assay_plugin_kinds.sms:SmsGateway"
CHECK = "assay_plugin_kinds.checks:SmsSentCheck"
TEXTER = '''
from assay import call, finish


class Texter:
    """Texts Ada the time of A-1, then finishes."""

    def __init__(self):
        self.sent = False

    def act(self, observation):
        if self.sent:
            return finish("Reminded.")
        self.sent = True
        return call("send_sms", to="+447700900123", text="Your appointment A-1 is at 10:30.")
'''


def installed(root: Path, groups: dict[str, dict[str, str]]) -> Path:
    """A directory holding the plugin's dist-info as pip would write it, with these entry points."""
    info = root / "assay_plugin_kinds-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: assay-plugin-kinds\nVersion: 0.1.0\n"
    )
    lines = [
        line
        for group, points in groups.items()
        for line in (f"[{group}]", *(f"{name} = {value}" for name, value in points.items()), "")
    ]
    (info / "entry_points.txt").write_text("\n".join(lines))
    return root


def declared() -> dict[str, dict[str, str]]:
    """The entry points examples/plugin-kinds/pyproject.toml declares."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["entry-points"]


def assay(tmp_path: Path, *args: str, path: list[Path]) -> subprocess.CompletedProcess[str]:
    """`python -m assay` with `path` (and this checkout's sources) on PYTHONPATH."""
    paths = [*map(str, path), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home"), "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.run(
        [sys.executable, "-m", "assay", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def outcome(ran: subprocess.CompletedProcess[str]) -> tuple[str, list[str]]:
    """The one task run's outcome and the names of its failed checks."""
    import json

    assert ran.returncode in (0, 1), ran.stderr
    (task_run,) = json.loads(ran.stdout)["task_runs"]
    failed = [check["name"] for check in task_run["checks"] if not check["passed"]]
    return task_run["outcome"], failed


def world_copy(tmp_path: Path, service: str, check: str) -> Path:
    """The example world with its service kind and check kind named otherwise."""
    world = tmp_path / "world"
    shutil.copytree(WORLD, world)
    toml = world / "world.toml"
    toml.write_text(toml.read_text().replace('kind = "sms"', f'kind = "{service}"'))
    task = world / "tasks" / "remind.toml"
    task.write_text(task.read_text().replace('assert = "sms-sent"', f'assert = "{check}"'))
    return world


def test_the_plugin_kinds_run_by_their_entry_point_names(tmp_path):
    path = [PLUGIN / "src", installed(tmp_path / "site", declared())]
    assert outcome(
        assay(tmp_path, "run", str(WORLD), "--agent", "reference", "--json", path=path)
    ) == (
        "verified",
        [],
    )
    wrong = assay(
        tmp_path, "run", str(WORLD), "--agent", "wrong:texts the wrong patient", "--json", path=path
    )
    assert outcome(wrong) == ("not_achieved", ["Ada Byron is texted the time of A-1"])


def test_the_plugin_installed_by_pip_runs_by_its_entry_point_names(tmp_path):
    # What examples/plugin-kinds/README.md tells a user to do: pip builds and installs the package
    # (here into a folder of its own, offline), and nothing but that folder puts it on the path.
    source = shutil.copytree(PLUGIN, tmp_path / "plugin", ignore=shutil.ignore_patterns("world"))
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
    built = subprocess.run(
        [*pip, "--no-build-isolation", "--target", str(site), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    assert (site / "assay_plugin_kinds" / "checks.py").is_file()
    ran = assay(tmp_path, "run", str(WORLD), "--agent", "reference", "--json", path=[site])
    assert outcome(ran) == ("verified", [])


def test_the_plugin_kinds_run_named_as_module_and_class(tmp_path):
    world = world_copy(tmp_path, SERVICE, CHECK)
    ran = assay(
        tmp_path, "run", str(world), "--agent", "reference", "--json", path=[PLUGIN / "src"]
    )
    assert outcome(ran) == ("verified", [])


def test_an_installed_agent_runs_by_its_entry_point_name(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "texting_agent.py").write_text(TEXTER)
    site = installed(
        tmp_path / "site", {**declared(), "assay.agents": {"texter": "texting_agent:Texter"}}
    )
    path = [PLUGIN / "src", site, tmp_path / "agents"]
    ran = assay(tmp_path, "run", str(WORLD), "--agent", "texter", "--json", path=path)
    assert outcome(ran) == ("verified", [])


@pytest.mark.parametrize(
    ("service", "check", "entry_points", "error"),
    [
        (
            "assay_plugin_nowhere:Sms",
            "sms-sent",
            {},
            "world.toml: services.sms: assay_plugin_nowhere:Sms: cannot import "
            "assay_plugin_nowhere: No module named 'assay_plugin_nowhere'",
        ),
        (
            CHECK,
            "sms-sent",
            {},
            f"world.toml: services.sms: {CHECK} is not a subclass of assay.Service",
        ),
        (
            SERVICE,
            SERVICE,
            {},
            f"tasks/remind.toml: checks[0].assert: {SERVICE} is not a subclass of "
            'assay.CheckBase with kind: Literal["<name>"]',
        ),
        (
            SERVICE,
            "sms-sent",
            {"assay.checks": {"sms-sent": CHECK, "sql": CHECK}},
            f"tasks/remind.toml: checks[0].assert: entry point sql ({CHECK}) in assay.checks: "
            "'sql' is a built-in check kind",
        ),
        (
            SERVICE,
            "sms-sent",
            {"assay.checks": {"sms-sent": "assay_plugin_kinds.checks:run_sms_sent_check"}},
            "tasks/remind.toml: checks[0].assert: entry point sms-sent "
            "(assay_plugin_kinds.checks:run_sms_sent_check) is not a subclass of assay.CheckBase",
        ),
        (
            SERVICE,
            "sms-snet",
            {},
            "tasks/remind.toml: checks[0].assert: unknown assert 'sms-snet' (known: sql, answer,",
        ),
    ],
    ids=[
        "missing module",
        "service not a Service",
        "check not a check model",
        "duplicate kind name",
        "entry point not a check model",
        "unknown kind",
    ],
)
def test_a_bad_plugin_reference_is_one_line_naming_it(
    tmp_path, service, check, entry_points, error
):
    world = world_copy(tmp_path, service, check)
    path = [PLUGIN / "src", installed(tmp_path / "site", entry_points)]
    ran = assay(tmp_path, "run", str(world), "--agent", "reference", path=path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    (line,) = ran.stderr.splitlines()
    assert line.startswith("error: world/") and error in line, line
