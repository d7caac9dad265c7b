"""The pages of README.md and docs/, and the shell blocks they show, with how each is marked.

A shell block is a ```console block whose commands start with `$ ` (a line ending in `\\` goes on
to the next); the lines after a command are what it prints. HTML comments, each on a line of its
own just above a block's fence, mark it:

- `<!-- exit: N -->`: every command of the block exits N, not 0;
- `<!-- no-run: REASON -->`: it cannot run here, and why;
- `<!-- run-by: tests/… -->`: a script that test runs as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHELLS = frozenset({"console", "sh", "bash", "shell", "zsh"})
MARK = re.compile(r"^<!--\s*(no-run|exit|run-by):\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository root
    line: int  # of the opening fence
    language: str
    text: str
    marks: dict[str, str]

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def commands(self) -> list[str]:
        return [command for command, _ in self.steps]

    @property
    def steps(self) -> list[tuple[str, list[str]]]:
        """Each `$ ` command, continuation lines joined on, with the output lines shown after it."""
        found: list[tuple[str, list[str]]] = []
        going_on = False
        for line in self.text.splitlines():
            if going_on:
                command, shown = found[-1]
                found[-1] = (command[:-1] + " " + line.strip(), shown)
            elif line.startswith("$ "):
                found.append((line[2:].strip(), []))
            elif found and line.strip():
                found[-1][1].append(line.strip())
                continue
            else:
                continue
            going_on = found[-1][0].endswith("\\")
        return found


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, with the marks just above it."""
    lines = page.read_text().splitlines()
    found = []
    index = 0
    while index < len(lines):
        fence = re.match(r"^(`{3,})\s*([\w-]*)", lines[index])
        if not fence:
            index += 1
            continue
        end = next(
            (at for at in range(index + 1, len(lines)) if lines[at].startswith(fence.group(1))),
            len(lines),
        )
        found.append(
            Block(
                page=(page.relative_to(ROOT) if page.is_relative_to(ROOT) else page).as_posix(),
                line=index + 1,
                language=fence.group(2),
                text="\n".join(lines[index + 1 : end]) + "\n",
                marks=_marks_above(lines, index),
            )
        )
        index = end + 1
    return found


def shell_blocks() -> list[Block]:
    return [block for page in pages() for block in blocks(page) if block.language in SHELLS]


def run_by(test_file: str) -> list[Block]:
    """The blocks a test says it runs (`<!-- run-by: tests/… -->`)."""
    return [
        block for block in shell_blocks() if block.marks.get("run-by", "").startswith(test_file)
    ]


def _marks_above(lines: list[str], fence: int) -> dict[str, str]:
    marks = {}
    above = fence - 1
    while above >= 0 and (mark := MARK.match(lines[above].strip())):
        marks[mark.group(1)] = mark.group(2)
        above -= 1
    return marks
