"""The Dockerfile features published tasks use, as planned: the base's environment, SHELL,
ENTRYPOINT, stages copied from, images assay stands in for, heredocs, ADD, .dockerignore."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from assay.errors import SpecError
from assay.world.container.buildsteps import run_command
from assay.world.container.dockerfile import (
    BuildPlan,
    CopyStep,
    FetchStep,
    RunStep,
    StageCopyStep,
    UnpackStep,
    WriteStep,
    build_key,
    plan_build,
)
from assay.world.container.dockersteps import DOCKER_DEFAULT_PATH
from assay.world.container.host import tool_dir


def plan(
    tmp_path: Path, dockerfile: str, files: dict[str, str | bytes] | None = None, **more
) -> BuildPlan:  # type: ignore[no-untyped-def]
    context = tmp_path / "environment"
    context.mkdir(exist_ok=True)
    for relative, content in (files or {}).items():
        (context / relative).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (context / relative).write_bytes(content)
        else:
            (context / relative).write_text(content)
    (context / "Dockerfile").write_text(dockerfile)
    return plan_build(context / "Dockerfile", context, **more)


def runs(result: BuildPlan) -> list[RunStep]:
    return [step for step in result.steps if isinstance(step, RunStep)]


# --- the base image's environment -------------------------------------------------------------


def test_the_default_path_is_seeded_so_a_path_prefix_keeps_it(tmp_path: Path) -> None:
    result = plan(tmp_path, 'FROM debian\nENV PATH="/opt/x/bin:${PATH}"\nRUN tool\n')
    assert result.env == {"PATH": f"/opt/x/bin:{DOCKER_DEFAULT_PATH}"}
    assert runs(result)[0].env == {"PATH": f"/opt/x/bin:{DOCKER_DEFAULT_PATH}"}


def test_a_dockerfile_without_env_still_gives_the_image_a_path(tmp_path: Path) -> None:
    assert plan(tmp_path, "FROM debian\n").env == {"PATH": DOCKER_DEFAULT_PATH}


def test_the_base_environment_is_asked_of_each_stages_image(tmp_path: Path) -> None:
    asked: list[str] = []

    def base_env(image: str) -> dict[str, str]:
        asked.append(image)
        return {"PATH": f"/{image}/bin", "LANG": "C.UTF-8"}

    result = plan(
        tmp_path,
        "FROM golang AS build\nRUN go build\nFROM python\nENV PATH=$PATH:/extra\n"
        "COPY --from=build /out /out\n",
        base_env=base_env,
    )
    assert asked == ["python", "golang"]
    assert result.env == {"PATH": "/python/bin:/extra", "LANG": "C.UTF-8"}
    assert result.stages["0"].env == {"PATH": "/golang/bin", "LANG": "C.UTF-8"}


def test_a_stage_from_a_stage_inherits_its_state(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        'FROM debian AS base\nENV A=1\nWORKDIR /w\nUSER bob\nSHELL ["/bin/bash", "-c"]\n'
        'ENTRYPOINT ["/e"]\nARG GONE=1\nRUN one\nFROM base\nRUN two\n',
    )
    assert [(r.command, r.workdir, r.user, r.shell) for r in runs(result)] == [
        ("one", "/w", "bob", ("/bin/bash", "-c")),
        ("two", "/w", "bob", ("/bin/bash", "-c")),
    ]
    assert "GONE" not in runs(result)[1].env  # an ARG belongs to its own stage
    assert (result.env["A"], result.workdir, result.user, result.entrypoint) == (
        "1",
        "/w",
        "bob",
        ("/e",),
    )


# --- SHELL, RUN and ENTRYPOINT ----------------------------------------------------------------


def test_shell_form_runs_with_sh_until_shell_says_otherwise(tmp_path: Path) -> None:
    result = plan(
        tmp_path, 'FROM x\nRUN a\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nRUN b | c\n'
    )
    first, second = runs(result)
    assert first.shell == ("/bin/sh", "-c")
    assert run_command(first) == "exec /bin/sh -c a"
    assert run_command(second) == "exec /bin/bash -o pipefail -c 'b | c'"


def test_exec_form_and_a_script_heredoc_run_without_a_shell(tmp_path: Path) -> None:
    result = plan(tmp_path, 'FROM x\nRUN ["echo", "a b"]\nRUN <<EOF\n#!/bin/sh\necho\nEOF\n')
    assert [(r.command[:9], r.shell) for r in runs(result)] == [
        ("echo 'a b", None),
        ("script=$(", None),
    ]


@pytest.mark.parametrize("line", ["SHELL /bin/bash -c", 'SHELL ["bash", 1]', "SHELL []"])
def test_shell_must_be_a_json_array(tmp_path: Path, line: str) -> None:
    with pytest.raises(SpecError, match="SHELL takes a JSON array of strings"):
        plan(tmp_path, f"FROM x\n{line}\n")


ENTRYPOINTS = {
    "exec-form": ('ENTRYPOINT ["/entrypoint.sh", "--flag"]', ("/entrypoint.sh", "--flag")),
    "shell-form": ("ENTRYPOINT /run.sh start", ("/bin/sh", "-c", "/run.sh start")),
    "shell-form-with-shell": (
        'SHELL ["/bin/bash", "-c"]\nENTRYPOINT exec serve',
        ("/bin/bash", "-c", "exec serve"),
    ),
    "cleared": ('ENTRYPOINT ["/e"]\nENTRYPOINT []', None),
    "last-wins": ('ENTRYPOINT ["/a"]\nENTRYPOINT ["/b"]', ("/b",)),
}


@pytest.mark.parametrize(("lines", "argv"), ENTRYPOINTS.values(), ids=ENTRYPOINTS.keys())
def test_entrypoint_forms(tmp_path: Path, lines: str, argv: tuple[str, ...] | None) -> None:
    result = plan(tmp_path, f'FROM x\n{lines}\nCMD ["ignored"]\n')
    assert result.entrypoint == argv
    assert result.notes == []  # CMD is replaced: nothing to note


# --- stages copied from -----------------------------------------------------------------------


def test_a_stage_copied_from_is_planned_and_listed_before_its_users(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        "FROM golang AS tools\nRUN make-tools\n"
        "FROM debian AS build\nCOPY --from=tools /bin/t /bin/t\nRUN build\n"
        "FROM alpine AS unused\nRUN never\n"
        "FROM debian\nCOPY --from=build /out/ /app/\nCOPY --from=0 bin/t /usr/bin/\n",
    )
    assert list(result.stages) == ["0", "1"]
    assert [step.command for step in runs(result.stages["1"])] == ["build"]
    assert result.stages["1"].steps[0] == StageCopyStep("0", ["/bin/t"], "/bin/t", False)
    assert result.steps == [
        StageCopyStep("1", ["/out"], "/app", True),
        StageCopyStep("0", ["/bin/t"], "/usr/bin", True),
    ]
    assert result.notes == ["multi_stage_ignored:unused"]


def test_copy_from_keeps_chown_and_chmod_and_stage_names_ignore_case(tmp_path: Path) -> None:
    result = plan(
        tmp_path, "FROM x AS Build\nFROM y\nCOPY --from=build --chown=1:2 --chmod=750 /a /b/\n"
    )
    assert result.steps == [StageCopyStep("0", ["/a"], "/b", True, "1:2", "750")]


def test_a_later_stage_is_not_a_stage_to_copy_from(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nCOPY --from=later /a /a\nFROM y AS later\n")
    assert result.steps == [] and result.stages == {}
    assert result.notes[-1] == "multi_stage_ignored:0"


def test_an_image_assay_cannot_stand_in_for_makes_the_plan_incomplete(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nCOPY --from=nginx:latest /etc/nginx /etc/nginx\nRUN a\n")
    assert result.incomplete == ["unsupported_instruction:COPY --from=nginx:latest"]
    assert [type(step) for step in result.steps] == [RunStep]


def test_the_uv_image_is_the_tool_layers_uv(tmp_path: Path) -> None:
    """The uv and uvx of the tool layer, which run the real uv with the sandbox's Pythons."""
    pytest.importorskip("uv", reason="uv comes with assay's sandbox extra")
    tools = tool_dir()
    for image in ("ghcr.io/astral-sh/uv:latest", "ghcr.io/astral-sh/uv:0.5.1@sha256:ab"):
        result = plan(tmp_path, f"FROM x\nCOPY --from={image} /uv /uvx /bin/\n")
        assert result.steps == [
            CopyStep([(tools / "uv", "/bin/uv"), (tools / "uvx", "/bin/uvx")], None, "/")
        ]
        assert result.incomplete == [] and len(result.inputs) == 2
    other = plan(tmp_path, "FROM x\nCOPY --from=ghcr.io/astral-sh/uv /etc/passwd /p\n")
    assert other.incomplete == ["unsupported_instruction:COPY --from=ghcr.io/astral-sh/uv"]


