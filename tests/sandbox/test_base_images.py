"""A base like the image named, through real task runs: a Python image whose pip installs from
PyPI, a Debian suite other than the default, an image no root is like, a task set's own mapping,
and a verifier built FROM an image of its own."""

from __future__ import annotations

from pathlib import Path

from sandboxkit import make_task
from sandboxrun import run_one, script

REWARD = "mkdir -p /logs/verifier\nif {check}; then r=1; else r=0; fi\necho $r > /logs/verifier/reward.txt\n"
TRIXIE = '[ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = trixie ]'


def reward_if(check: str) -> str:
    return REWARD.format(check=check)


def test_a_python_image_has_a_pip_that_installs_and_a_python_command(tmp_path: Path) -> None:
    task = make_task(
        tmp_path,
        "py311",
        dockerfile=(
            "FROM python:3.11-slim\nWORKDIR /app\n"
            "RUN python -m pip install --no-cache-dir --upgrade pip\n"  # pip upgrades itself
        ),
        solve_sh=(
            "set -e\npip install --no-cache-dir six==1.17.0\n"
            "python -c 'import six, sys; print(sys.version_info[:2], six.__version__)' > out.txt\n"
            "python -m venv /tmp/venv && /tmp/venv/bin/python -m pip --version\n"
            'echo "$PYTHON_VERSION $PATH" >> out.txt\n'
        ),
        test_sh=reward_if(
            "[ \"$(head -n 1 /app/out.txt)\" = '(3, 11) 1.17.0' ] && "
            "grep -qx '3.11 /usr/local/bin:/usr/local/sbin:.*' /app/out.txt && "
            '[ "$(command -v python)" = /usr/local/bin/python ] && '
            '[ "$(command -v pip)" = /usr/local/bin/pip ]'
        ),
    )
    result = run_one(task)
    evidence = script(result)
    assert result.outcome == "verified", (result.error, evidence.get("test_stdout_tail"))
    assert "base_image_mapped:python:3.11-slim=debian:bookworm+python3.11" in evidence["notes"]
    assert not any(note.startswith("base_image_substituted") for note in evidence["notes"])
    assert run_one(task, agent="noop").outcome == "not_achieved"


def test_a_debian_image_is_that_suite_with_a_dockerfile_or_a_docker_image(tmp_path: Path) -> None:
    built = make_task(
        tmp_path / "a", "trixie", dockerfile="FROM debian:trixie\n", test_sh=reward_if(TRIXIE)
    )
    result = run_one(built, agent="noop")
    assert result.outcome == "verified", result.error
    assert "base_image_mapped:debian:trixie=debian:trixie" in script(result)["notes"]
    toml = '[environment]\ndocker_image = "debian:13-slim"\n'
    named = make_task(tmp_path / "b", "named", toml=toml, test_sh=reward_if(TRIXIE))
    result = run_one(named, agent="noop")
    assert result.outcome == "verified", result.error
    assert script(result)["notes"][0] == "base_image_mapped:debian:13-slim=debian:trixie"


def test_an_image_no_root_is_like_is_not_scored_before_the_agent(tmp_path: Path) -> None:
    task = make_task(
        tmp_path,
        "alpine",
        dockerfile="FROM alpine:3.19\n",
        solve_sh="touch /x\n",
        test_sh=reward_if("true"),
    )
    result = run_one(task)
    assert result.outcome == "not_scored" and result.summary.turns == 0
    assert script(result)["status"] == "INDETERMINATE"
    assert result.error is not None
    message = result.error.message
    assert "unsupported_base_image:alpine:3.19" in message and "images.toml" in message


def test_a_task_sets_images_toml_maps_an_image_the_table_refuses(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "images.toml").write_text(
        '[images."alpine:3.*"]\nsuite = "trixie"\npackages = ["jq"]\nenv = { FLAVOUR = "mine" }\n'
    )
    task = make_task(
        tasks,
        "mapped",
        dockerfile="FROM alpine:3.19\n",
        test_sh=reward_if(f'{TRIXIE} && jq --version && [ "$FLAVOUR" = mine ]'),
    )
    for directory in (tasks, task):  # the set, or one task of it
        result = run_one(directory, agent="noop")
        assert result.outcome == "verified", result.error
        notes = script(result)["notes"]
        assert "base_image_mapped:alpine:3.19=debian:trixie by images.toml" in notes


def test_a_separate_verifier_is_built_from_its_own_image(tmp_path: Path) -> None:
    toml = '[verifier]\ntimeout_sec = 60\nenvironment_mode = "separate"\n'
    task = make_task(
        tmp_path,
        "own-from",
        toml=toml,
        dockerfile="FROM debian:trixie\n",
        tests_files={"Dockerfile": "FROM python:3.11-slim\n"},
        test_sh=reward_if(
            "python -c 'import sys; assert sys.version_info[:2] == (3, 11)' && ! " + TRIXIE
        ),
    )
    result = run_one(task, agent="noop")
    assert result.outcome == "verified", result.error


def test_each_stage_is_built_over_the_root_of_its_own_image(tmp_path: Path) -> None:
    dockerfile = (
        "FROM python:3.11-slim AS build\n"
        "RUN python -c 'import sys; print(sys.version_info[:2])' > /version.txt\n"
        "FROM debian:trixie\nENV PATH=/opt/tool/bin:$PATH\n"
        "COPY --from=build /version.txt /version.txt\n"
    )
    test_sh = reward_if(
        f"[ \"$(cat /version.txt)\" = '(3, 11)' ] && {TRIXIE} && "
        'case "$PATH" in /opt/tool/bin:/usr/local/sbin:/usr/local/bin:*) true;; *) false;; esac'
    )
    task = make_task(tmp_path, "stages", dockerfile=dockerfile, test_sh=test_sh)
    result = run_one(task, agent="noop")
    assert result.outcome == "verified", (result.error, script(result).get("test_stdout_tail"))


def test_a_stage_from_an_image_no_root_is_like_is_not_scored(tmp_path: Path) -> None:
    dockerfile = (
        "FROM alpine:3.19 AS fetch\nRUN true\nFROM debian:trixie\nCOPY --from=fetch /etc /x\n"
    )
    task = make_task(tmp_path, "stage", dockerfile=dockerfile, test_sh=reward_if("true"))
    result = run_one(task, agent="noop")
    assert result.outcome == "not_scored" and result.error is not None
    assert result.error.message.startswith("unsupported_base_image:alpine:3.19: ")
