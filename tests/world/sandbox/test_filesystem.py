"""What a sandbox sees and where its writes go: overlay upper, layers, masks, /tmp, the digest."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.world.sandbox import Sandbox, sandbox_root
from assay.world.sandbox.host import interpreter_dirs


def run(box: Sandbox, command: str) -> str:
    result = box.exec(command, timeout_s=30)
    assert result.exit_code == 0, result
    return result.stdout.decode()


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


def test_writes_outside_the_mounts_land_in_upper_and_leave_the_host_alone(box: Sandbox) -> None:
    name = f"hostname-test-{uuid.uuid4().hex[:8]}"
    before = box.digest()
    run(box, f"echo x > /etc/{name}")
    assert not Path("/etc", name).exists()
    assert (box.home / "upper" / "etc" / name).read_text() == "x\n"
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


def test_a_deleted_host_file_is_a_whiteout_in_upper_and_still_on_the_host(box: Sandbox) -> None:
    run(box, "rm /etc/issue")
    assert Path("/etc/issue").exists()
    assert box.exec("cat /etc/issue", timeout_s=10).exit_code != 0
    whiteout = os.lstat(box.home / "upper" / "etc" / "issue")
    assert whiteout.st_rdev == 0


def test_tmp_is_fresh_and_not_the_hosts(box: Sandbox, tmp_path: Path) -> None:
    host_file = Path("/tmp") / f"assay-host-only-{uuid.uuid4().hex[:8]}"
    host_file.write_text("host")
    try:
        # empty, but for the way to assay's own interpreter when it is installed under /tmp
        needed = {
            path.relative_to("/tmp").parts[0]
            for path in interpreter_dirs()
            if path.is_relative_to("/tmp")
        }
        assert set(run(box, "ls -A /tmp").split()) == needed
        run(box, "echo mine > /tmp/made-inside")
        assert (box.home / "tmp" / "made-inside").read_text() == "mine\n"
    finally:
        host_file.unlink()


def test_logs_are_made_writable_for_every_user(box: Sandbox) -> None:
    assert run(box, "ls /logs") == "agent\nartifacts\nverifier\n"
    run(box, "useradd worker")
    assert box.exec("echo 1 > /logs/agent/out.txt", timeout_s=10, user="worker").exit_code == 0
    assert (box.logs / "agent" / "out.txt").read_text() == "1\n"


def test_the_verifier_logs_are_writable_only_by_a_command_given_them(box: Sandbox) -> None:
    run(box, "useradd worker")
    plant = "echo 1 > /logs/verifier/reward.txt"
    assert box.exec(plant, timeout_s=10).exit_code != 0  # read-only, even for root
    left_running = "nohup bash -c 'sleep 0.5; echo 1 > /logs/verifier/planted' >/dev/null 2>&1 &"
    box.exec(left_running, timeout_s=10)
    given = box.exec(plant + "; sleep 1", timeout_s=10, user="worker", writable=["/logs/verifier"])
    assert given.exit_code == 0
    assert sorted(path.name for path in (box.logs / "verifier").iterdir()) == ["reward.txt"]


def test_a_masked_dir_shows_empty_and_an_unmasked_one_does_not(
    start_sandbox: Callable[..., Sandbox], host_dir: Path
) -> None:
    open_box = start_sandbox()
    assert run(open_box, f"cat {host_dir}/secret.txt") == "host secret\n"
    masked = start_sandbox(masks=[host_dir])
    assert run(masked, f"ls -A {host_dir}") == ""


def test_other_sandboxes_cannot_be_seen(start_sandbox: Callable[..., Sandbox]) -> None:
    first = start_sandbox()
    run(first, "echo private > /tmp/note")
    second = start_sandbox()
    note = first.home / "tmp" / "note"
    assert note.read_text() == "private\n"
    assert second.exec(f"cat {note}", timeout_s=10).exit_code != 0
    assert run(second, f"ls -A {sandbox_root()}") == ""


def test_assays_interpreter_runs_inside_even_with_its_checkout_masked(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    box = start_sandbox(masks=[Path(sys.prefix).parent])
    assert (
        run(box, f"ls -A {Path(sys.prefix).parent} | grep -vx {Path(sys.prefix).name} || true")
        == ""
    )
    assert run(box, '"$ASSAY_HOST_PYTHON" -c "import pytest, sys; print(sys.prefix)"') == (
        f"{sys.prefix}\n"
    )


def test_layers_stack_on_the_host_root_the_last_on_top(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path
) -> None:
    lower, upper = tmp_path / "lower", tmp_path / "upper"
    for layer, text in ((lower, "lower"), (upper, "upper")):
        (layer / "opt" / "built").mkdir(parents=True)
        (layer / "opt" / "built" / "which").write_text(text)
    (lower / "opt" / "built" / "only-lower").write_text("kept")
    box = start_sandbox(layers=[lower, upper], workdir="/opt/built")
    assert run(box, "cat which only-lower; ls /usr/bin/env") == "upperkept/usr/bin/env\n"
    assert box.digest()[1] == 0
    run(box, "echo changed > which")
    assert (upper / "opt" / "built" / "which").read_text() == "upper"
    assert box.digest()[1] == 3  # /opt, /opt/built, which


def test_the_read_only_fallback_writes_only_its_own_dirs(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path
) -> None:
    box = start_sandbox(overlay=False, workdir="/app", layers=[tmp_path])
    assert box.readonly_root
    assert box.notes == ["sandbox_readonly_root", "layers_ignored"]
    assert box.exec("touch /etc/not-here", timeout_s=10).exit_code != 0
    assert box.exec("touch /usr/not-here", timeout_s=10).exit_code != 0
    run(box, "echo w > /app/w && echo t > /tmp/t && echo l > /logs/agent/l && echo r > /root/r")
    assert run(box, "pwd; cat /app/w") == "/app\nw\n"
    assert (box.home / "workdir" / "w").read_text() == "w\n"
    digest, entries = box.digest()
    assert entries == 1
    run(box, "echo more > /app/more")
    assert box.digest() != (digest, entries)
    assert run(box, '"$ASSAY_HOST_PYTHON" -c "print(42)"') == "42\n"
    (tmp_path / "test_a.py").write_text("ok")
    box.put(tmp_path / "test_a.py", "/tests/")
    box.put(tmp_path / "test_a.py", "/solution/solve.sh")
    assert run(box, "cat /tests/test_a.py /solution/solve.sh") == "okok"


def test_the_overlay_sandbox_is_not_read_only(box: Sandbox) -> None:
    assert (box.readonly_root, box.notes) == (False, [])


def test_a_refused_overlay_falls_back_to_the_read_only_root(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path
) -> None:
    nested = tmp_path / "outer" / "inner"
    nested.mkdir(parents=True)
    # The kernel refuses lower layers that overlap: one inside the other.
    box = start_sandbox(layers=[tmp_path / "outer", nested])
    assert box.readonly_root
    assert box.notes[0] == "sandbox_readonly_root"
    assert box.notes[1].startswith("overlay_refused:")
    assert box.notes[2] == "layers_ignored"
    assert run(box, "echo up") == "up\n"
