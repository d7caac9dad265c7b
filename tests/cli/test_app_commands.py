"""`assay COMMAND` builds only that command's parameters; the whole command line is still there
for `assay --help`, a mistyped command and the reference."""

from __future__ import annotations

import os
import subprocess
import sys

from assay.cli.app import COMMANDS, GROUPS, build_app


def test_the_whole_command_line_has_every_command_and_group_in_order():
    app = build_app()
    assert [info.name for info in app.registered_commands] == list(COMMANDS)
    assert [info.name for info in app.registered_groups] == list(GROUPS)


def test_one_command_is_built_alone():
    app = build_app("run")
    assert [info.name for info in app.registered_commands] == ["run"]
    assert app.registered_groups == []
    keys = build_app("keys")
    assert keys.registered_commands == []
    assert [info.name for info in keys.registered_groups] == ["keys"]


def _assay(*args: str, modules: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    script = (
        "import sys\n"
        "from assay.cli.app import run_app\n"
        f"sys.argv = ['assay', *{list(args)!r}]\n"
        "try:\n"
        "    run_app()\n"
        "finally:\n"
        f"    print('loaded', sorted(m for m in {modules!r} if m in sys.modules), file=sys.stderr)\n"
    )
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)


def test_assay_run_loads_no_other_command():
    others = tuple(
        module for module, _ in {**COMMANDS, **GROUPS}.values() if module != "assay.cli.run"
    )
    done = _assay("run", "--help", modules=others)
    assert done.returncode == 0, done.stderr
    assert "Usage: assay run [OPTIONS]" in done.stdout
    assert done.stderr.splitlines()[-1] == "loaded []"


def test_help_lists_every_command_and_a_typo_is_still_answered():
    done = _assay("--help")
    assert done.returncode == 0, done.stderr
    for name in [*COMMANDS, *GROUPS]:
        assert f" {name} " in done.stdout, name
    typo = _assay("rn")
    assert typo.returncode == 2
    assert "No such command 'rn'. Did you mean 'run', 'runs'?" in typo.stderr
