"""Container-format task directories and task.toml: defaults, legacy keys, refusals, unsupported
features, phase networks and `${VAR}` templates."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.errors import SpecError
from assay.formats.container_task import (
    ContainerTask,
    TaskConfig,
    is_task_dir,
    read_sandbox_task,
    read_task_config,
    resolve_templates,
    task_dirs,
)
from assay.formats.files import shown

TEST_SH = "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n"


def write_task(
    root: Path,
    toml: str = "",
    *,
    instruction: str | None = "Write hello to /app/hello.txt.",
    test_sh: str | None = TEST_SH,
    files: dict[str, str] | None = None,
) -> Path:
    """A task directory with task.toml, instruction.md, tests/test.sh and any other files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "task.toml").write_text(toml)
    if instruction is not None:
        (root / "instruction.md").write_text(instruction)
    if test_sh is not None:
        (root / "tests").mkdir(exist_ok=True)
        (root / "tests" / "test.sh").write_text(test_sh)
    for relative, content in (files or {}).items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(content)
    return root


def config_of(tmp_path: Path, toml: str) -> TaskConfig:
    (tmp_path / "task.toml").write_text(toml)
    return read_task_config(tmp_path / "task.toml")


# --- defaults and what each key becomes -------------------------------------------------------


def test_an_empty_task_toml_has_the_formats_defaults(tmp_path: Path) -> None:
    config = config_of(tmp_path, "")
    assert config.schema_version == "1.3"
    assert (config.source, config.task, config.metadata, config.artifacts) == (None, None, {}, [])
    assert (config.agent.timeout_sec, config.agent.user, config.agent.network_mode) == (
        None,
        None,
        None,
    )
    verifier = config.verifier
    assert (verifier.timeout_sec, verifier.env, verifier.user) == (600.0, {}, None)
    assert (verifier.environment_mode, verifier.environment, verifier.collect) == (None, None, [])
    environment = config.environment
    assert (environment.build_timeout_sec, environment.os, environment.network_mode) == (
        600.0,
        "linux",
        "public",
    )
    assert (environment.cpus, environment.memory_mb, environment.storage_mb) == (None, None, None)
    assert (environment.workdir, environment.docker_image, environment.healthcheck) == (None,) * 3
    assert (environment.env, environment.mcp_servers, config.solution.env) == ({}, [], {})
    assert config.verifier_mode() == "shared"
    assert config.unsupported() == []


def test_a_full_task_toml_is_read_field_by_field(tmp_path: Path) -> None:
    config = config_of(
        tmp_path,
        """
version = "1.0"
source = "examples"
artifacts = ["/tmp/out.txt", {source = "/app/logs", destination = "logs", exclude = ["*.tmp"]}]
unknown_top_level = 1

[task]
name = "org/hello"
description = "Say hello"
authors = [{name = "Ann", email = "ann@example.com"}]
keywords = ["demo"]

[metadata]
difficulty = "easy"
pass_threshold = 0.5
split = "dev"

[agent]
timeout_sec = 120
user = "agent"

[verifier]
timeout_sec = 30.5
env = {JUDGE = "${KEY}"}
user = 0

[[verifier.collect]]
command = "cp /app/x /logs/artifacts/"

[environment]
workdir = "/custom-workdir"
cpus = 2
memory = "2G"
storage = "512M"
docker_image = "ubuntu:24.04"
OS = "ignored, keys are case-sensitive"
env = {A = "1"}
healthcheck = {command = "test -f /ready", retries = 5}
future_key = true

[solution]
env = {ORACLE = "yes"}
""",
    )
    assert config.schema_version == "1.0"
    assert [(a.source, a.destination, a.exclude) for a in config.artifacts] == [
        ("/tmp/out.txt", None, []),
        ("/app/logs", "logs", ["*.tmp"]),
    ]
    assert config.task is not None and config.task.authors[0].email == "ann@example.com"
    assert (config.agent.timeout_sec, config.agent.user) == (120.0, "agent")
    assert (config.verifier.timeout_sec, config.verifier.user) == (30.5, 0)
    assert config.verifier.env == {"JUDGE": "${KEY}"}
    hook = config.verifier.collect[0]
    assert (hook.service, hook.timeout_sec, hook.user) == ("main", 60.0, None)
    environment = config.environment
    assert (environment.memory_mb, environment.storage_mb, environment.cpus) == (2048, 512, 2)
    assert environment.healthcheck is not None
    assert (environment.healthcheck.retries, environment.healthcheck.interval_sec) == (5, 5.0)
    assert (config.solution.env, config.pass_threshold(), config.split()) == (
        {"ORACLE": "yes"},
        0.5,
        "dev",
    )


