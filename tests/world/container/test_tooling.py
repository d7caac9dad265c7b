"""The tool layer in a sandbox: the real uv and uvx, pinned versions honoured, the sandbox's own
Pythons only (the nearest one for a version it lacks, said on stderr), refusals that say so, and
what uv's installer leaves in a home."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.world.container import Sandbox
from assay.world.container.host import tool_dir, uv_binary

PINNED_TEST = """
import importlib.metadata, pytest

def test_the_pinned_versions_run():
    assert pytest.__version__ == "8.4.1"
    assert importlib.metadata.version("pluggy") == "1.5.0"
"""


def run(box: Sandbox, command: str, timeout_s: float = 180) -> tuple[int, str, str]:
    result = box.exec(command, timeout_s=timeout_s)
    return result.exit_code, result.stdout.decode(), result.stderr.decode()


@pytest.fixture
def online(start_sandbox: Callable[..., Sandbox]) -> Sandbox:
    """A sandbox with the public network, so with the host's package cache."""
    return start_sandbox(workdir="/app", network="public")


def local_minor(box: Sandbox) -> str:
    return run(box, "python3 -c 'import sys; print(\"3.%d\" % sys.version_info[1])'")[1].strip()


def test_uvx_runs_the_pinned_pytest_with_the_pinned_plugins(
    online: Sandbox, tmp_path: Path
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pins.py").write_text(PINNED_TEST)
    online.put(tmp_path / "tests", "/tests")
    code, out, err = run(
        online,
        "uvx -p 3.13 --with pytest==8.4.1 --with pluggy==1.5.0 --with pytest-json-ctrf==0.3.5 "
        "pytest --ctrf /tmp/ctrf.json /tests/test_pins.py -rA -p no:cacheprovider",
    )
    assert code == 0, (out, err)
    assert "1 passed" in out and "assay" not in out  # no plugin of assay's own environment
    have = local_minor(online)
    if have != "3.13":
        assert f"[assay-tooling] python 3.13 requested, {have} used" in err
    assert ".pytest_cache" not in run(online, "ls -A /tests /app")[1]
    code, out, _ = run(online, "uvx --with pytest==8.3.5 pytest --version")
    assert (code, out.strip()) == (0, "pytest 8.3.5")


def test_uv_venv_pip_install_and_run_as_terminal_bench_scripts_do(online: Sandbox) -> None:
    script = (
        "set -e; cd /tmp && uv venv .tbench-testing && source .tbench-testing/bin/activate && "
        "uv pip install pytest==8.4.1 && uv run pytest --version"
    )
    code, out, err = run(online, script)
    assert (code, out.strip()) == (0, "pytest 8.4.1"), err


def test_uv_init_add_and_run_make_a_project(online: Sandbox) -> None:
    script = (
        "set -e; mkdir -p /tmp/proj && cd /tmp/proj && uv init -q && uv add -q pytest==8.4.1 && "
        "uv run pytest --version && grep -c 'pytest==8.4.1' pyproject.toml"
    )
    code, out, err = run(online, script)
    assert code == 0, err
    assert out.split("\n")[:2] == ["pytest 8.4.1", "1"]


def test_a_python_the_sandbox_lacks_gets_the_nearest_and_never_a_download(box: Sandbox) -> None:
    have = local_minor(box)
    code, out, err = run(box, "cd /tmp && uv venv -p 3.99 v && v/bin/python -V")
    assert code == 0 and out.startswith(f"Python {have}."), err
    assert f"[assay-tooling] python 3.99 requested, {have} used" in err
    code, _, err = run(box, "uv python install 3.13")
    assert code == 0 and "[assay-tooling] python 3.13 requested" in err
    assert run(box, "ls -A ~/.local/share/uv 2>/dev/null | wc -l")[1].strip() == "0"
    code, _, err = run(
        box, "mkdir -p /tmp/pin && cd /tmp/pin && echo 3.12 > .python-version && uv venv"
    )
    assert code == 0 and f"python 3.12 requested, {have} used (/tmp/pin/.python-version)" in err


@pytest.mark.parametrize(
    "command",
    [
        "uv python install pypy",
        "uvx -p graalpy pytest",
        "uv self update",
        'mkdir -p /tmp/q && cd /tmp/q && printf \'[project]\\nname = "q"\\nversion = "0"\\n'
        'requires-python = ">=3.99"\\n\' > pyproject.toml && uv run python -V',
    ],
    ids=["pypy", "graalpy", "self-update", "requires-python"],
)
def test_what_the_sandbox_cannot_give_is_refused_in_one_line(box: Sandbox, command: str) -> None:
    code, _, err = run(box, command)
    assert code == 2
    assert re.search(r"^\[assay-tooling\] refused: \S", err, re.MULTILINE), err


def test_the_installers_env_file_puts_local_bin_first_for_sh_and_bash(box: Sandbox) -> None:
    for shell in ("bash", "sh"):
        command = (
            f'{shell} -ec \'. "$HOME/.local/bin/env"; echo "$PATH"; command -v uv; command -v uvx\''
        )
        code, out, err = run(box, command)
        assert code == 0, err
        lines = out.split("\n")
        assert lines[0].startswith("/root/.local/bin:")
        assert lines[1:3] == ["/root/.local/bin/uv", "/root/.local/bin/uvx"]
    assert run(box, "/root/.local/bin/uvx --version")[1].startswith("uvx ")
    assert run(box, "echo mine > ~/.local/bin/env && cat ~/.local/bin/env")[1] == "mine\n"


def test_a_user_with_a_home_in_a_layer_gets_the_installers_files(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path
) -> None:
    from assay.world.container.confine import default_base

    tmp_path.chmod(0o755)
    layer = tmp_path / "layer"
    (layer / "etc").mkdir(parents=True)
    (layer / "home" / "builder").mkdir(parents=True)
    passwd = (default_base() / "etc" / "passwd").read_text()
    (layer / "etc" / "passwd").write_text(passwd + "builder:x:1000:1000::/home/builder:/bin/bash\n")
    box = start_sandbox(layers=[layer], workdir="/")
    result = box.exec(
        'set -e; . "$HOME/.local/bin/env"; command -v uv; stat -c %u ~/.local/bin/env',
        timeout_s=30,
        user="builder",
    )
    assert result.exit_code == 0, result
    assert result.stdout.decode().split() == ["/home/builder/.local/bin/uv", "1000"]


def test_the_wrappers_list_of_options_with_values_is_uvs_own() -> None:
    """bin/uv stops reading uv's options at the command of `uv run`, `uv tool run` and uvx:
    every option of theirs that takes a value must be in its list, or a value is taken for the
    command."""
    uv = uv_binary()
    assert uv is not None
    listed = (tool_dir() / "uv").read_text()
    wanted = set()
    for command in (["run"], ["tool", "run"], ["tool", "uvx"]):
        shown = subprocess.run([str(uv), *command, "--help"], capture_output=True, text=True)
        for line in shown.stdout.splitlines():
            found = re.match(r"\s+(?:(-\w), )?(--[\w-]+) <", line)
            if found:
                wanted |= {name for name in found.groups() if name}
    valued = listed.split('VALUED="', 1)[1].split('"', 1)[0].replace("\\\n", "").split()
    assert wanted and wanted <= set(valued), sorted(wanted - set(valued))


def test_an_allowlist_gets_the_pypi_index_only_when_it_admits_pypis_hosts(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    admitted = start_sandbox(
        network="allowlist", allowed_hosts=["pypi.org", "files.pythonhosted.org"]
    )
    code, out, err = run(admitted, "uvx --with pytest==8.4.1 pytest --version")
    assert (code, out.strip()) == (0, "pytest 8.4.1"), err
    other = start_sandbox(network="allowlist", allowed_hosts=["deb.debian.org"])
    env = run(other, "env")[1]
    assert "PIP_INDEX_URL" not in env and "UV_INDEX_URL" not in env
    assert "Acquire::http::Proxy" in run(other, "cat /etc/apt/apt.conf.d/99assay-package-cache")[1]
    offline = start_sandbox(network="no-network")
    assert run(offline, "ls /etc/apt/apt.conf.d")[1].split().count("99assay-package-cache") == 0
    assert "INDEX_URL" not in run(offline, "env")[1]
