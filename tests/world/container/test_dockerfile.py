"""The Dockerfile subset: parsing, the plan of steps a build makes, refusals and the cache key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.errors import SpecError
from assay.formats.files import shown
from assay.world.container.dockerfile import (
    BuildPlan,
    CopyStep,
    Instruction,
    RunStep,
    WorkdirStep,
    build_key,
    parse_dockerfile,
    plan_build,
)


def no_env(image: str) -> dict[str, str]:
    """A base image with no environment of its own, so a plan's env is the Dockerfile's alone."""
    return {}


def plan(
    tmp_path: Path, dockerfile: str, files: dict[str, str] | None = None, base_env=no_env
) -> BuildPlan:
    """The plan of a Dockerfile whose context holds files (relative path → text)."""
    context = tmp_path / "environment"
    context.mkdir(exist_ok=True)
    for relative, content in (files or {}).items():
        (context / relative).parent.mkdir(parents=True, exist_ok=True)
        (context / relative).write_text(content)
    (context / "Dockerfile").write_text(dockerfile)
    return plan_build(context / "Dockerfile", context, base_env=base_env)


# --- parsing ----------------------------------------------------------------------------------

PARSES = {
    "one-line": ("FROM ubuntu:24.04", [("FROM", "ubuntu:24.04", 1)]),
    "keyword-upper-cased": (
        "from ubuntu\nrun echo hi",
        [("FROM", "ubuntu", 1), ("RUN", "echo hi", 2)],
    ),
    "comments-and-blanks-skipped": (
        "# a comment\n\nFROM x\n   # indented comment\n\nRUN a",
        [("FROM", "x", 3), ("RUN", "a", 6)],
    ),
    "directives-skipped": (
        "# syntax=docker/dockerfile:1\n# check=skip=all\nFROM x",
        [("FROM", "x", 3)],
    ),
    "continuation": (
        "FROM x\nRUN apt-get update && \\\n    apt-get install -y curl\nWORKDIR /app",
        [
            ("FROM", "x", 1),
            ("RUN", "apt-get update &&     apt-get install -y curl", 2),
            ("WORKDIR", "/app", 4),
        ],
    ),
    "continuation-with-trailing-spaces": ("RUN a \\  \n  b", [("RUN", "a   b", 1)]),
    "comment-and-blank-inside-continuation": (
        "RUN a \\\n# dropped\n\n  && b",
        [("RUN", "a   && b", 1)],
    ),
    "hash-inside-a-line-is-not-a-comment": ("RUN echo # kept", [("RUN", "echo # kept", 1)]),
    "escape-directive-backtick": (
        "# escape=`\nFROM x\nRUN a `\n  b \\ c",
        [("FROM", "x", 2), ("RUN", "a   b \\ c", 3)],
    ),
    "escape-directive-after-a-comment-is-a-comment": (
        "# hello\n# escape=`\nRUN a `\nRUN b",
        [("RUN", "a `", 3), ("RUN", "b", 4)],
    ),
    "continuation-at-end-of-file": ("RUN a \\", [("RUN", "a", 1)]),
    "keyword-alone": ("RUN", [("RUN", "", 1)]),
    "heredoc-kept-with-its-body": (
        "RUN <<EOF\napt-get update\n# not a comment here\nEOF\nUSER a",
        [("RUN", "<<EOF\napt-get update\n# not a comment here\nEOF", 1), ("USER", "a", 5)],
    ),
    "two-heredocs": (
        "RUN cat <<A <<-'B'\n1\nA\n\t2\n\tB\nCMD x",
        [("RUN", "cat <<A <<-'B'\n1\nA\n\t2\n\tB", 1), ("CMD", "x", 6)],
    ),
    "here-string-is-not-a-heredoc": (
        'RUN cat <<<"hi"\nhi\nUSER a',
        [("RUN", 'cat <<<"hi"', 1), ("HI", "", 2), ("USER", "a", 3)],
    ),
    "windows-line-endings": (
        "FROM x\r\nRUN a \\\r\n  b\r\n",
        [("FROM", "x", 1), ("RUN", "a   b", 2)],
    ),
}


@pytest.mark.parametrize(("text", "expected"), PARSES.values(), ids=PARSES.keys())
def test_parse_dockerfile(text: str, expected: list[tuple[str, str, int]]) -> None:
    assert parse_dockerfile(text) == [Instruction(*item) for item in expected]


# --- a whole plan -----------------------------------------------------------------------------


def test_a_typical_dockerfile_becomes_its_steps(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        """# syntax=docker/dockerfile:1
FROM ubuntu:24.04
ARG PY=python3
ENV DEBIAN_FRONTEND=noninteractive LANG="C.UTF-8"
WORKDIR /app
RUN apt-get update && \\
    apt-get install -y $PY