@pytest.mark.parametrize(
    ("toml", "field", "expected"),
    [
        pytest.param('version = "1.0"', "schema_version", "1.0", id="version-alias"),
        pytest.param("version = 1.0", "schema_version", "1.0", id="version-as-a-number"),
        pytest.param(
            'schema_version = "1.2"\nversion = "1.0"',
            "schema_version",
            "1.2",
            id="schema-version-wins",
        ),
        pytest.param('[environment]\nmemory = "2G"', "memory_mb", 2048, id="memory-gigabytes"),
        pytest.param('[environment]\nmemory = "512M"', "memory_mb", 512, id="memory-megabytes"),
        pytest.param('[environment]\nmemory = "1024K"', "memory_mb", 1, id="memory-kilobytes"),
        pytest.param('[environment]\nmemory = "1.5g"', "memory_mb", 1536, id="memory-lower-case"),
        pytest.param('[environment]\nstorage = "10G"', "storage_mb", 10240, id="storage-gigabytes"),
        pytest.param("[environment]\nmemory_mb = 4096", "memory_mb", 4096, id="memory-mb"),
        pytest.param('[environment]\nos = "Linux"', "os", "linux", id="os-case-insensitive"),
        pytest.param('[environment]\nos = "WINDOWS"', "os", "windows", id="os-windows-upper"),
        pytest.param(
            "[environment]\nallow_internet = false",
            "network_mode",
            "no-network",
            id="legacy-no-internet",
        ),
        pytest.param(
            "[environment]\nallow_internet = true", "network_mode", "public", id="legacy-internet"
        ),
        pytest.param(
            '[environment]\nallow_internet = false\nnetwork_mode = "public"',
            "network_mode",
            "public",
            id="network-mode-beats-legacy",
        ),
        pytest.param(
            '[environment]\nallowed_hosts = ["pypi.org"]',
            "network_mode",
            "allowlist",
            id="hosts-imply-allowlist",
        ),
    ],
)
def test_environment_and_version_keys(
    tmp_path: Path, toml: str, field: str, expected: object
) -> None:
    config = config_of(tmp_path, toml)
    owner = config if field == "schema_version" else config.environment
    assert getattr(owner, field) == expected


# --- refusals: one line naming the file and the field -----------------------------------------

