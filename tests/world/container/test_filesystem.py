"""What a sandbox sees and where its writes go: its own root (base root, layers, the writable
layer), /tmp, /logs, the digest, and nothing of the host's tree but the read-only tool layer."""

from __future__ import annotations

import os
import stat
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.world.container import Sandbox, SandboxError, sandbox_root
from assay.world.container.confine import default_base
from assay.world.container.host import tool_dir, uv_binary
from assay.world.container.idmap import sandbox_ids


def run(box: Sandbox, command: str, **options: object) -> str:
    result = box.exec(command, timeout_s=30, **options)  # type: ignore[arg-type]
    assert result.exit_code == 0, result
    return result.stdout.decode()


def upper(box: Sandbox) -> Path:
    """The host dir that holds the sandbox's writable layer."""
    return box.home / "layer" / "upper"


@pytest.fixture
def host_dir() -> Iterator[Path]:
    """A directory on the host's root filesystem (outside /tmp) holding one file."""
    path = Path("/var/tmp") / f"assay-host-{uuid.uuid4().hex[:12]}"
    path.mkdir()
    (path / "secret.txt").write_text("host secret\n")
    yield path
    for entry in path.iterdir():
        entry.unlink()
    path.rmdir()


def owned_by_sandbox_root(layer: Path) -> Path:
    """Give a hand-made layer the owners a built one has: the sandbox's root, not the host's."""
    uid, gid = sandbox_ids().host_uid(0), sandbox_ids().host_gid(0)
    for path in [layer, *layer.rglob("*")]:
        os.chown(path, uid, gid, follow_symlinks=False)
    return layer


def test_writes_land_in_the_writable_layer_and_leave_the_host_alone(box: Sandbox) -> None:
    name = f"hostname-test-{uuid.uuid4().hex[:8]}"
    before = box.digest()
    run(box, f"echo x > /etc/{name}")
    assert not Path("/etc", name).exists()
    assert not (default_base() / "etc" / name).exists()
    assert (upper(box) / "etc" / name).read_text() == "x\n"
    assert box.digest() != before
    assert box.digest()[1] == 2  # /etc (copied up) and the new file


def test_a_fresh_sandbox_has_changed_nothing(box: Sandbox) -> None:
    assert box.digest()[1] == 0


def test_the_same_actions_give_the_same_digest(start_sandbox: Callable[..., Sandbox]) -> None:
    actions = (
        "mkdir -p /srv/data && echo one > /srv/data/a && chmod 640 /srv/data/a && "
        "ln -s /srv/data/a /srv/link && rm /etc/issue && sleep 0.05 && touch /srv/data/a"
    )
    first, second, other = (start_sandbox() for _ in range(3))
    run(first, actions)
    run(second, actions)
    run(other, actions.replace("echo one", "echo two"))
    assert first.digest() == second.digest()
    assert first.digest() != other.digest()
    assert first.digest()[1] == 6  # /etc, its issue whited out, /srv, /srv/data, a, link


def test_a_deleted_base_root_file_is_a_whiteout_in_the_layer_and_stays_in_the_base(
    box: Sandbox,
) -> None:
    assert (default_base() / "etc" / "issue").is_file()
    run(box, "rm /etc/issue")
    assert (default_base() / "etc" / "issue").is_file()
    assert box.exec("cat /etc/issue", timeout_s=10).exit_code != 0
    whiteout = os.lstat(upper(box) / "etc" / "issue")
    assert stat.S_ISCHR(whiteout.st_mode) and whiteout.st_rdev == 0


def test_tmp_is_fresh_and_not_the_hosts(box: Sandbox) -> None:
    host_file = Path("/tmp") / f"assay-host-only-{uuid.uuid4().hex[:8]}"
    host_file.write_text("host")
    try:
        assert run(box, "ls -A /tmp") == ""
        run(box, "echo mine > /tmp/made-inside")
        assert (box.home / "layer" / "tmp" / "made-inside").read_text() == "mine\n"
    finally:
        host_file.unlink()


def test_logs_are_made_writable_for_every_user(box: Sandbox) -> None:
    assert run(box, "ls /logs") == "agent\nartifacts\nverifier\n"
    run(box, "useradd worker")
    assert box.exec("echo 1 > /logs/agent/out.txt", timeout_s=10, user="worker").exit_code == 0
    assert (box.logs / "agent" / "out.txt").read_text() == "1\n"