# --- heredocs and ADD -------------------------------------------------------------------------


def test_copy_heredocs_become_files(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        "FROM x\nARG NAME=world\nCOPY <<EOF /etc/greeting\nhello $NAME\n\\$NAME stays\nEOF\n"
        'COPY --chmod=755 <<-"A" <<B /opt/\n\techo $NAME\n\tA\n${NAME}\nB\nRUN next\n',
    )
    assert result.steps[:3] == [
        WriteStep("/etc/greeting", "hello world\n$NAME stays\n"),
        WriteStep("/opt/A", "echo $NAME\n", None, "755"),
        WriteStep("/opt/B", "world\n", None, "755"),
    ]
    assert isinstance(result.steps[3], RunStep)


def tar_bytes(compression: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=f"w:{compression}") as archive:
        data = b"inside"
        member = tarfile.TarInfo("sub/f.txt")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


def test_add_unpacks_archives_by_content_and_copies_the_rest(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "a.tar.gz": tar_bytes("gz"),
        "plain.bin": tar_bytes(""),  # a tar whatever its name
        "empty.tar.gz": "",  # not an archive whatever its name
    }
    result = plan(tmp_path, "FROM x\nADD a.tar.gz plain.bin empty.tar.gz /opt/\n", files)
    context = (tmp_path / "environment").resolve()
    assert result.steps == [
        UnpackStep(context / "a.tar.gz", "/opt"),
        UnpackStep(context / "plain.bin", "/opt"),
        CopyStep([(context / "empty.tar.gz", "/opt/empty.tar.gz")], None, "/"),
    ]