REFUSALS = {
    "toml-syntax": ("[task\nname = 1", None, "not valid TOML"),
    "wrong-type-timeout": (
        '[verifier]\ntimeout_sec = "soon"',
        "verifier.timeout_sec",
        "valid number",
    ),
    "wrong-type-env-value": ("[verifier.env]\nKEY = 1", "verifier.env.KEY", "valid string"),
    "wrong-type-artifacts": ("artifacts = 3", "artifacts", "valid list"),
    "wrong-type-user": ("[agent]\nuser = [1]", "agent.user", "a user name or a numeric user id"),
    "bool-user": ("[verifier]\nuser = true", "verifier.user", "a user name"),
    "wrong-type-hook-user": (
        '[[verifier.collect]]\ncommand = "x"\nuser = 1.5',
        "verifier.collect[0].user",
        "a user name",
    ),
    "negative-timeout": ("[agent]\ntimeout_sec = -1", "agent.timeout_sec", "greater than 0"),
    "unknown-network-mode": (
        '[environment]\nnetwork_mode = "lan"',
        "environment.network_mode",
        "'no-network'",
    ),
    "unknown-os": ('[environment]\nos = "macos"', "environment.os", "'linux'"),
    "bad-memory-size": (
        '[environment]\nmemory = "2 gigs"',
        "environment.memory",
        "'2 gigs' is not a size",
    ),
    "relative-workdir": ('[environment]\nworkdir = "app"', "environment.workdir", "absolute path"),
    "shared-with-environment": (
        '[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 1',
        "verifier.environment_mode",
        "drop [verifier.environment]",
    ),
    "unknown-verifier-mode": (
        '[verifier]\nenvironment_mode = "both"',
        "verifier.environment_mode",
        "'shared'",
    ),
    "collect-without-command": (
        "[[verifier.collect]]\nservice = 'main'",
        "verifier.collect[0].command",
        "required",
    ),
    "artifact-source-parent": (
        'artifacts = ["/app/../etc/passwd"]',
        "artifacts[0].source",
        "must not contain '..'",
    ),
    "artifact-table-source-parent": (
        'artifacts = ["/ok", {source = "../x"}]',
        "artifacts[1].source",
        "must not contain '..'",
    ),
    "artifact-empty-source": ('artifacts = [""]', "artifacts[0].source", "at least 1 character"),
    "artifact-without-source": (
        'artifacts = [{destination = "x"}]',
        "artifacts[0].source",
        "required",
    ),
    "artifact-absolute-destination": (
        'artifacts = ["/a", {source = "/b", destination = "/etc/b"}]',
        "artifacts[1].destination",
        "must be relative",
    ),
    "artifact-destination-parent": (
        'artifacts = [{source = "/b", destination = "x/../../b"}]',
        "artifacts[0].destination",
        "must not contain '..'",
    ),
    "artifact-destination-manifest": (
        'artifacts = [{source = "/b", destination = "./manifest.json"}]',
        "artifacts[0].destination",
        "manifest.json",
    ),
    "task-table-without-name": ('[task]\ndescription = "x"', "task.name", "required"),
    "task-name-empty": ('[task]\nname = ""', "task.name", "at least 1 character"),
    "healthcheck-without-command": (
        "[environment.healthcheck]\nretries = 1",
        "environment.healthcheck.command",
        "required",
    ),
}


@pytest.mark.parametrize(("toml", "field", "message"), REFUSALS.values(), ids=REFUSALS.keys())
def test_a_wrong_task_toml_is_refused(
    tmp_path: Path, toml: str, field: str | None, message: str
) -> None:
    (tmp_path / "task.toml").write_text(toml)
    with pytest.raises(SpecError) as raised:
        read_task_config(tmp_path / "task.toml")
    error = raised.value
    assert error.file == shown(tmp_path / "task.toml")
    assert error.field == field
    assert message in error.message
    assert "\n" not in str(error)


def test_a_task_toml_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "task.toml").write_bytes(b'version = "\xff"')
    with pytest.raises(SpecError, match="not UTF-8"):
        read_task_config(tmp_path / "task.toml")


# --- unsupported features load, and say why they cannot run -----------------------------------

UNSUPPORTED = {
    "gpus": ("[environment]\ngpus = 1", ["unsupported_environment:gpus"]),
    "tpu": ('[environment]\ntpu = "v5e"', ["unsupported_environment:tpu"]),
    "windows": ('[environment]\nos = "Windows"', ["unsupported_environment:windows"]),
    "mcp-servers": (
        '[[environment.mcp_servers]]\nname = "s"\nurl = "http://x"',
        ["unsupported_environment:mcp_servers"],
    ),
    "steps-run": ('[[steps]]\nname = "one"', []),
    "a-steps-separate-verifier-gpus": (
        '[[steps]]\nname = "one"\n[steps.verifier.environment]\ngpus = 1',
        ["unsupported_environment:gpus"],
    ),
    "collect-service": (
        '[[verifier.collect]]\ncommand = "true"\nservice = "db"',
        ["collect_service:db"],
    ),
    "artifact-service": (
        'artifacts = [{source = "/x", service = "web"}]',
        ["artifact_service:web"],
    ),
    "separate-verifier-gpus": (
        "[verifier.environment]\ngpus = 2",
        ["unsupported_environment:gpus"],
    ),
    "several-at-once-each-once": (
        '[environment]\ngpus = 1\nos = "windows"\n[verifier.environment]\ngpus = 1',
        ["unsupported_environment:gpus", "unsupported_environment:windows"],
    ),
    "zero-gpus-is-fine": ("[environment]\ngpus = 0", []),
    "empty-mcp-list-is-fine": ("[environment]\nmcp_servers = []", []),
    "main-services-are-fine": (
        '[[verifier.collect]]\ncommand = "true"\nservice = "main"\n'
        '[[artifacts]]\nsource = "/x"\nservice = "main"',
        [],
    ),
}


