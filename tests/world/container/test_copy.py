"""put and get: host files and directories into a running sandbox and back out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.world.container import Sandbox, SandboxError


def run(box: Sandbox, command: str) -> str:
    result = box.exec(command, timeout_s=30)
    assert result.exit_code == 0, result
    return result.stdout.decode()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small directory: a nested file, an executable script, a symlink."""
    source = tmp_path / "source"
    (source / "nested").mkdir(parents=True)
    (source / "nested" / "data.txt").write_text("data\n")
    (source / "run.sh").write_text("#!/bin/sh\necho ran\n")
    (source / "run.sh").chmod(0o755)
    (source / "link").symlink_to("nested/data.txt")
    return source


def test_a_directory_goes_in_and_comes_back_out_whole(
    box: Sandbox, tree: Path, tmp_path: Path
) -> None:
    box.put(tree, "/tests")
    assert run(box, "/tests/run.sh; cat /tests/link; stat -c %U /tests/nested/data.txt") == (
        "ran\ndata\nroot\n"
    )
    assert box.get("/tests", tmp_path / "back")
    back = tmp_path / "back"
    assert (back / "nested" / "data.txt").read_text() == "data\n"
    assert os.access(back / "run.sh", os.X_OK)
    assert os.readlink(back / "link") == "nested/data.txt"


def test_put_into_an_existing_dir_keeps_that_dirs_own_mode(box: Sandbox, tree: Path) -> None:
    tree.chmod(0o700)
    box.put(tree, "/")
    assert run(box, "stat -c %a /; cat /nested/data.txt") == "755\ndata\n"


def test_a_file_goes_to_its_path_or_into_a_directory(box: Sandbox, tree: Path) -> None:
    box.put(tree / "run.sh", "/opt/tool/start.sh")
    box.put(tree / "run.sh", "/usr/local/bin/")
    assert run(box, "/opt/tool/start.sh; /usr/local/bin/run.sh") == "ran\nran\n"


def test_an_owner_owns_what_was_copied(box: Sandbox, tree: Path) -> None:
    run(box, "useradd --uid 4555 agent")
    box.put(tree, "/home/agent/work", owner="agent")
    box.put(tree / "run.sh", "/home/agent/one.sh", owner="agent:root")
    owners = run(box, "stat -c '%n %U:%G' /home/agent/work/nested/data.txt /home/agent/one.sh")
    assert owners == "/home/agent/work/nested/data.txt agent:agent\n/home/agent/one.sh agent:root\n"
    with pytest.raises(SandboxError, match="unable to find user ghost"):
        box.put(tree, "/x", owner="ghost")


def test_get_copies_one_file_and_says_false_for_a_missing_path(
    box: Sandbox, tmp_path: Path
) -> None:
    run(box, "echo patch > /logs/artifacts/model.patch")
    assert box.get("/logs/artifacts/model.patch", tmp_path / "out" / "model.patch")
    assert (tmp_path / "out" / "model.patch").read_text() == "patch\n"
    assert box.get("/no/such/file", tmp_path / "missing") is False
    assert not (tmp_path / "missing").exists()
    assert [entry.name for entry in (tmp_path / "out").iterdir()] == ["model.patch"]


def test_copies_need_absolute_paths_and_a_source(box: Sandbox, tree: Path, tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="absolute"):
        box.put(tree, "relative")
    with pytest.raises(SandboxError, match="does not exist"):
        box.put(tmp_path / "nothing", "/x")
    with pytest.raises(SandboxError, match="absolute"):
        box.get("relative", tmp_path / "x")


def test_get_copies_links_as_links_and_leaves_out_fifos(box: Sandbox, tmp_path: Path) -> None:
    run(
        box,
        "mkdir -p /out/sub && echo data > /out/sub/f && ln -s sub/f /out/rel && "
        "mkfifo /out/pipe && ln -s /etc/shadow /out/abs && ln -s ../../etc/shadow /out/up",
    )
    assert box.get("/out", tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "sub" / "f").read_text() == "data\n"
    assert os.readlink(out / "rel") == "sub/f"
    assert not os.path.lexists(out / "pipe")
    # links that would point out of the copy on the host are left out, never followed
    assert not os.path.lexists(out / "abs")
    assert not os.path.lexists(out / "up")


def test_getting_a_path_that_is_a_link_out_of_the_sandbox_brings_no_host_file(
    box: Sandbox, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret\n")
    run(box, f"mkdir -p /app && ln -s {secret} /app/out && ln -s {tmp_path} /app/dir")
    for inside in ("/app/out", "/app/dir"):
        target = tmp_path / "got" / inside.rsplit("/", 1)[1]
        box.get(inside, target)  # a link the host would refuse is left out, not an error
        copied = [target, *target.rglob("*")] if target.is_dir() else [target]
        assert not any(
            path.is_file() and "host secret" in path.read_text()
            for path in copied
            if not path.is_symlink()
        )
        assert not (target.is_symlink() and target.resolve() in (secret, tmp_path))
