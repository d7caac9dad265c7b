"""exec in a running sandbox: exit codes, output, time limits, environment, users, network, limits."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from sandboxprocs import processes_running, unique_seconds, wait_until_process

from assay.world.container import Sandbox, SandboxError
from assay.world.container.confine import Limits


def run(box: Sandbox, command: str, **options: object) -> str:
    result = box.exec(command, timeout_s=30, **options)  # type: ignore[arg-type]
    assert result.exit_code == 0, result
    return result.stdout.decode()


def test_a_started_sandbox_runs_commands_until_it_is_stopped(box: Sandbox) -> None:
    assert box.alive
    assert run(box, "echo hello") == "hello\n"
    box.stop()
    assert not box.alive
    with pytest.raises(SandboxError, match="not running"):
        box.exec("true", timeout_s=5)
    box.stop()  # a second stop does nothing


def test_the_exit_code_is_the_commands(box: Sandbox) -> None:
    assert box.exec("exit 7", timeout_s=10).exit_code == 7
    assert box.exec("kill -9 $$", timeout_s=10).exit_code == 137
    assert box.exec("no-such-command-here", timeout_s=10).exit_code == 127


def test_stdout_and_stderr_come_back_apart(box: Sandbox) -> None:
    result = box.exec("echo out; echo err >&2; printf 'tail'", timeout_s=10)
    assert (result.stdout, result.stderr) == (b"out\ntail", b"err\n")


def test_a_command_past_its_time_limit_is_killed_and_reads_124(box: Sandbox) -> None:
    seconds = unique_seconds()
    result = box.exec(f"echo begun; sleep {seconds}", timeout_s=0.5)
    assert (result.exit_code, result.timed_out) == (124, True)
    assert result.stdout == b"begun\n"
    assert processes_running("sleep", seconds) == []


def test_a_command_that_exits_124_on_its_own_did_not_time_out(box: Sandbox) -> None:
    result = box.exec("exit 124", timeout_s=30)
    assert (result.exit_code, result.timed_out) == (124, False)


def test_the_environment_starts_empty_plus_defaults_and_the_callers(
    box: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_TEST_HOST_ONLY", "leaked")
    names = dict(
        line.split("=", 1)
        for line in run(box, "env", env={"TASK_VAR": "v 1", "LANG": "C"}).splitlines()
    )
    assert "ASSAY_TEST_HOST_ONLY" not in names
    assert names["TASK_VAR"] == "v 1"
    assert names["LANG"] == "C"  # the caller's env wins over a default
    assert names["HOME"] == "/root"
    assert names["TERM"] == "dumb"
    assert names["PATH"].startswith("/opt/assay/bin:")
    assert not any(name.startswith("ASSAY") for name in names)


def test_commands_run_in_the_workdir_unless_told_otherwise(box: Sandbox) -> None:
    assert run(box, "pwd") == "/app\n"
    assert run(box, "pwd", cwd="/etc") == "/etc\n"
    missing = box.exec("pwd", timeout_s=10, cwd="/no/such/dir")
    assert missing.exit_code != 0
    assert b"/no/such/dir" in missing.stderr


def test_the_command_s_stdin_is_empty(box: Sandbox) -> None:
    assert run(box, "cat; echo end") == "end\n"


def test_a_command_of_300_kb_runs_whole(box: Sandbox) -> None:
    lines = [f"v{index}={'x' * 90}" for index in range(3200)]
    command = "\n".join([*lines, "echo ${#v3199} $v0", ""])
    assert len(command) > 300_000
    assert run(box, command) == f"90 {'x' * 90}\n"


def test_a_user_made_inside_runs_commands_with_its_own_home(box: Sandbox) -> None:
    run(box, "useradd --create-home --uid 4321 agent")
    assert (
        run(box, "whoami; id -u; echo $HOME; pwd", user="agent")
        == "agent\n4321\n/home/agent\n/app\n"
    )
    assert run(box, "id -u", user=4321) == "4321\n"
    assert run(box, "id -u; id -g", user="agent:root") == "4321\n0\n"
    assert (
        run(box, "touch /home/agent/mine && stat -c %U /home/agent/mine", user="agent") == "agent\n"
    )
    assert box.exec("touch /etc/not-agents", timeout_s=10, user="agent").exit_code != 0


def test_an_unknown_user_is_refused_like_docker(box: Sandbox) -> None:
    result = box.exec("true", timeout_s=10, user="nobody-here")
    assert result.exit_code == 126
    assert b"unable to find user nobody-here" in result.stderr


def test_accounts_are_not_read_through_a_symlink_that_would_resolve_on_the_host(
    box: Sandbox, tmp_path: Path
) -> None:
    host_file = tmp_path / "passwd"
    host_file.write_text("mover:x:0:0::/:/bin/sh\n")  # would make `mover` root, were it read
    run(box, f"ln -sf {host_file} /etc/passwd")
    assert box.exec("id -u", timeout_s=10, user="mover").exit_code == 126


def interfaces(proc_net_dev: str) -> set[str]:
    return {line.split(":")[0].strip() for line in proc_net_dev.splitlines()[2:]}


def test_without_network_only_loopback_is_there(start_sandbox: Callable[..., Sandbox]) -> None:
    box = start_sandbox(network="no-network")
    assert interfaces(run(box, "cat /proc/net/dev")) == {"lo"}


def test_loopback_works_without_network(start_sandbox: Callable[..., Sandbox]) -> None:
    box = start_sandbox(network="no-network")
    server = (
        "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
        "c = socket.create_connection(s.getsockname()); print('connected')"
    )
    assert run(box, f'python3 -c "{server}"') == "connected\n"


@pytest.mark.parametrize("network", ["no-network", "public", "allowlist"])
def test_every_network_mode_is_a_network_namespace_of_the_sandbox_s_own(
    start_sandbox: Callable[..., Sandbox], network: str
) -> None:
    box = start_sandbox(network=network, allowed_hosts=("example.com",))
    assert run(box, "readlink /proc/self/ns/net") != os.readlink("/proc/self/ns/net") + "\n"


def test_with_the_public_network_there_is_an_interface_besides_loopback(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    box = start_sandbox(network="public")
    assert interfaces(run(box, "cat /proc/net/dev")) - {"lo"}
    assert run(box, "cat /proc/net/route").count("\n") > 1  # a route out, besides the header


def test_background_processes_outlive_the_exec_that_started_them(box: Sandbox) -> None:
    seconds = unique_seconds()
    run(box, f"sleep {seconds} & echo $! > /tmp/background.pid")
    assert run(box, "kill -0 $(cat /tmp/background.pid) && echo alive") == "alive\n"
    assert wait_until_process("sleep", seconds)
    box.stop()
    assert processes_running("sleep", seconds) == []


def test_commands_cannot_mount_or_make_devices(box: Sandbox) -> None:
    assert box.exec("mount -t tmpfs none /mnt", timeout_s=10).exit_code != 0
    assert box.exec("mknod /tmp/disk b 8 0", timeout_s=10).exit_code != 0
    assert (
        run(box, "touch /tmp/plain && chown nobody /tmp/plain && stat -c %U /tmp/plain")
        == "nobody\n"
    )


def test_the_storage_limit_caps_the_whole_writable_layer_not_one_file(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    box = start_sandbox(workdir="/app", storage_mb=2)
    first = box.exec("head -c 1500000 /dev/zero > /app/first", timeout_s=10)
    assert first.exit_code == 0, first
    second = box.exec("head -c 1500000 /dev/zero > /srv/second", timeout_s=10)
    assert second.exit_code != 0
    assert b"No space left on device" in second.stderr
    files = (box.home / "layer" / "upper").rglob("*")
    written = sum(path.lstat().st_size for path in files if path.is_file())
    assert written <= 2 * 1024 * 1024


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to limit to one")
def test_a_cpu_limit_holds_the_sandbox_to_a_quota_or_to_as_many_cpus(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    box = start_sandbox(limits=Limits(cpus=1))
    if any(note.startswith("cpus_as_affinity") for note in box.notes):
        assert run(box, "nproc") == "1\n"
        return
    assert cpu_quota(box.pid1) == 1.0


def cpu_quota(pid: int) -> float | None:
    """The CPUs the cgroup of host process `pid` may use (v2 cpu.max or v1 cfs quota), None if
    unlimited."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            limit = Path(f"/sys/fs/cgroup{path}/cpu.max")
            if limit.exists():
                quota, period = limit.read_text().split()
                return None if quota == "max" else int(quota) / int(period)
        elif "cpu" in controllers.split(","):
            base = Path("/sys/fs/cgroup") / controllers / path.lstrip("/")
            if not base.exists():
                base = Path("/sys/fs/cgroup/cpu") / path.lstrip("/")
            quota = int((base / "cpu.cfs_quota_us").read_text())
            period = int((base / "cpu.cfs_period_us").read_text())
            return None if quota < 0 else quota / period
    return None


def test_starting_needs_an_empty_home_and_an_absolute_workdir(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("x")
    with pytest.raises(SandboxError, match="not an empty directory"):
        Sandbox.start(tmp_path)
    with pytest.raises(SandboxError, match="absolute"):
        Sandbox.start(tmp_path / "fresh", workdir="app")