@pytest.mark.parametrize(("toml", "reasons"), UNSUPPORTED.values(), ids=UNSUPPORTED.keys())
def test_unsupported_features_load_and_are_listed(
    tmp_path: Path, toml: str, reasons: list[str]
) -> None:
    assert config_of(tmp_path, toml).unsupported() == reasons


def test_a_compose_file_is_listed_by_the_task(tmp_path: Path) -> None:
    root = write_task(
        tmp_path / "composed", files={"environment/docker-compose.yml": "services: {}"}
    )
    task = read_sandbox_task(root)
    assert task.config.unsupported() == []
    assert task.unsupported() == [
        "unsupported_environment:compose(services none (only `main` alone runs without a"
        " container engine))"
    ]


@pytest.mark.parametrize("os_name", ["windows"])
def test_a_windows_task_loads_without_test_sh(tmp_path: Path, os_name: str) -> None:
    root = write_task(tmp_path / "win", f'[environment]\nos = "{os_name}"', test_sh=None)
    (root / "tests").mkdir()
    (root / "tests" / "test.bat").write_text("echo 1")
    task = read_sandbox_task(root)
    assert task.test_script == root / "tests" / "test.bat"
    assert task.unsupported() == ["unsupported_environment:windows"]


def test_a_multi_step_task_loads_without_top_level_test_or_instruction(tmp_path: Path) -> None:
    root = write_task(
        tmp_path / "steps",
        '[[steps]]\nname = "a"\n[[steps]]\nname = "b"',
        instruction=None,
        test_sh=None,
        files={
            "steps/a/instruction.md": "Make a.",
            "steps/a/tests/test.sh": TEST_SH,
            "steps/a/workdir/setup.sh": "true",
            "steps/b/instruction.md": "Make b.",
            "steps/b/tests/test.sh": TEST_SH,
            "steps/b/solution/solve.sh": "true",
        },
    )
    task = read_sandbox_task(root)
    assert (task.instruction, task.test_script, task.unsupported()) == ("", None, [])
    first, second = task.steps
    assert (first.name, first.instruction, second.instruction) == ("a", "Make a.", "Make b.")
    assert first.tests_dirs == (root / "steps" / "a" / "tests",)
    assert first.workdir == root / "steps" / "a" / "workdir" and second.workdir is None
    assert (first.solution_dir, second.solution_dir) == (None, root / "steps" / "b" / "solution")


def test_a_step_without_its_own_test_uses_the_tasks(tmp_path: Path) -> None:
    root = write_task(
        tmp_path / "shared", '[[steps]]\nname = "a"', files={"steps/a/instruction.md": "Go."}
    )
    (step,) = read_sandbox_task(root).steps
    assert step.test_script == root / "tests" / "test.sh"
    assert step.tests_dirs == (root / "tests",)


@pytest.mark.parametrize(
    ("toml", "files", "message"),
    [
        (
            '[[steps]]\nname = "a"',
            {},
            r"steps/a/instruction\.md: file not found: step 'a' needs one",
        ),
        (
            '[[steps]]\nname = "a"',
            {"steps/a/instruction.md": "Go."},
            r"steps/a/tests/test\.sh: file not found: step 'a' needs it or tests/test\.sh",
        ),
        ('[[steps]]\nname = "a"\n[[steps]]\nname = "a"', {}, r"steps: .*step 'a' is named twice"),
        ('[[steps]]\nname = "../up"', {}, r"steps\[0\]\.name: .*its folder under steps/"),
        ('[[steps]]\nname = "a"\nmin_reward = "high"', {}, r"steps\[0\]\.min_reward"),
        ('multi_step_reward_strategy = "best"', {}, r"multi_step_reward_strategy"),
    ],
    ids=["no-instruction", "no-test", "named-twice", "bad-name", "bad-min-reward", "bad-strategy"],
)
def test_a_bad_step_is_refused_naming_the_file_and_field(
    tmp_path: Path, toml: str, files: dict[str, str], message: str
) -> None:
    root = write_task(tmp_path / "bad", toml, instruction=None, test_sh=None, files=files)
    with pytest.raises(SpecError, match=message):
        read_sandbox_task(root)


