"""Container-format task directories written into temporary directories, for tests of the sandbox runner."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

# Short limits so a test that hangs fails in seconds; the task has no [task] table, so its id is the
# directory's name.
DEFAULT_TOML = """\
[agent]
timeout_sec = 30

[verifier]
timeout_sec = 30
"""

SHEBANG = "#!/bin/bash\n"


def make_task(
    parent: Path,
    name: str,
    *,
    test_sh: str,
    solve_sh: str | None = None,
    toml: str = DEFAULT_TOML,
    instruction: str = "Do the thing.",
    dockerfile: str | None = None,
    environment_files: Mapping[str, str] = {},
    tests_files: Mapping[str, str] = {},
    pre_artifacts: str | None = None,
) -> Path:
    """Write the task directory `parent/name` and return it.

    test_sh, solve_sh, pre_artifacts: script bodies; `#!/bin/bash` is put first when they have no
    `#!` line, and every script (these and any `*.sh` among the extra files) is made executable.
    environment_files, tests_files: relative path → text, written under environment/ and tests/.
    """
    root = parent / name
    root.mkdir(parents=True)
    _write(root / "instruction.md", instruction)
    _write(root / "task.toml", toml)
    _write_script(root / "tests" / "test.sh", test_sh)
    if solve_sh is not None:
        _write_script(root / "solution" / "solve.sh", solve_sh)
    if pre_artifacts is not None:
        _write_script(root / "pre_artifacts.sh", pre_artifacts)
    if dockerfile is not None:
        _write(root / "environment" / "Dockerfile", dockerfile)
    _write_files(root / "environment", environment_files)
    _write_files(root / "tests", tests_files)
    return root


def reward_task(
    parent: Path,
    name: str,
    *,
    reward_txt: str | None = None,
    reward_json: str | None = None,
    exit_code: int = 0,
    sleep_s: float = 0,
) -> Path:
    """A task whose test.sh writes exactly these texts to the reward files, then sleeps, then exits.

    reward_txt, reward_json: the file's whole content (printf, no newline added); None writes no file.
    The solution does nothing, so the oracle and the noop agent leave the same state behind.
    """
    lines = ["mkdir -p /logs/verifier"]
    for file, text in (("reward.txt", reward_txt), ("reward.json", reward_json)):
        if text is not None:
            lines.append(f"printf '%s' {shlex.quote(text)} > /logs/verifier/{file}")
    if sleep_s > 0:
        lines.append(f"sleep {sleep_s}")
    lines.append(f"exit {exit_code}")
    return make_task(parent, name, test_sh="\n".join(lines) + "\n", solve_sh=":\n")


def _write_script(path: Path, body: str) -> None:
    _write(path, body if body.startswith("#!") else SHEBANG + body)
    path.chmod(0o755)


def _write_files(directory: Path, files: Mapping[str, str]) -> None:
    for relative, text in files.items():
        parts = PurePosixPath(relative).parts
        if not parts or PurePosixPath(relative).is_absolute() or ".." in parts:
            raise ValueError(f"{relative!r} is not a relative path inside {directory.name}/")
        path = directory.joinpath(*parts)
        if path.name.endswith(".sh"):
            _write_script(path, text)
        else:
            _write(path, text)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
