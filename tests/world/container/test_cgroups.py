from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.world.container import cgroups
from assay.world.container.cgroup_placement import STALE_S, enable, place_v2
from assay.world.container.cgroups import Cgroup, Limits, own_cgroups, rlimits_for

NOBODY = 65534
# Moves the shell into the group (writing "0" moves the writer) before it execs the command, so
# nothing the command starts can be outside it.
ENTER = 'for f in $PROCS; do echo 0 > "$f" || exit 99; done; exec "$@"'
ALLOC = "b = bytearray({mb} << 20)\nfor i in range(0, len(b), 4096):\n    b[i] = 1\nprint('done')"
BUSY = "import os, time\nend = time.monotonic() + 1.0\nwhile time.monotonic() < end:\n    pass\nt = os.times()\nprint(t.user + t.system)"


def v2_root() -> Path | None:
    """A cgroup v2 hierarchy on this machine: the unified root, or the hybrid one beside v1."""
    for root in (cgroups.ROOT, cgroups.ROOT / "unified"):
        if (root / "cgroup.controllers").exists():
            return root
    return None


ROOTS = [pytest.param(cgroups.ROOT, id="machine")]
if v2_root() not in (None, cgroups.ROOT):
    ROOTS.append(pytest.param(v2_root(), id="hybrid-v2"))


@pytest.fixture
def make_group() -> Iterator[Callable[..., Cgroup]]:
    """Create groups; each is removed at the end, and must then be gone."""
    made: list[Cgroup] = []

    def make(limits: Limits, root: Path = cgroups.ROOT) -> Cgroup:
        group = Cgroup.create("test", limits, root=root)
        made.append(group)
        return group

    yield make
    for group in made:
        group.remove()
    for group in made:
        assert group.unremoved == []
        assert not any(d.exists() for d in group.dirs.values())


def require(group: Cgroup, limit: str) -> None:
    """Skip where this machine cannot enforce `limit`; fail where it plainly should (root, v1)."""
    if limit not in group.unenforced:
        return
    controller = cgroups.CONTROLLERS[limit]
    hierarchy = cgroups.ROOT / controller
    if (
        os.geteuid() == 0
        and (hierarchy / "cgroup.procs").exists()
        and os.access(hierarchy, os.W_OK)
    ):
        pytest.fail(f"{limit} not enforced on a writable v1 hierarchy: {group.unenforced[limit]}")
    pytest.skip(f"{limit} cannot be enforced here: {group.unenforced[limit]}")