# --- verifier mode, networks, metadata ---------------------------------------------------------

MODES = {
    "default-shared": ("", "shared"),
    "environment-implies-separate": ("[verifier.environment]\ncpus = 1", "separate"),
    "explicit-separate": ('[verifier]\nenvironment_mode = "separate"', "separate"),
    "explicit-separate-with-environment": (
        '[verifier]\nenvironment_mode = "separate"\n[verifier.environment]\ncpus = 1',
        "separate",
    ),
    "explicit-shared": ('[verifier]\nenvironment_mode = "shared"', "shared"),
}


@pytest.mark.parametrize(("toml", "mode"), MODES.values(), ids=MODES.keys())
def test_verifier_mode(tmp_path: Path, toml: str, mode: str) -> None:
    assert config_of(tmp_path, toml).verifier_mode() == mode


def test_separate_mode_without_its_own_environment_reuses_the_agents(tmp_path: Path) -> None:
    config = config_of(
        tmp_path, '[verifier]\nenvironment_mode = "separate"\n[environment]\ncpus = 3'
    )
    assert config.verifier_environment() == config.environment
    separate = config_of(tmp_path, "[environment]\ncpus = 3\n[verifier.environment]\ncpus = 1")
    assert separate.verifier_environment().cpus == 1


NETWORKS = {
    "defaults": ("", ("public", "public", "public")),
    "environment-baseline": (
        '[environment]\nnetwork_mode = "no-network"',
        ("public", "no-network", "no-network"),
    ),
    "legacy-baseline": (
        "[environment]\nallow_internet = false",
        ("public", "no-network", "no-network"),
    ),
    "agent-override": (
        '[environment]\nnetwork_mode = "no-network"\n[agent]\nnetwork_mode = "public"',
        ("public", "public", "no-network"),
    ),
    "verifier-override": (
        '[verifier]\nnetwork_mode = "no-network"',
        ("public", "public", "no-network"),
    ),
    "agent-hosts-imply-allowlist": (
        '[agent]\nallowed_hosts = ["pypi.org"]',
        ("public", "allowlist", "public"),
    ),
    "separate-verifier-environment": (
        '[verifier.environment]\nnetwork_mode = "no-network"',
        ("public", "public", "no-network"),
    ),
    "verifier-override-beats-its-environment": (
        '[verifier]\nnetwork_mode = "allowlist"\n[verifier.environment]\nnetwork_mode = "no-network"',
        ("public", "public", "allowlist"),
    ),
}


@pytest.mark.parametrize(("toml", "expected"), NETWORKS.values(), ids=NETWORKS.keys())
def test_network_per_phase(tmp_path: Path, toml: str, expected: tuple[str, str, str]) -> None:
    config = config_of(tmp_path, toml)
    assert (
        config.network("build"),
        config.network("agent"),
        config.network("verifier"),
    ) == expected


@pytest.mark.parametrize(
    ("metadata", "threshold", "split"),
    [
        pytest.param("", 1.0, "train", id="absent"),
        pytest.param('pass_threshold = 0.8\nsplit = "holdout"', 0.8, "holdout", id="given"),
        pytest.param('pass_threshold = 0\nsplit = "train"', 0.0, "train", id="zero"),
        pytest.param("pass_threshold = 1", 1.0, "train", id="integer-one"),
        pytest.param("pass_threshold = 1.5", 1.0, "train", id="above-one"),
        pytest.param("pass_threshold = -0.1", 1.0, "train", id="negative"),
        pytest.param('pass_threshold = "0.5"', 1.0, "train", id="string"),
        pytest.param("pass_threshold = true", 1.0, "train", id="bool"),
        pytest.param('split = "test"', 1.0, "train", id="unknown-split"),
        pytest.param("split = 1", 1.0, "train", id="split-not-a-string"),
    ],
)
def test_metadata_threshold_and_split(
    tmp_path: Path, metadata: str, threshold: float, split: str
) -> None:
    config = config_of(tmp_path, f"[metadata]\n{metadata}")
    assert (config.pass_threshold(), config.split()) == (threshold, split)


