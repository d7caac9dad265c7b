"""The host's package cache across whole task runs: a second task run's `apt-get install` and
`pip install` are answered from it (the cache's own record says so), and an agent that writes
into every cache it can reach, and at the cache itself, changes nothing a later task run installs."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from sandboxkit import make_task
from sandboxrun import exec_action, run_one, script

from assay.world.container.packages import packages_dir, recorded

TOML = "[agent]\ntimeout_sec = 120\n[verifier]\ntimeout_sec = 600\n"
INSTALLS = """set -e
apt-get update
apt-get install -y --no-install-recommends python3-pip
pip install --break-system-packages six==1.16.0
python3 -c 'import six; assert six.__version__ == "1.16.0"'
echo 1 > /logs/verifier/reward.txt
"""


def kept_files(events: list) -> list:  # type: ignore[type-arg]
    """The answers for files the cache keeps for good: Debian pool files and PyPI's files."""
    return [event for event in events if "/pool/" in event.url or "/packages/" in event.url]


def test_a_second_task_runs_apt_and_pip_installs_come_from_the_cache(tmp_path: Path) -> None:
    task = make_task(tmp_path, "installs", test_sh=INSTALLS, solve_sh=":\n", toml=TOML)
    first_mark = len(recorded())
    first = run_one(task)
    assert first.outcome == "verified", script(first).get("test_stdout_tail")
    second_mark = len(recorded())
    second = run_one(task)
    assert second.outcome == "verified", script(second).get("test_stdout_tail")
    firsts, seconds = (
        kept_files(recorded()[first_mark:second_mark]),
        kept_files(recorded()[second_mark:]),
    )
    assert {event.outcome for event in firsts} >= {"fetched"}
    assert {(event.face, event.outcome) for event in seconds} == {("apt", "hit"), ("pypi", "hit")}
    assert sorted(event.url for event in seconds) == sorted(event.url for event in firsts)


# What an agent may try: a forged pytest in every cache directory it can write (uv's, pip's,
# apt's, any other), sent to the package cache by every method at the real wheel's path, and
# asked of it under forged names; the cache must keep none of it.
FORGE = r"""
import base64, io, json, os, urllib.request, zipfile
index = os.environ["PIP_INDEX_URL"]
base = index.split("/pypi/")[0]
forged = io.BytesIO()
with zipfile.ZipFile(forged, "w") as wheel:
    wheel.writestr("pytest/__init__.py", "FORGED = True\n__version__ = '8.4.1'\n")
    wheel.writestr("pytest-8.4.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: pytest\nVersion: 8.4.1\n")
    wheel.writestr("pytest-8.4.1.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    wheel.writestr("pytest-8.4.1.dist-info/RECORD", "")
data = forged.getvalue()
targets = ["/root/.cache/uv", "/root/.cache/pip", "/var/cache/apt/archives", "/tmp"]
for top in ("/root", "/var", "/tmp", "/usr/local", "/opt", "/etc"):
    for folder, dirs, _ in os.walk(top):
        targets += [os.path.join(folder, d) for d in dirs if "cache" in d.lower()]
for folder in targets:
    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "pytest-8.4.1-py3-none-any.whl"), "wb") as out:
            out.write(data)
    except OSError:
        pass
request = urllib.request.Request(index + "pytest/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
page = json.load(urllib.request.urlopen(request))
(wheel,) = [f for f in page["files"] if f["filename"] == "pytest-8.4.1-py3-none-any.whl"]
real = base + wheel["url"]
urllib.request.urlopen(real).read()  # kept, from PyPI: the one the forgeries aim at
forged_path = real.rsplit("/", 2)[0] + "/" + "0" * 60 + "/pytest-8.4.1-py3-none-any.whl"
for method in ("PUT", "POST", "PATCH", "DELETE"):
    for url in (real, forged_path, real + ".metadata"):
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=data, method=method))
        except Exception:
            pass
for url in (forged_path, base + "/pypi/files/../../pytest", base + "/pypi/simple/pytest/../../files/x"):
    try:
        urllib.request.urlopen(url)
    except Exception:
        pass
print("planted")
"""
GRADE = """uvx --with pytest==8.4.1 pytest /tests/test_genuine.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""
GENUINE = """
import pytest

def test_the_installed_pytest_is_pypis():
    assert not hasattr(pytest, "FORGED")
    assert pytest.__version__ == "8.4.1"
"""


def test_an_agent_that_writes_into_every_cache_changes_nothing_a_later_task_run_installs(
    tmp_path: Path,
) -> None:
    attack = make_task(
        tmp_path, "attack", test_sh="echo 0 > /logs/verifier/reward.txt\n", toml=TOML
    )
    encoded = base64.b64encode(FORGE.encode()).decode()
    forged = run_one(attack, actions=[exec_action(f"echo {encoded} | base64 -d | python3", 120)])
    tool_result = [
        event["result"]
        for step in forged.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result"
    ]
    assert tool_result[0]["stdout"].strip() == "planted", tool_result
    grader = make_task(
        tmp_path,
        "grader",
        test_sh=GRADE,
        solve_sh=":\n",
        toml=TOML,
        tests_files={"test_genuine.py": GENUINE},
    )
    mark = len(recorded())
    graded = run_one(grader)
    assert graded.outcome == "verified", script(graded).get("test_stdout_tail")
    served = [
        event for event in recorded()[mark:] if event.url.endswith("pytest-8.4.1-py3-none-any.whl")
    ]
    assert served and {event.outcome for event in served} == {"hit"}  # the attack run kept PyPI's
    for path in (packages_dir() / "pypi" / "files").rglob("*.whl"):
        assert hashlib.blake2b(path.read_bytes(), digest_size=32).hexdigest() == path.parent.name
        assert b"FORGED" not in path.read_bytes()