COPY requirements.txt ./
COPY src/ src/
RUN useradd -m agent && chown -R agent /app
USER agent
EXPOSE 8080
CMD ["bash"]
""",
        {"requirements.txt": "pytest\n", "src/main.py": "print(1)\n"},
    )
    context = tmp_path / "environment"
    env = {"DEBIAN_FRONTEND": "noninteractive", "LANG": "C.UTF-8"}
    assert result.base_image == "ubuntu:24.04"
    assert result.steps == [
        WorkdirStep("/app"),
        RunStep(
            "apt-get update &&     apt-get install -y $PY", {"PY": "python3", **env}, "/app", None
        ),
        CopyStep([(context / "requirements.txt", "/app/requirements.txt")], None, "/app"),
        CopyStep([(context / "src", "/app/src")], None, "/app"),
        RunStep("useradd -m agent && chown -R agent /app", {"PY": "python3", **env}, "/app", None),
    ]
    assert (result.env, result.workdir, result.user) == (env, "/app", "agent")
    assert result.notes == [
        "unsupported_instruction:EXPOSE@12"
    ]  # CMD is replaced by the runner's command, as in Docker: nothing to note


def test_a_dockerfile_without_workdir_or_user(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM debian\nRUN true")
    assert (result.workdir, result.user, result.env) == (None, None, {})
    assert result.steps == [RunStep("true", {}, "/", None)]


# --- ENV, ARG and substitution ------------------------------------------------------------------

ENVS = {
    "pairs-with-quotes": ("ENV k=v k2=\"v 2\" k3='$x'", {"k": "v", "k2": "v 2", "k3": "$x"}),
    "legacy-form": ("ENV k the rest  of it", {"k": "the rest  of it"}),
    "legacy-form-quoted": ('ENV k "quoted value"', {"k": "quoted value"}),
    "escaped-space": ("ENV k=a\\ b", {"k": "a b"}),
    "substitution": (
        "ARG v=1.2\nENV A=$v B=${v}-x C=${missing:-dflt} D=${v:+set} E=\\$v",
        {
            "A": "1.2",
            "B": "1.2-x",
            "C": "dflt",
            "D": "set",
            "E": "$v",
        },
    ),
    "same-line-sees-old-value": ("ENV a=1\nENV a=2 b=$a", {"a": "2", "b": "1"}),
    "env-beats-arg": ("ARG a=arg\nENV a=env\nENV b=$a", {"a": "env", "b": "env"}),
    "unset-is-empty": ("ENV a=x${nothing}y", {"a": "xy"}),
    "global-arg-needs-redeclaring": ("ENV a=[$G]", {"a": "[]"}),
    "global-arg-redeclared": ("ARG G\nENV a=[$G]", {"a": "[global]"}),
    "arg-without-default-is-unset": ("ARG N\nENV a=${N:-none}", {"a": "none"}),
    "several-args": ("ARG a=1 b=2\nENV c=$a$b", {"c": "12"}),
}


@pytest.mark.parametrize(("lines", "env"), ENVS.values(), ids=ENVS.keys())
def test_env_and_arg(tmp_path: Path, lines: str, env: dict[str, str]) -> None:
    result = plan(tmp_path, f"ARG G=global\nFROM img:$G\n{lines}\n")
    assert result.env == env
    assert result.base_image == "img:global"


def test_run_is_not_substituted_but_gets_args_and_env(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nARG V=1\nENV E=2\nRUN echo $V ${E} '$HOME'")
    assert result.steps == [RunStep("echo $V ${E} '$HOME'", {"V": "1", "E": "2"}, "/", None)]
    assert result.env == {"E": "2"}  # an ARG is not in the environment after the build


def test_env_user_and_workdir_in_force_at_each_run(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        "FROM x\nRUN a\nENV P=1\nWORKDIR /srv\nWORKDIR sub/../app\nUSER $P\nRUN b\nUSER root\nRUN c",
    )
    runs = [step for step in result.steps if isinstance(step, RunStep)]
    assert [(r.command, r.env, r.workdir, r.user) for r in runs] == [
        ("a", {}, "/", None),
        ("b", {"P": "1"}, "/srv/app", "1"),
        ("c", {"P": "1"}, "/srv/app", "root"),
    ]
    assert [s.path for s in result.steps if isinstance(s, WorkdirStep)] == ["/srv", "/srv/app"]
    assert (result.workdir, result.user) == ("/srv/app", "root")


RUNS = {
    "exec-form": ('RUN ["bash", "-c", "echo hi > /x"]', "bash -c 'echo hi > /x'"),
    "bad-json-is-shell-form": ('RUN ["oops', '["oops'),
    "bare-heredoc-runs-its-body": ("RUN <<EOF\nset -e\necho $HOME\nEOF", "set -e\necho $HOME\n"),
    "dash-heredoc-strips-tabs": ("RUN <<-EOF\n\techo a\n\tEOF", "echo a\n"),
    "heredoc-fed-to-a-command": (
        "RUN python3 <<'EOF'\nprint(1)\nEOF",
        "python3 <<'EOF'\nprint(1)\nEOF",
    ),
    "mount-flag-dropped": (
        "RUN --mount=type=cache,target=/root/.cache pip install x",
        "pip install x",
    ),
}


@pytest.mark.parametrize(("line", "command"), RUNS.values(), ids=RUNS.keys())
def test_run_forms(tmp_path: Path, line: str, command: str) -> None:
    result = plan(tmp_path, f"FROM x\n{line}\n")
    assert [step.command for step in result.steps if isinstance(step, RunStep)] == [command]


def test_a_heredoc_with_a_shebang_runs_as_a_script(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nRUN <<EOF\n#!/usr/bin/env python3\nprint(1)\nEOF\n")
    step = result.steps[0]
    assert isinstance(step, RunStep)
    assert "cat > \"$script\" <<'EOF'\n#!/usr/bin/env python3\nprint(1)\nEOF\n" in step.command
    assert step.command.endswith('"$script"; status=$?; rm -f "$script"; exit $status')


def test_the_mount_flag_is_noted(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nRUN --mount=type=cache,target=/c --network=none true")
    assert result.notes == ["run_flag_ignored:--mount@2", "run_flag_ignored:--network@2"]


# --- COPY and ADD -----------------------------------------------------------------------------

CONTEXT = {
    "a.txt": "a",
    "b.txt": "b",
    "dir/inner.txt": "i",
    "dir/sub/deep.txt": "d",
    ".hidden": "h",
}

COPIES = {
    "file-into-dir": ("COPY a.txt /x/", [("a.txt", "/x/a.txt")]),
    "file-to-path": ("COPY a.txt /x", [("a.txt", "/x")]),
    "dir-contents": ("COPY dir /x", [("dir", "/x")]),
    "dir-contents-slash": ("COPY dir/ /x/", [("dir", "/x")]),
    "several-into-dir": ("COPY a.txt b.txt /x/", [("a.txt", "/x/a.txt"), ("b.txt", "/x/b.txt")]),
    "glob": ("COPY *.txt /x/", [("a.txt", "/x/a.txt"), ("b.txt", "/x/b.txt")]),
    "glob-one-match-to-path": ("COPY a*.txt /x", [("a.txt", "/x")]),
    "glob-matches-hidden": ("COPY .h* /x/", [(".hidden", "/x/.hidden")]),
    "relative-dst-against-workdir": (
        "WORKDIR /app\nCOPY a.txt sub/",
        [("a.txt", "/app/sub/a.txt")],
    ),
    "dot-dst": ("WORKDIR /app\nCOPY a.txt .", [("a.txt", "/app/a.txt")]),
    "workdir-is-a-directory": ("WORKDIR /app\nCOPY a.txt /app", [("a.txt", "/app/a.txt")]),
    "copied-dir-is-a-directory": (
        "COPY dir /d\nCOPY a.txt /d",
        [("dir", "/d"), ("a.txt", "/d/a.txt")],
    ),
    "relative-dst-without-workdir": ("COPY a.txt x", [("a.txt", "/x")]),
    "absolute-source-is-in-context": ("COPY /a.txt /x/", [("a.txt", "/x/a.txt")]),
    "whole-context": ("COPY . /app", [(".", "/app")]),
    "json-form": ('COPY ["a.txt", "/with space/"]', [("a.txt", "/with space/a.txt")]),
    "substituted-dst": ("ARG D=/opt\nCOPY a.txt $D/", [("a.txt", "/opt/a.txt")]),
    "json-form-substituted": ('ENV D=/opt\nCOPY ["a.txt", "${D}/"]', [("a.txt", "/opt/a.txt")]),
    "inner-dotdot-staying-inside": ("COPY dir/../a.txt /x", [("a.txt", "/x")]),
    "add-local-file": ("ADD b.txt /y/", [("b.txt", "/y/b.txt")]),
}


@pytest.mark.parametrize(("lines", "expected"), COPIES.values(), ids=COPIES.keys())
def test_copy_targets(tmp_path: Path, lines: str, expected: list[tuple[str, str]]) -> None:
    result = plan(tmp_path, f"FROM x\n{lines}\n", CONTEXT)
    context = (tmp_path / "environment").resolve()
    copies = [item for step in result.steps if isinstance(step, CopyStep) for item in step.items]
    assert copies == [((context / source).resolve(), target) for source, target in expected]


def test_copy_owner_mode_and_workdir(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        "FROM x\nARG U=agent\nWORKDIR /w\nCOPY --chown=$U:$U --chmod=755 a.txt ./\n",
        CONTEXT,
    )
    step = result.steps[-1]
    assert isinstance(step, CopyStep)
    assert (step.owner, step.chmod, step.workdir) == ("agent:agent", "755", "/w")


def test_a_flag_assay_does_not_honour_is_noted(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nCOPY --link a.txt /x\n", CONTEXT)
    assert result.notes == ["copy_flag_ignored:--link@2"]
    assert [type(step) for step in result.steps] == [CopyStep]


def test_a_chmod_that_is_not_octal_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="--chmod=u\\+x is not an octal mode"):
        plan(tmp_path, "FROM x\nCOPY --chmod=u+x a.txt /x\n", CONTEXT)


# --- multi-stage and noted instructions -------------------------------------------------------


def test_only_the_last_stage_counts(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        "FROM golang:1.22 AS build\nRUN go build\nENV X=1\nFROM debian:12\nRUN echo final\n",
    )
    assert result.base_image == "debian:12"
    assert result.steps == [RunStep("echo final", {}, "/", None)]
    assert result.env == {}
    assert result.notes == ["multi_stage_ignored:build"]


def test_a_stage_built_from_an_earlier_one_keeps_its_steps(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        "FROM ubuntu AS base\nENV A=1\nRUN one\nFROM alpine AS other\nRUN skipped\n"
        "FROM base AS final\nRUN two\n",
    )
    assert [step.command for step in result.steps if isinstance(step, RunStep)] == ["one", "two"]
    assert (result.base_image, result.env) == ("ubuntu", {"A": "1"})
    assert "multi_stage_ignored:other" in result.notes


@pytest.mark.parametrize(
    "keyword",
    [
        "EXPOSE",
        "LABEL",
        "HEALTHCHECK",
        "VOLUME",
        "STOPSIGNAL",
        "ONBUILD",
        "MAINTAINER",
    ],
)
def test_instructions_that_are_only_noted(tmp_path: Path, keyword: str) -> None:
    result = plan(tmp_path, f"FROM x\n{keyword.lower()} something\nRUN a\n")
    assert result.notes == [f"unsupported_instruction:{keyword}@2"]
    assert len(result.steps) == 1


def test_from_with_platform_flag(tmp_path: Path) -> None:
    assert (
        plan(tmp_path, "FROM --platform=linux/amd64 python:3.12-slim\n").base_image
        == "python:3.12-slim"
    )


# --- refusals ---------------------------------------------------------------------------------

REFUSALS = {
    "source-outside-by-dotdot": (
        "FROM x\nCOPY ../secret /s",
        "line 2",
        "'../secret' is outside the build context",
    ),
    "source-outside-by-symlink": (
        "FROM x\nCOPY link /s",
        "line 2",
        "'link' is outside the build context",
    ),
    "missing-source": (
        "FROM x\nCOPY nope.txt /s",
        "line 2",
        "'nope.txt' is not in the build context",
    ),
    "glob-matches-nothing": ("FROM x\n\nCOPY *.py /s/", "line 3", "'*.py' matches nothing"),
    "several-sources-need-a-slash": (
        "FROM x\nCOPY a.txt b.txt /s",
        "line 2",
        "needs a destination ending in '/'",
    ),
    "glob-several-need-a-slash": (
        "FROM x\nCOPY *.txt /s",
        "line 2",
        "needs a destination ending in '/'",
    ),
    "copy-one-word": ("FROM x\nCOPY a.txt", "line 2", "COPY needs a source and a destination"),
    "unknown-instruction": ("FROM x\nFROBNICATE y", "line 2", "unknown instruction FROBNICATE"),
    "instruction-before-from": (
        "RUN a\nFROM x",
        "line 1",
        "only ARG may come before the first FROM",
    ),
    "no-from": ("ARG a=1", None, "no FROM instruction"),
    "from-without-image": ("FROM", "line 1", "FROM takes an image"),
    "from-bad-as": ("FROM a b c", "line 1", "FROM takes an image"),
    "unclosed-quote": ('FROM x\nENV a="b', "line 2", "ENV: a double quote is not closed"),
    "unclosed-brace": ("FROM x\nWORKDIR ${a", "line 2", "WORKDIR: a '${' is not closed"),
    "bad-modifier": ("FROM x\nENV a=${b?x}", "line 2", "is not ${VAR}"),
    "env-without-value": ("FROM x\nENV lonely", "line 2", "ENV lonely has no value"),
    "env-pair-without-name": ("FROM x\nENV =v", "line 2", "is not name=value"),
    "arg-without-name": ("FROM x\nARG", "line 2", "ARG needs a name"),
    "run-empty": ("FROM x\nRUN   ", "line 2", "RUN needs a command"),
    "workdir-empty": ('FROM x\nWORKDIR ""', "line 2", "WORKDIR needs a path"),
}


@pytest.mark.parametrize(("text", "field", "message"), REFUSALS.values(), ids=REFUSALS.keys())
def test_refusals_name_the_dockerfile_and_line(
    tmp_path: Path, text: str, field: str | None, message: str
) -> None:
    (tmp_path / "secret").write_text("s")
    context = tmp_path / "environment"
    context.mkdir()
    (context / "link").symlink_to(tmp_path / "secret")
    for name in ("a.txt", "b.txt"):
        (context / name).write_text(name)
    (context / "Dockerfile").write_text(text)
    with pytest.raises(SpecError) as raised:
        plan_build(context / "Dockerfile", context)
    assert (raised.value.file, raised.value.field) == (shown(context / "Dockerfile"), field)
    assert message in raised.value.message


def test_a_symlink_that_stays_inside_the_context_is_fine(tmp_path: Path) -> None:
    context = tmp_path / "environment"
    (context / "real").mkdir(parents=True)
    (context / "real" / "f").write_text("x")
    (context / "alias").symlink_to(context / "real")
    (context / "Dockerfile").write_text("FROM x\nCOPY alias/f /f\n")
    step = plan_build(context / "Dockerfile", context).steps[0]
    assert isinstance(step, CopyStep)
    assert step.items == [((context / "real" / "f").resolve(), "/f")]


def test_a_missing_dockerfile_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="file not found"):
        plan_build(tmp_path / "Dockerfile", tmp_path)


# --- the cache key ----------------------------------------------------------------------------


def make_context(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "Dockerfile").write_text("FROM x\nCOPY . /app\n")
    (root / "a.txt").write_text("a")
    (root / "sub" / "b.txt").write_text("b")
    return root


def test_build_key_is_the_same_for_the_same_content_anywhere(tmp_path: Path) -> None:
    one, two = make_context(tmp_path / "one"), make_context(tmp_path / "two")
    assert build_key(one / "Dockerfile", one) == build_key(two / "Dockerfile", two)
    assert len(build_key(one / "Dockerfile", one)) == 64


CHANGES = {
    "file-content": lambda root: (root / "a.txt").write_text("A"),
    "file-mode": lambda root: os.chmod(root / "a.txt", 0o755),
    "new-file": lambda root: (root / "c.txt").write_text(""),
    "new-empty-dir": lambda root: (root / "empty").mkdir(),
    "renamed-file": lambda root: (root / "sub" / "b.txt").rename(root / "sub" / "c.txt"),
    "moved-between-dirs": lambda root: (root / "sub" / "b.txt").rename(root / "b.txt"),
    "symlink-target": lambda root: (root / "l").symlink_to("a.txt"),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_build_key_changes_with_the_context(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    root = make_context(tmp_path / "ctx")
    before = build_key(root / "Dockerfile", root)
    change(root)
    assert build_key(root / "Dockerfile", root) != before


def test_build_key_changes_with_the_dockerfile_outside_the_context(tmp_path: Path) -> None:
    root = make_context(tmp_path / "ctx")
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text("FROM x\n")
    before = build_key(dockerfile, root)
    dockerfile.write_text("FROM y\n")
    assert build_key(dockerfile, root) != before


@settings(
    max_examples=300,
    deadline=None,  # a plan takes a millisecond, but a loaded machine can stall one for more
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.text(alphabet=st.sampled_from(list("ACDENOPRUVWY $={}:-+\"'\\\n#<[]/.*?`a1")), max_size=80)
)
def test_any_dockerfile_is_a_plan_or_a_spec_error(tmp_path: Path, body: str) -> None:
    context = tmp_path / "fuzz"
    context.mkdir(exist_ok=True)
    (context / "Dockerfile").write_text(f"FROM x\n{body}")
    try:
        result = plan_build(context / "Dockerfile", context)
    except SpecError as error:
        assert "\n" not in str(error)
    else:
        assert result.base_image == "x"
