"""Host-side reads of what a sandbox wrote: no link followed, no FIFO waited on, no size unbounded."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from assay.world.container.hostfiles import TooLarge, contains, copy_tree, read_capped, tail_of
from assay.world.container.output import tail
from assay.world.rewards import read_rewards


@pytest.fixture
def host_secret(tmp_path: Path) -> Path:
    """A host file the sandbox must never get the host to read: it holds a passing reward."""
    secret = tmp_path / "host" / "secret"
    secret.parent.mkdir()
    secret.write_text("1")
    return secret


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs" / "verifier"
    folder.mkdir(parents=True)
    return folder


def test_a_regular_file_is_read_whole(logs: Path) -> None:
    (logs / "reward.txt").write_bytes(b"0.5\n")
    assert read_capped(logs / "reward.txt", 10) == b"0.5\n"
    assert read_capped(logs / "reward.txt", 4, base=logs) == b"0.5\n"


def test_a_file_over_the_limit_raises_too_large(logs: Path) -> None:
    (logs / "big").write_bytes(b"x" * 11)
    with pytest.raises(TooLarge):
        read_capped(logs / "big", 10)
    assert issubclass(TooLarge, OSError)


def test_a_missing_file_is_none(logs: Path) -> None:
    assert read_capped(logs / "absent", 10) is None
    assert read_capped(logs / "absent" / "deeper", 10, base=logs) is None


def test_a_link_to_a_host_file_is_never_read(logs: Path, host_secret: Path) -> None:
    (logs / "reward.txt").symlink_to(host_secret)
    assert read_capped(logs / "reward.txt", 10) is None
    assert tail_of(logs / "reward.txt", 10) == b""
    assert not contains(logs / "reward.txt", b"1")


def test_a_symlinked_reward_file_is_a_scoring_error_naming_the_link(
    logs: Path, host_secret: Path
) -> None:
    """Decided: a planted link is refused with its reason (SCORING_ERROR), not taken as absent:
    a verifier whose reward file is a link did something wrong that the record should say."""
    (logs / "reward.txt").symlink_to(host_secret)
    reading = read_rewards(logs)
    assert (reading.status, reading.reason) == (
        "SCORING_ERROR",
        "reward.txt: a symbolic link, not a regular file",
    )
    assert reading.primary is None and reading.rewards == {}


def test_a_2_mib_reward_json_is_a_scoring_error(logs: Path) -> None:
    (logs / "reward.json").write_bytes(b'{"reward": 1}' + b" " * (2 << 20))
    (logs / "reward.txt").write_text("1")
    reading = read_rewards(logs)
    assert (reading.status, reading.reason) == ("SCORING_ERROR", "reward.json: larger than 1 MiB")


def test_a_fifo_returns_at_once(logs: Path) -> None:
    fifo = logs / "test-stdout.txt"
    os.mkfifo(fifo)
    done = threading.Event()
    found: list[object] = []

    def read_all() -> None:
        found.extend([read_capped(fifo, 10), tail_of(fifo, 10), contains(fifo, b"x"), tail(fifo)])
        done.set()

    threading.Thread(target=read_all, daemon=True).start()
    assert done.wait(5), "a read of a FIFO blocked"
    assert found == [None, b"", False, ""]


def test_a_symlinked_parent_directory_is_refused_below_the_base(
    tmp_path: Path, host_secret: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "verifier").symlink_to(host_secret.parent)  # the sandbox swapped the dir for a link
    planted = logs / "verifier" / "secret"
    assert read_capped(planted, 10, base=logs) is None
    assert tail_of(planted, 10, base=logs) == b""
    assert not contains(planted, b"1", base=logs)
    assert tail(planted, base=logs) == ""
    assert read_capped(planted, 10) == b"1"  # without a base only the last component is checked


def test_a_path_outside_the_base_is_a_programming_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a file below"):
        read_capped(tmp_path / "a" / ".." / "b", 10, base=tmp_path / "a")
    with pytest.raises(ValueError):
        read_capped(Path("/etc/passwd"), 10, base=tmp_path)


def test_tail_of_gives_the_last_bytes(logs: Path) -> None:
    (logs / "out").write_bytes(b"0123456789")
    assert tail_of(logs / "out", 4) == b"6789"
    assert tail_of(logs / "out", 100, base=logs) == b"0123456789"
    assert tail(logs / "out", 3) == "789"


def test_contains_finds_text_across_a_block_boundary(logs: Path) -> None:
    path = logs / "out"
    path.write_bytes(b"x" * ((1 << 20) - 3) + b"[assay-tooling] ran")
    assert contains(path, b"[assay-tooling]", base=logs)
    assert not contains(path, b"missing")
    assert not contains(logs / "absent", b"x")


def test_copy_tree_keeps_links_as_links_and_never_copies_their_target(
    tmp_path: Path, host_secret: Path
) -> None:
    source = tmp_path / "artifacts"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "model.patch").write_text("diff")
    (source / "sub" / "model.patch").chmod(0o640)
    (source / "secret-link").symlink_to(host_secret)
    (source / "dir-link").symlink_to(host_secret.parent, target_is_directory=True)
    (source / "dangling").symlink_to("/nowhere/at/all")
    target = tmp_path / "copy"
    notes = copy_tree(source, target, limit_bytes=1 << 20)
    assert notes == []
    assert (target / "sub" / "model.patch").read_text() == "diff"
    assert (target / "sub" / "model.patch").stat().st_mode & 0o777 == 0o640
    for name, pointed in (
        ("secret-link", host_secret),
        ("dir-link", host_secret.parent),
        ("dangling", Path("/nowhere/at/all")),
    ):
        assert (target / name).is_symlink()
        assert os.readlink(target / name) == str(pointed)
    copied = [path for path in target.rglob("*") if not path.is_symlink() and path.is_file()]
    assert copied == [target / "sub" / "model.patch"]  # nothing of the host's files came along


def test_copy_tree_skips_fifos_sockets_and_files_past_the_limit(tmp_path: Path) -> None:
    source = tmp_path / "artifacts"
    source.mkdir()
    os.mkfifo(source / "pipe")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(source / "sock"))
        (source / "a-small").write_bytes(b"x" * 10)
        (source / "b-large").write_bytes(b"y" * 100)
        (source / "c-small").write_bytes(b"z" * 10)
        target = tmp_path / "copy"
        notes = copy_tree(source, target, limit_bytes=50)
    assert notes == [
        "copy_skipped:over_limit:b-large",
        "copy_skipped:fifo:pipe",
        "copy_skipped:socket:sock",
    ]
    assert sorted(path.name for path in target.iterdir()) == ["a-small", "c-small"]


def test_copy_tree_replaces_what_the_target_held_and_strips_set_user_id(tmp_path: Path) -> None:
    source = tmp_path / "artifacts"
    source.mkdir()
    (source / "tool").write_text("#!/bin/sh\n")
    (source / "tool").chmod(0o4755)
    target = tmp_path / "copy"
    target.mkdir()
    (target / "tool").symlink_to(
        tmp_path / "elsewhere"
    )  # a link in the target is not written through
    assert copy_tree(source, target, limit_bytes=1 << 20) == []
    assert not (target / "tool").is_symlink()
    assert (target / "tool").stat().st_mode & 0o7777 == 0o755
    assert not (tmp_path / "elsewhere").exists()


def test_copy_tree_of_a_source_that_is_a_link_copies_nothing(
    tmp_path: Path, host_secret: Path
) -> None:
    source = tmp_path / "artifacts"
    source.symlink_to(host_secret.parent)
    target = tmp_path / "copy"
    assert copy_tree(source, target, limit_bytes=1 << 20) == ["copy_skipped:link:."]
    assert list(target.iterdir()) == []