# --- the task directory ------------------------------------------------------------------------


def test_a_task_directory_names_its_files(tmp_path: Path) -> None:
    root = write_task(
        tmp_path / "hello-world",
        '[task]\nname = "org/hello-world"',
        files={
            "solution/solve.sh": "echo hi > /app/hello.txt",
            "pre_artifacts.sh": "git diff > /logs/artifacts/model.patch",
            "environment/Dockerfile": "FROM ubuntu:24.04\n",
            "environment/docker-compose.yaml": "services: {}",
            "tests/Dockerfile": "FROM ubuntu:24.04\n",
        },
    )
    task = read_sandbox_task(root)
    assert (task.id, task.root, task.title) == ("hello-world", root, "org/hello-world")
    assert task.instruction == "Write hello to /app/hello.txt."
    assert task.solve_script == root / "solution" / "solve.sh"
    assert task.test_script == root / "tests" / "test.sh"
    assert task.pre_artifacts == root / "pre_artifacts.sh"
    assert task.dockerfile == root / "environment" / "Dockerfile"
    assert task.compose == root / "environment" / "docker-compose.yaml"
    assert task.tests_dockerfile == root / "tests" / "Dockerfile"
    assert (task.solution_dir, task.tests_dir, task.environment_dir) == (
        root / "solution",
        root / "tests",
        root / "environment",
    )


def test_a_minimal_task_directory_has_no_optional_files(tmp_path: Path) -> None:
    task = read_sandbox_task(write_task(tmp_path / "simple", 'version = "1.0"'))
    assert task.title == "simple"
    absent = (task.solve_script, task.pre_artifacts, task.dockerfile, task.compose)
    assert absent == (None, None, None, None)
    assert (task.tests_dockerfile, task.solution_dir, task.environment_dir) == (None, None, None)
    assert isinstance(task, ContainerTask)


TASK_REFUSALS = {
    "missing-instruction": ({"instruction": None}, "instruction.md", "file not found"),
    "missing-test-sh": ({"test_sh": None}, "tests/test.sh", "file not found"),
    "empty-test-sh": ({"test_sh": ""}, "tests/test.sh", "empty"),
    "blank-test-sh": ({"test_sh": "\n  \n"}, "tests/test.sh", "empty"),
    "bad-task-toml": ({"toml": "[agent]\ntimeout_sec = []"}, "task.toml", "valid number"),
}


@pytest.mark.parametrize(
    ("change", "file", "message"), TASK_REFUSALS.values(), ids=TASK_REFUSALS.keys()
)
def test_a_wrong_task_directory_is_refused(
    tmp_path: Path, change: dict[str, str | None], file: str, message: str
) -> None:
    root = write_task(tmp_path / "t", **change)  # type: ignore[arg-type]
    with pytest.raises(SpecError) as raised:
        read_sandbox_task(root)
    assert raised.value.file == shown(root / file)
    assert message in raised.value.message


def test_test_sh_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", test_sh=None)
    (root / "tests" / "test.sh").mkdir(parents=True)
    with pytest.raises(SpecError, match="is a directory"):
        read_sandbox_task(root)


@pytest.mark.parametrize("name", ["-dash", ".hidden", "has space", "ünïcode", "a$"])
def test_a_task_id_that_is_not_a_plain_name_is_refused(tmp_path: Path, name: str) -> None:
    root = write_task(tmp_path / name)
    with pytest.raises(SpecError) as raised:
        read_sandbox_task(root)
    assert raised.value.file == shown(root)
    assert repr(name) in raised.value.message