ADDS = {
    "into-a-directory": (
        "ADD https://example.com/dl/tool.tgz /opt/",
        FetchStep("https://example.com/dl/tool.tgz", "/opt/tool.tgz"),
    ),
    "to-a-path": (
        "ADD --chown=1 --chmod=755 https://example.com/x /usr/bin/x",
        FetchStep("https://example.com/x", "/usr/bin/x", "1", "755"),
    ),
    "with-a-checksum": (
        f"ADD --checksum=sha256:{'a' * 64} https://example.com/x /x",
        FetchStep("https://example.com/x", "/x", checksum=f"sha256:{'a' * 64}"),
    ),
}


@pytest.mark.parametrize(("line", "step"), ADDS.values(), ids=ADDS.keys())
def test_add_of_a_url_is_a_download(tmp_path: Path, line: str, step: FetchStep) -> None:
    assert plan(tmp_path, f"FROM x\n{line}\n").steps == [step]


def test_add_of_a_git_repository_makes_the_plan_incomplete(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nADD https://github.com/a/b.git#v1 /src\n")
    assert (result.steps, result.incomplete) == (
        [],
        ["unsupported_instruction:ADD https://github.com/a/b.git#v1"],
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("ADD https://example.com/ /opt/", "the URL names no file"),
        ("ADD --checksum=md5:00 https://example.com/x /x", "is not sha256:"),
    ],
)
def test_add_refusals(tmp_path: Path, line: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        plan(tmp_path, f"FROM x\n{line}\n")


# --- .dockerignore ----------------------------------------------------------------------------

IGNORED = {
    ".dockerignore": "secret.txt\nlogs\n!logs/keep.log\n",
    "secret.txt": "s",
    "a.txt": "a",
    "logs/x.log": "x",
    "logs/keep.log": "k",
}


def test_dockerignore_leaves_entries_out_of_a_directory_copy(tmp_path: Path) -> None:
    result = plan(tmp_path, "FROM x\nCOPY . /app\n", IGNORED)
    context = (tmp_path / "environment").resolve()
    (step,) = result.steps
    assert isinstance(step, CopyStep)
    assert step.skip == {context / "secret.txt", context / "logs" / "x.log"}


def test_dockerignore_hides_a_named_source_and_glob_matches(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"'secret\.txt' is left out of the build context"):
        plan(tmp_path, "FROM x\nCOPY secret.txt /s\n", IGNORED)
    result = plan(tmp_path, "FROM x\nCOPY *.txt /t/\n", IGNORED)
    context = (tmp_path / "environment").resolve()
    assert result.steps == [CopyStep([(context / "a.txt", "/t/a.txt")], None, "/")]


def test_the_cache_key_ignores_what_dockerignore_leaves_out(tmp_path: Path) -> None:
    plan(tmp_path, "FROM x\nCOPY . /app\n", IGNORED)
    context = tmp_path / "environment"
    before = build_key(context / "Dockerfile", context)
    (context / "secret.txt").write_text("changed")
    (context / "logs" / "new.log").write_text("new")
    assert build_key(context / "Dockerfile", context) == before
    (context / "logs" / "keep.log").write_text("changed")
    assert build_key(context / "Dockerfile", context) != before


@pytest.mark.parametrize(
    "line",
    ["COPY <<A <<B /etc/one\na\nA\nb\nB", "COPY --from=build /a /b /c", "COPY a.txt <<A /x\na\nA"],
)
def test_several_sources_of_any_kind_need_a_directory(tmp_path: Path, line: str) -> None:
    with pytest.raises(SpecError, match="of several sources needs a destination ending in '/'"):
        plan(tmp_path, f"FROM x AS build\nFROM y\n{line}\n", {"a.txt": "a"})
