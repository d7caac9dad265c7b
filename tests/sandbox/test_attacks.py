"""An agent that attacks its grade or the host, through whole task runs in real sandboxes: each
task's test fails for an agent that does nothing, so any reward but 0 is a forgery."""

from __future__ import annotations

import base64
import shutil
import stat
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandboxkit import make_task
from sandboxrun import exec_action, run_one, script

from assay.score.result import TaskRunResult

# A test that passes only if the agent made /app/done, which no agent here does.
PASS_IF_DONE = (
    "test -f /app/done && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt"
    "\n"
)
TEST_STATE = "import os\n\n\ndef test_done():\n    assert os.path.exists('/app/done')\n"
PYTEST_SH = (
    "uvx -p 3.13 --with pytest==8.4.1 pytest /tests/test_state.py -q "
    "&& echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"
)
# A pytest plugin that reports every test as passed.
FORGED_CONFTEST = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    report = (yield).get_result()\n"
    "    report.outcome = 'passed'\n"
)
# A preloaded library that writes reward 1 and ends the process wherever /logs/verifier is
# writable (only a verifier's own sandbox), and does nothing elsewhere.
FORGED_PRELOAD = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void forge(void) {
    int fd = open("/logs/verifier/reward.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    write(fd, "1\n", 2);
    close(fd);
    _exit(0);
}
"""
# A mkdir first on the PATH that forges reward 1 and kills its caller, where it can.
FORGED_MKDIR = (
    "#!/bin/sh\n"
    "if (: > /logs/verifier/reward.txt) 2>/dev/null; then\n"
    "  echo 1 > /logs/verifier/reward.txt; kill -9 $PPID; exit 0\n"
    "fi\n"
    'exec /usr/bin/mkdir "$@"\n'
)
RUN_LIMIT_S = 120  # a task run that has not ended by then is blocked for good


def task_toml(mode: str = "shared", *, artifacts: str = "", workdir: str | None = None) -> str:
    lines = [f"artifacts = {artifacts}" if artifacts else ""]
    lines += ["[agent]", "timeout_sec = 30", "[verifier]", "timeout_sec = 30"]
    lines.append(f'environment_mode = "{mode}"')
    if workdir:
        lines += ["[environment]", f'workdir = "{workdir}"']
    return "\n".join(lines) + "\n"


def write_file(path: str, text: str, mode: str = "644") -> str:
    """A shell command that writes `text` to `path` inside, whatever its bytes."""
    data = base64.b64encode(text.encode()).decode()
    return f"mkdir -p $(dirname {path}) && echo {data} | base64 -d > {path} && chmod {mode} {path}"


def graded_zero(result: TaskRunResult) -> None:
    """The test ran and gave the do-nothing reward: scored, not achieved."""
    evidence = script(result)
    assert (evidence["status"], evidence["primary"]) == ("SCORED", 0.0), evidence
    assert result.outcome == "not_achieved"


def outputs(result: TaskRunResult) -> list[dict]:
    """The result of every exec the agent ran, in order."""
    return [
        event["result"]
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result" and event.get("status") == "OK"
    ]


def finished_within(seconds: float, *args, **kwargs) -> TaskRunResult:  # type: ignore[no-untyped-def]
    """run_one, failing the test if the task run has not ended after `seconds`."""
    done: list[TaskRunResult | BaseException] = []

    def target() -> None:
        try:
            done.append(run_one(*args, **kwargs))
        except BaseException as error:  # re-raised below, in the test's thread
            done.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"the task run was still running after {seconds} s"
    if isinstance(done[0], BaseException):
        raise done[0]
    return done[0]


def processes_mentioning(text: str) -> list[int]:
    """Host pids of living processes whose command line holds `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def host_secret() -> Iterator[Path]:
    """A host file and a host directory holding a marker no sandbox could have."""
    marker = f"HOST-SECRET-{uuid.uuid4().hex}"
    folder = Path("/var/tmp") / f"assay-secret-{uuid.uuid4().hex[:12]}"
    folder.mkdir()
    (folder / "secret.txt").write_text(marker + "\n")
    yield folder
    shutil.rmtree(folder)


# -- forged tests and test runners -----------------------------------------------------------------


def test_tests_the_agent_planted_are_replaced_before_the_verifier_runs(tmp_path: Path) -> None:
    task = make_task(
        tmp_path, "planted", test_sh=PYTEST_SH, tests_files={"test_state.py": TEST_STATE}
    )
    plant = [
        write_file("/tests/test.sh", "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n", "755"),
        write_file("/tests/conftest.py", FORGED_CONFTEST),
        write_file("/tests/test_state.py", "def test_done():\n    pass\n"),
    ]
    graded_zero(run_one(task, actions=[exec_action(" && ".join(plant))]))


@pytest.mark.parametrize(
    "planted",
    [
        {"/app/pytest.py": "import sys\nsys.exit(0)\n"},
        {"/app/conftest.py": FORGED_CONFTEST, "/app/pytest.ini": "[pytest]\n"},
    ],
    ids=["pytest-module-in-workdir", "conftest-in-workdir"],
)
def test_a_pytest_module_or_conftest_in_the_working_dir_never_reaches_uvx_pytest(
    tmp_path: Path, planted: dict[str, str]
) -> None:
    """The real uvx runs pytest's own script, which puts its bin directory, not the working
    directory, on sys.path; a conftest.py and ini file in the working directory are not above
    /tests, so pytest reads neither (as in the format's own runner)."""
    task = make_task(
        tmp_path,
        "shadowed-pytest",
        test_sh=PYTEST_SH,
        tests_files={"test_state.py": TEST_STATE},
        toml=task_toml(workdir="/app"),
    )
    plant = " && ".join(write_file(path, text) for path, text in planted.items())
    graded_zero(run_one(task, actions=[exec_action(plant)]))


def test_a_process_left_rewriting_the_tests_is_gone_before_the_verifier_runs(
    tmp_path: Path,
) -> None:
    mark = f"assay-rewriter-{uuid.uuid4().hex[:8]}"
    test_sh = (
        "before=$(cksum < /tests/test.sh); sleep 1; after=$(cksum < /tests/test.sh)\n"
        '[ "$before" = "$after" ] && echo untouched\n' + PASS_IF_DONE
    )
    task = make_task(tmp_path, "rewriter", test_sh=test_sh)
    loop = (
        "while :; do echo 1 > /tests/test.sh 2>/dev/null; "
        "echo 'echo 1 > /logs/verifier/reward.txt' > /tests/test.sh 2>/dev/null; "
        f"sleep 0.01; done; : {mark}"
    )
    start = f'mkdir -p /tests && nohup sh -c "{loop}" >/dev/null 2>&1 & sleep 0.2'
    result = run_one(task, actions=[exec_action(start)])
    graded_zero(result)
    assert "untouched" in script(result)["test_stdout_tail"]  # no writer was left by then
    assert processes_mentioning(mark) == []


def test_a_process_left_writing_through_proc_root_cannot_reach_the_verifiers_logs(
    tmp_path: Path,
) -> None:
    task = make_task(tmp_path, "proc-root", test_sh="sleep 1\n" + PASS_IF_DONE)
    loop = (
        "while :; do for p in /proc/[0-9]*; do "
        "echo 1 > $p/root/logs/verifier/reward.txt; done 2>/dev/null; sleep 0.01; done"
    )
    result = run_one(task, actions=[exec_action(f"nohup sh -c '{loop}' >/dev/null 2>&1 &")])
    graded_zero(result)


def test_no_path_leads_to_another_tasks_solution_or_tests(tmp_path: Path) -> None:
    marker = f"SOLUTION-{uuid.uuid4().hex}"
    other = make_task(
        tmp_path, "other", test_sh=f"# {marker}\n" + PASS_IF_DONE, solve_sh=f"echo {marker}\n"
    )
    task = make_task(tmp_path, "prober", test_sh=PASS_IF_DONE)
    venv = Path(sys.prefix)
    ways = [
        other,
        Path("/proc/1/root") / other.relative_to("/"),
        Path("/proc/self/root") / other.relative_to("/"),
        venv / ".." / ".." / other.relative_to(venv.anchor),
        Path("/proc/1/cwd") / other.relative_to("/"),
    ]
    probe = "; ".join(
        f"cat {way}/solution/solve.sh {way}/tests/test.sh 2>/dev/null" for way in ways
    )
    listing = f"ls -A {other.parent} {tmp_path} 2>/dev/null; true"
    result = run_one(task, actions=[exec_action(probe + "; true"), exec_action(listing)])
    read, listed = outputs(result)
    assert marker not in read["stdout"]
    assert "other" not in listed["stdout"].split()
    graded_zero(result)


# -- what shared mode cannot promise, and separate mode does ---------------------------------------


def preload_library(tmp_path: Path) -> bytes:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the preloaded library")
    source = tmp_path / "forge.c"
    source.write_text(FORGED_PRELOAD)
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-o", str(tmp_path / "forge.so"), str(source)],
        check=True,
    )
    return (tmp_path / "forge.so").read_bytes()


@pytest.mark.parametrize("trick", ["ld.so.preload", "shadowed-mkdir", "conftest-at-root"])
def test_in_separate_mode_the_agents_loader_binaries_and_configs_never_reach_the_verifier(
    tmp_path: Path, trick: str
) -> None:
    """An /etc/ld.so.preload, a mkdir shadowed in /usr/local/bin, or a /conftest.py with a
    /pytest.ini (pytest takes / as its rootdir then, as it would in Docker) forge reward 1 in
    shared mode, where the test runs in the agent's own root: that is the documented limit of
    shared mode (docs/container-tasks.md, "What shared mode cannot promise"). In separate mode the
    verifier's root is the task's image plus the declared artifacts only."""
    test_sh, tests_files = "mkdir -p /logs/verifier\n" + PASS_IF_DONE, {}
    if trick == "ld.so.preload":
        library = base64.b64encode(preload_library(tmp_path)).decode()
        plant = (
            f"echo {library} | base64 -d > /usr/lib/libforge.so && "
            "echo /usr/lib/libforge.so > /etc/ld.so.preload"
        )
        probe, expected = "cat /etc/ld.so.preload", "/usr/lib/libforge.so\n"
    elif trick == "shadowed-mkdir":
        plant = write_file("/usr/local/bin/mkdir", FORGED_MKDIR, "755")
        probe, expected = "command -v mkdir", "/usr/local/bin/mkdir\n"
    else:
        plant = f"{write_file('/conftest.py', FORGED_CONFTEST)} && echo [pytest] > /pytest.ini"
        probe, expected = "cat /pytest.ini", "[pytest]\n"
        test_sh, tests_files = PYTEST_SH, {"test_state.py": TEST_STATE}
    toml = task_toml("separate")
    task = make_task(tmp_path, "subverted", test_sh=test_sh, tests_files=tests_files, toml=toml)
    result = run_one(task, actions=[exec_action(plant), exec_action(probe)])
    assert outputs(result)[1]["stdout"] == expected  # the trick is in place in the agent's root
    graded_zero(result)


# -- links and FIFOs -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["shared", "separate"])
def test_a_link_the_agent_leaves_in_its_logs_creates_nothing_on_the_host(
    tmp_path: Path, mode: str
) -> None:
    target = Path("/var/tmp") / f"assay-pwned-{uuid.uuid4().hex}"
    task = make_task(tmp_path, "dangling", test_sh=PASS_IF_DONE, toml=task_toml(mode))
    links = (
        f"ln -s {target} /logs/artifacts/model.patch && "
        f"ln -s {target}.summary /logs/artifacts/summary.txt && "
        f"ln -s {target}.agent /logs/agent/trajectory.json"
    )
    try:
        graded_zero(run_one(task, actions=[exec_action(links)]))
        assert not any(Path(f"{target}{end}").exists() for end in ("", ".summary", ".agent"))
    finally:
        for end in ("", ".summary", ".agent"):
            Path(f"{target}{end}").unlink(missing_ok=True)


@pytest.mark.parametrize("what", ["file", "folder"])
@pytest.mark.parametrize("mode", ["shared", "separate"])
def test_an_artifact_that_links_to_a_host_path_brings_no_host_content(
    tmp_path: Path, host_secret: Path, mode: str, what: str
) -> None:
    marker = (host_secret / "secret.txt").read_text().strip()
    found = f"grep -rqs {marker} /app/out /logs/artifacts"
    test_sh = f"if {found}; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"
    toml = task_toml(mode, artifacts='["/app/out"]')
    task = make_task(tmp_path, "linked-artifact", test_sh=test_sh, toml=toml)
    linked = host_secret / "secret.txt" if what == "file" else host_secret
    plant = f"mkdir -p /app && ln -s {linked} /app/out && ln -s {linked} /logs/artifacts/out"
    result = run_one(task, actions=[exec_action(plant)])
    graded_zero(result)
    assert marker not in str(script(result))


@pytest.mark.parametrize("mode", ["shared", "separate"])
def test_fifos_in_place_of_artifacts_do_not_block_the_task_run(tmp_path: Path, mode: str) -> None:
    toml = task_toml(mode, artifacts='["/app/out", "/app/dir"]')
    task = make_task(tmp_path, "fifos", test_sh=PASS_IF_DONE, toml=toml)
    fifos = (
        "mkdir -p /app/dir && mkfifo /app/out /app/dir/inner /logs/artifacts/x "
        "/logs/artifacts/model.patch"
    )
    graded_zero(finished_within(RUN_LIMIT_S, task, actions=[exec_action(fifos)]))


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_subverted_shared_verifier_cannot_make_the_host_read_a_host_file_or_block(
    tmp_path: Path, host_secret: Path, kind: str
) -> None:
    """In shared mode the agent's shadowed mkdir runs in the verifier (the documented limit): it
    may forge the reward, but the host must still read /logs/verifier without following a link
    out of it or blocking on a FIFO."""
    secret = host_secret / "secret.txt"
    log = "/logs/verifier/test-stdout.txt"
    replace = f"ln -sf {secret} {log}" if kind == "link" else f"rm -f {log} && mkfifo {log}"
    shadow = (
        "#!/bin/sh\n"
        f"if (: > /logs/verifier/reward.txt) 2>/dev/null; then {replace}; "
        "echo 0 > /logs/verifier/reward.txt; kill -9 $PPID; exit 0; fi\n"
        'exec /usr/bin/mkdir "$@"\n'
    )
    task = make_task(tmp_path, "swapped-log", test_sh="mkdir -p /logs/verifier\n" + PASS_IF_DONE)
    plant = write_file("/usr/local/bin/mkdir", shadow, "755")
    result = finished_within(RUN_LIMIT_S, task, actions=[exec_action(plant)])
    assert secret.read_text().strip() not in str(script(result))
    assert result.outcome == "not_achieved"


# -- the host's files, through the verifier's start ------------------------------------------------


@pytest.mark.parametrize("logs", ["/logs/agent", "/logs/artifacts"])
def test_a_link_in_place_of_a_logs_dir_changes_no_host_dirs_owner_or_mode(
    tmp_path: Path, logs: str
) -> None:
    """In shared mode the verifier's sandbox starts over the agent's home again: what the agent
    left in /logs must not make the host chown or chmod through it."""
    victim = Path("/var/tmp") / f"assay-victim-{uuid.uuid4().hex[:12]}"
    victim.mkdir(mode=0o700)
    try:
        task = make_task(tmp_path, "relinked-logs", test_sh=PASS_IF_DONE)
        relink = f"rm -rf {logs} && ln -s {victim} {logs}"
        run_one(task, actions=[exec_action(relink)])
        info = victim.stat()
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, 0, 0o700)
    finally:
        victim.rmdir()


# -- sabotaged tools and verifiers -----------------------------------------------------------------


def test_a_task_run_whose_agent_replaced_tar_and_the_file_tools_is_still_graded(
    tmp_path: Path,
) -> None:
    tools = ["/usr/bin/tar", "/bin/tar", "/usr/bin/cp", "/usr/bin/mkdir", "/usr/bin/rm"]
    tools.append("/usr/bin/chmod")
    sabotage = "; ".join(f"printf '#!/bin/sh\\nexit 1\\n' > {path}" for path in tools)
    test_sh = '[ "$(cat /tests/expected.txt)" = real ] || exit 3\n' + PASS_IF_DONE
    task = make_task(tmp_path, "no-tar", test_sh=test_sh, tests_files={"expected.txt": "real\n"})
    result = run_one(task, actions=[exec_action(sabotage), exec_action("tar --version")])
    assert outputs(result)[1]["exit_code"] == 1  # the sabotage is in place
    graded_zero(result)
    assert result.error is None


def test_a_verifier_the_agent_broke_so_that_it_writes_no_reward_is_the_agents_failure(
    tmp_path: Path,
) -> None:
    """The agent's bash (the test script's interpreter) exits at once: no reward file, after the
    agent acted, is its failure: not achieved, with the error on its side, never not scored."""
    task = make_task(tmp_path, "broken-bash", test_sh=PASS_IF_DONE)
    fake = "#!/bin/sh\nexit 0\n"
    # a rename: bash, running this very command, cannot be written in place
    sabotage = (
        f"{write_file('/usr/bin/bash.new', fake, '755')} && mv /usr/bin/bash.new /usr/bin/bash"
    )
    result = run_one(task, actions=[exec_action(sabotage)])
    assert script(result)["status"] == "INDETERMINATE"
    assert result.outcome == "not_achieved"
    assert result.error is not None and result.error.side == "agent"