def test_the_verifier_logs_are_read_only_but_in_a_verifier_sandbox_started_after_it(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    agent = start_sandbox(workdir="/app")
    run(agent, "useradd worker")
    plant = "echo 1 > /logs/verifier/reward.txt"
    assert agent.exec(plant, timeout_s=10).exit_code != 0  # read-only, even for root
    assert agent.exec(plant, timeout_s=10, user="worker").exit_code != 0
    left_running = "nohup bash -c 'sleep 0.5; echo 1 > /logs/verifier/planted' >/dev/null 2>&1 &"
    agent.exec(left_running, timeout_s=10)
    agent.stop(keep_layer=True)
    verifier = Sandbox.start(agent.home, workdir="/app", verifier=True, fresh_layer=False)
    try:
        given = verifier.exec(plant + "; sleep 1", timeout_s=10, user="worker")
        assert given.exit_code == 0, given
        assert sorted(path.name for path in (verifier.home / "verifier").iterdir()) == [
            "reward.txt"
        ]
        assert run(verifier, "id -u worker") != ""  # the agent's layer, worker and all
    finally:
        verifier.stop()


def test_the_hosts_files_are_not_in_the_sandbox(box: Sandbox, host_dir: Path) -> None:
    assert box.exec(f"ls -A {host_dir}", timeout_s=10).exit_code != 0
    assert box.exec(f"cat {host_dir}/secret.txt", timeout_s=10).exit_code != 0
    for path in ("/root/.ssh", "/root/.gitconfig", "/root/.cargo", "/etc/assay-never-here"):
        if not (default_base() / path.lstrip("/")).exists():
            assert box.exec(f"test -e {path}", timeout_s=10).exit_code != 0, path


def test_other_sandboxes_and_the_dir_of_homes_cannot_be_seen(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    first = start_sandbox()
    run(first, "echo private > /tmp/note")
    second = start_sandbox()
    note = first.home / "layer" / "tmp" / "note"
    assert note.read_text() == "private\n"
    assert second.exec(f"cat {note}", timeout_s=10).exit_code != 0
    assert second.exec(f"ls -A {sandbox_root()}", timeout_s=10).exit_code != 0


def test_of_assays_interpreter_nothing_is_inside_and_the_tool_layer_is_read_only(
    box: Sandbox,
) -> None:
    assert box.exec(f"test -e {sys.prefix}", timeout_s=10).exit_code != 0
    assert box.exec("touch /opt/assay/bin/assay-written", timeout_s=10).exit_code != 0
    assert not (tool_dir() / "assay-written").exists()
    for path in ("/opt/assay/bin/uv", "/opt/assay/uv/uv"):  # never opened for writing: asked
        assert run(box, f"test -w {path} && echo writable || echo read-only") == "read-only\n"
    uv = uv_binary()
    assert uv is not None and run(box, "/opt/assay/uv/uv --version").startswith("uv ")


def test_layers_stack_on_the_base_root_the_last_on_top(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path
) -> None:
    tmp_path.chmod(0o755)  # the sandbox's root, not the host's, opens the layers
    lower, upper_layer = tmp_path / "lower", tmp_path / "upper"
    for layer, text in ((lower, "lower"), (upper_layer, "upper")):
        (layer / "opt" / "built").mkdir(parents=True)
        (layer / "opt" / "built" / "which").write_text(text)
    (lower / "opt" / "built" / "only-lower").write_text("kept")
    for layer in (lower, upper_layer):
        owned_by_sandbox_root(layer)
    box = start_sandbox(layers=[lower, upper_layer], workdir="/opt/built")
    assert run(box, "cat which only-lower; ls /usr/bin/env") == "upperkept/usr/bin/env\n"
    assert box.digest()[1] == 0
    run(box, "echo changed > which")
    assert (upper_layer / "opt" / "built" / "which").read_text() == "upper"
    assert box.digest()[1] == 3  # /opt, /opt/built, which


def test_a_refused_overlay_fails_the_start_and_never_falls_back_to_the_hosts_root(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path
) -> None:
    nested = tmp_path / "outer" / "inner"
    nested.mkdir(parents=True)
    owned_by_sandbox_root(tmp_path / "outer")
    # The kernel refuses lower layers that overlap: one inside the other.
    with pytest.raises(SandboxError, match="did not start"):
        start_sandbox(layers=[tmp_path / "outer", nested])