@pytest.mark.parametrize("name", ["a", "Hello_World-2", "v1.2", "0day"])
def test_a_plain_task_id_loads(tmp_path: Path, name: str) -> None:
    assert read_sandbox_task(write_task(tmp_path / name)).id == name


def test_a_directory_without_task_toml_is_not_a_task(tmp_path: Path) -> None:
    assert not is_task_dir(tmp_path)
    assert not is_task_dir(tmp_path / "missing")
    with pytest.raises(SpecError, match=r"no task\.toml"):
        read_sandbox_task(tmp_path)


def test_task_dirs_of_a_task_is_the_task(tmp_path: Path) -> None:
    root = write_task(tmp_path / "one")
    write_task(root / "nested")
    assert task_dirs(root) == [root]


def test_task_dirs_lists_task_directories_one_level_down_by_name(tmp_path: Path) -> None:
    for name in ("b-task", "a-task", "c-task"):
        write_task(tmp_path / name)
    (tmp_path / "not-a-task").mkdir()
    (tmp_path / "notes.txt").write_text("x")
    write_task(tmp_path / "not-a-task" / "too-deep")
    write_task(tmp_path / ".hidden")
    assert task_dirs(tmp_path) == [tmp_path / n for n in ("a-task", "b-task", "c-task")]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda p: p.mkdir(), "no task here", id="empty-directory"),
        pytest.param(lambda p: None, "not found", id="missing"),
        pytest.param(lambda p: p.write_text("x"), "not a directory", id="a-file"),
    ],
)
def test_task_dirs_refuses_a_path_without_tasks(tmp_path: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "tasks"
    make(path)
    with pytest.raises(SpecError) as raised:
        task_dirs(path)
    assert raised.value.file == shown(path)
    assert message in raised.value.message


# --- ${VAR} templates --------------------------------------------------------------------------

TEMPLATES = {
    "plain-value": ({"A": "text"}, {}, {"A": "text"}, []),
    "set": ({"K": "${KEY}"}, {"KEY": "s3cret"}, {"K": "s3cret"}, []),
    "unset": ({"K": "${KEY}"}, {}, {"K": ""}, ["KEY"]),
    "set-but-empty": ({"K": "${KEY}"}, {"KEY": ""}, {"K": ""}, []),
    "default-used": ({"K": "${KEY:-fallback}"}, {}, {"K": "fallback"}, []),
    "default-when-empty": ({"K": "${KEY:-fallback}"}, {"KEY": ""}, {"K": "fallback"}, []),
    "default-not-used": ({"K": "${KEY:-fallback}"}, {"KEY": "v"}, {"K": "v"}, []),
    "empty-default": ({"K": "${KEY:-}"}, {}, {"K": ""}, []),
    "inside-text": (
        {"U": "http://${HOST}:${PORT:-80}/x"},
        {"HOST": "h"},
        {"U": "http://h:80/x"},
        [],
    ),
    "several-missing-in-order-once": (
        {"A": "${Z}${Y}", "B": "${Z}", "C": "${X:-1}"},
        {},
        {"A": "", "B": "", "C": "1"},
        ["Z", "Y"],
    ),
    "not-a-template": (
        {"A": "$KEY ${} ${1X} ${KEY"},
        {"KEY": "v"},
        {"A": "$KEY ${} ${1X} ${KEY"},
        [],
    ),
    "default-with-spaces": ({"A": "${M:-a b c}"}, {}, {"A": "a b c"}, []),
}


@pytest.mark.parametrize(
    ("values", "environ", "resolved", "missing"), TEMPLATES.values(), ids=TEMPLATES.keys()
)
def test_resolve_templates(
    values: dict[str, str], environ: dict[str, str], resolved: dict[str, str], missing: list[str]
) -> None:
    assert resolve_templates(values, environ) == (resolved, missing)


def test_resolve_templates_reads_any_mapping() -> None:
    resolved, missing = resolve_templates({"H": "${HOME}"}, os.environ)
    assert (resolved["H"], missing) == (
        os.environ.get("HOME", ""),
        [] if "HOME" in os.environ else ["HOME"],
    )