def run_in(group: Cgroup, argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PROCS": " ".join(str(p) for p in group.procs_files)}
    return subprocess.run(
        ["sh", "-c", ENTER, "sh", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        **options,  # type: ignore[arg-type]
    )


def gone(pid: int) -> bool:
    """No such process, or only its zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


# --- Limits on a real kernel ---


def test_memory_limit_kills_what_exceeds_it(make_group: Callable[..., Cgroup]) -> None:
    group = make_group(Limits(memory_mb=64))
    require(group, "memory_mb")
    big = run_in(group, [sys.executable, "-I", "-S", "-c", ALLOC.format(mb=256)])
    assert big.returncode == -signal.SIGKILL, big
    small = run_in(group, [sys.executable, "-I", "-S", "-c", ALLOC.format(mb=16)])
    assert (small.returncode, small.stdout) == (0, "done\n"), small
    peak = group.peak_memory_mb()
    if peak is not None:
        assert 16 < peak <= 64 + 1


def test_pids_limit_stops_forks(make_group: Callable[..., Cgroup]) -> None:
    if shutil.which("dash") is None:
        pytest.skip("no dash (a shell that gives up at its first failed fork, not retrying)")
    group = make_group(Limits(pids=50))
    require(group, "pids")
    loop = "for i in $(seq 200); do sleep 5 >/dev/null 2>&1 & echo started; done; wait"
    done = run_in(group, ["dash", "-c", loop])
    started = done.stdout.count("started")
    assert 0 < started <= 50, done
    assert "fork" in done.stderr.lower(), done
    group.kill_all()


def test_cpu_limit_slows_a_busy_loop(make_group: Callable[..., Cgroup]) -> None:
    group = make_group(Limits(cpus=0.5))
    require(group, "cpus")
    done = run_in(group, [sys.executable, "-I", "-S", "-c", BUSY])
    assert done.returncode == 0, done
    assert float(done.stdout) < 0.8  # about 0.5 s of CPU in 1 s of wall time


# --- Killing and removing ---

TREE = """
import os, sys, time
sys.stdin.readline()  # forks only once it has been attached
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        print(os.getpid(), flush=True)
        time.sleep(120)
    os._exit(0)
time.sleep(120)
"""


@pytest.mark.parametrize("root", ROOTS)
def test_kill_all_kills_a_daemonised_grandchild(
    make_group: Callable[..., Cgroup], root: Path
) -> None:
    group = make_group(Limits(pids=100), root)
    if not group.dirs:
        pytest.skip(f"no cgroup can be made here: {group.unenforced}")
    assert_kills_tree(group)


def test_kill_all_without_a_freezer(make_group: Callable[..., Cgroup]) -> None:
    group = make_group(Limits(pids=100))
    if group.version != 1 or "freezer" not in group.dirs or len(group.dirs) < 2:
        pytest.skip("needs a v1 group with a freezer and another controller")
    group.dirs.pop("freezer").rmdir()  # as on a machine without the freezer hierarchy
    assert_kills_tree(group)


def assert_kills_tree(group: Cgroup) -> None:
    tree = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", TREE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        group.attach(tree.pid)
        assert tree.stdin is not None and tree.stdout is not None
        tree.stdin.write("go\n")
        tree.stdin.flush()
        daemon = int(tree.stdout.readline())
        assert not gone(daemon)
        group.kill_all()
        assert tree.wait(timeout=10) == -signal.SIGKILL
        deadline = time.monotonic() + 10
        while not gone(daemon) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gone(daemon)
        assert all(p.read_text() == "" for p in group.procs_files)
    finally:
        tree.kill()
        tree.wait()


@pytest.mark.parametrize("root", ROOTS)
def test_remove_leaves_nothing_and_can_repeat(root: Path) -> None:
    group = Cgroup.create("test", Limits(memory_mb=64, pids=100, cpus=1), root=root)
    try:
        if not group.dirs:
            pytest.skip(f"no cgroup can be made here: {group.unenforced}")
        sleeper = subprocess.Popen(["sleep", "60"])
        group.attach(sleeper.pid)
        group.remove()
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert group.unremoved == []
        assert not any(d.exists() for d in group.dirs.values())
    finally:
        group.remove()
    assert group.unremoved == []


def test_names_are_unique(make_group: Callable[..., Cgroup]) -> None:
    first, second = make_group(Limits()), make_group(Limits())
    if not first.dirs:
        pytest.skip(f"no cgroup can be made here: {first.unenforced}")
    assert set(first.dirs.values()).isdisjoint(second.dirs.values())


# --- Machines that cannot ---


@pytest.fixture
def unwritable_tree() -> Iterator[Callable[[str], Path]]:
    """A cgroup-looking tree nobody may write to: v1 controller dirs, or a v2 root."""
    made: list[Path] = []

    def tree(kind: str) -> Path:
        root = Path(tempfile.mkdtemp(prefix="assay-cgroup-test-"))
        made.append(root)
        dirs = [root / c for c in ("memory", "pids", "cpu", "freezer")] if kind == "v1" else []
        for directory in dirs:
            directory.mkdir()
            (directory / "cgroup.procs").write_text("")
        if kind == "v2":
            (root / "cgroup.controllers").write_text("cpu memory pids\n")
            (root / "cgroup.procs").write_text("")
        for directory in [*dirs, root]:
            directory.chmod(0o555)
        return root

    yield tree
    for root in made:
        for directory in [root, *root.iterdir()]:
            if directory.is_dir():
                directory.chmod(0o755)
        shutil.rmtree(root)


def create_as_nobody(root: Path, limits: Limits) -> dict[str, object]:
    """Cgroup.create in a child that cannot write `root` (root itself writes anywhere)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            group = Cgroup.create("test", limits, root=root)
            rlimits, notes = rlimits_for(limits, group.unenforced)
            found = {"version": group.version, "dirs": [str(d) for d in group.dirs.values()]}
            found |= {"unenforced": group.unenforced, "rlimits": rlimits, "notes": notes}
            os.write(write, json.dumps(found).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(text)


@pytest.mark.parametrize("kind", ["v1", "v2"])
def test_an_unwritable_hierarchy_degrades(
    unwritable_tree: Callable[[str], Path], kind: str
) -> None:
    limits = Limits(memory_mb=64, pids=50, cpus=0.5)
    found = create_as_nobody(unwritable_tree(kind), limits)
    assert found["version"] is None and found["dirs"] == []
    unenforced = found["unenforced"]
    assert isinstance(unenforced, dict) and set(unenforced) == {"memory_mb", "pids", "cpus"}
    expected = "no writable memory cgroup" if kind == "v1" else "no writable cgroup v2 group"
    assert expected in unenforced["memory_mb"]
    assert "Permission denied" in unenforced["memory_mb"]
    assert found["rlimits"] == {
        str(resource.RLIMIT_AS): [64 << 20, 64 << 20],
        str(resource.RLIMIT_NPROC): [50, 50],
    }
    notes = found["notes"]
    assert isinstance(notes, list) and len(notes) == 3
    assert notes[0].startswith(f"memory_mb_as_address_space: {expected}")
    assert notes[1].startswith("pids_as_nproc: ")
    assert notes[2].startswith("cpus_not_enforced: ")


def test_no_hierarchy_at_all_degrades(tmp_path: Path) -> None:
    group = Cgroup.create("test", Limits(memory_mb=64, pids=50, cpus=1), root=tmp_path)
    assert (group.version, group.dirs) == (None, {})
    assert group.unenforced == {
        "memory_mb": f"no memory cgroup hierarchy at {tmp_path / 'memory'}",
        "pids": f"no pids cgroup hierarchy at {tmp_path / 'pids'}",
        "cpus": f"no cpu cgroup hierarchy at {tmp_path / 'cpu'}",
    }
    group.kill_all()
    group.remove()
    assert group.peak_memory_mb() is None
    assert list(tmp_path.iterdir()) == []


# --- Pure functions ---


def test_rlimits_for_approximates_only_what_is_unenforced() -> None:
    limits = Limits(memory_mb=512, pids=100, cpus=2)
    assert rlimits_for(limits, {}) == ({}, [])
    rlimits, notes = rlimits_for(limits, {"memory_mb": "no writable memory cgroup: x"})
    assert rlimits == {resource.RLIMIT_AS: (512 << 20, 512 << 20)}
    assert notes == ["memory_mb_as_address_space: no writable memory cgroup: x"]
    rlimits, notes = rlimits_for(limits, dict.fromkeys(["pids", "cpus"], "why"))
    assert rlimits == {resource.RLIMIT_NPROC: (100, 100)}
    assert notes == ["pids_as_nproc: why", "cpus_not_enforced: why"]
    assert rlimits_for(Limits(), dict.fromkeys(["memory_mb", "pids", "cpus"], "why")) == ({}, [])


def test_limits_must_be_positive() -> None:
    for bad in ({"memory_mb": 0}, {"pids": -1}, {"cpus": 0.0}):
        with pytest.raises(ValueError):
            Limits(**bad)  # type: ignore[arg-type]
    assert cgroups.DEFAULT_PIDS == 1024


def test_own_cgroups_reads_v1_and_v2_lines() -> None:
    text = "12:cpu,cpuacct:/a\n4:memory:/process_api/x\n1:name=systemd:/s\n0::/user.slice/u.scope\n"
    assert own_cgroups(text) == {
        "cpu": "/a",
        "cpuacct": "/a",
        "memory": "/process_api/x",
        "name=systemd": "/s",
        "": "/user.slice/u.scope",
    }
    assert "" in own_cgroups()


# --- cgroup v2 placement, with the one controller a hybrid machine's v2 hierarchy may offer ---


@pytest.fixture
def occupied_v2_group() -> Iterator[tuple[Path, Path]]:
    """root/P/X on a v2 hierarchy with hugetlb, where X holds a process and P holds none."""
    root = v2_root()
    if root is None or "hugetlb" not in (root / "cgroup.controllers").read_text().split():
        pytest.skip("no cgroup v2 hierarchy offering hugetlb here")
    if not os.access(root, os.W_OK):
        pytest.skip(f"{root} is not writable")
    enabled = (root / "cgroup.subtree_control").read_text().split()
    parent = root / f"assay-test-{os.getpid()}"
    own = parent / "x"
    own.mkdir(parents=True)
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        (own / "cgroup.procs").write_text(str(sleeper.pid))
        yield root, own
    finally:
        sleeper.kill()
        sleeper.wait()
        for directory in sorted(parent.rglob("*"), key=lambda p: -len(p.parts)):
            if directory.is_dir():
                directory.rmdir()
        parent.rmdir()
        if "hugetlb" not in enabled:  # as it was: create() enabled it from the root down
            (root / "cgroup.subtree_control").write_text("-hugetlb")


def test_v2_group_goes_beside_an_occupied_own_group(
    occupied_v2_group: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, own = occupied_v2_group
    # hugetlb stands in for pids: the placement rules are the same for every controller
    monkeypatch.setitem(cgroups.CONTROLLERS, "pids", "hugetlb")
    group = Cgroup(*place_v2("t", Limits(pids=10), root, "/" + str(own.relative_to(root))))
    try:
        assert group.version == 2
        made = group.dirs[""]
        assert made.parent == own.parent / "assay"  # not inside the group that holds a process
        assert "hugetlb" in (made / "cgroup.controllers").read_text().split()
        assert not (own / "assay").exists()  # the first try, inside it, was taken back
        # and the rule it avoided: a group with processes cannot enable controllers below it
        refused = enable(own, {"hugetlb"})
        assert refused and "busy" in refused[0].lower()
    finally:
        group.remove()
    assert not group.dirs[""].exists() and group.unremoved == []


def test_an_empty_group_a_killed_assay_left_behind_is_removed_by_the_next_create() -> None:
    first = Cgroup.create("left", Limits(pids=64))
    assert first.version == 1 and "pids" in first.dirs, "this machine's pids hierarchy is v1"
    stale = first.dirs["pids"]
    first.dirs.pop("pids")  # as if its assay had died: nothing will remove it
    first.remove()
    old = time.time() - 2 * STALE_S
    os.utime(stale, (old, old))
    young = Cgroup.create("young", Limits(pids=64))
    try:
        assert not stale.exists()
    finally:
        young.remove()
