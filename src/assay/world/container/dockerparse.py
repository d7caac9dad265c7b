"""Dockerfile text as instructions: continuations joined, comments and directives skipped, heredocs kept."""

from __future__ import annotations

import re
from dataclasses import dataclass

# `(?<!<)`: bash's here-string `<<<"word"` is not a heredoc.
HEREDOC = re.compile(r"(?<!<)<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2")
HEREDOC_KEYWORDS = ("RUN", "COPY", "ADD")
DIRECTIVE = re.compile(r"^#\s*([A-Za-z]+)\s*=\s*(.*?)\s*$")


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction: its keyword in upper case, its arguments, the line it starts on."""

    keyword: str
    arguments: str
    line: int


def parse_dockerfile(text: str) -> list[Instruction]:
    """Instructions with `\\` continuations joined; comments, blank lines and directives skipped.

    A RUN, COPY or ADD with `<<WORD` heredocs carries their bodies and end lines in its arguments.
    """
    lines = text.splitlines()
    continued = re.compile(re.escape(escape_character(text)) + r"[ \t]*$")
    instructions: list[Instruction] = []
    at = 0
    while at < len(lines):
        if _skipped(lines[at]):
            at += 1
            continue
        start = at
        logical, at = _logical_line(lines, at, continued)
        match = re.match(r"(\S+)\s*(.*)", logical, re.DOTALL)
        if match is None:
            continue
        keyword, arguments = match[1].upper(), match[2]
        if keyword in HEREDOC_KEYWORDS:
            arguments, at = _with_heredocs(arguments, lines, at)
        instructions.append(Instruction(keyword, arguments, start + 1))
    return instructions


def escape_character(text: str) -> str:
    """The `# escape=` parser directive's character (a backtick for Windows files), else `\\`."""
    for line in text.splitlines():
        directive = DIRECTIVE.match(line.strip())
        if directive is None:
            break  # directives only lead the file
        if directive[1].lower() == "escape" and directive[2] in ("\\", "`"):
            return directive[2]
    return "\\"


def _skipped(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _logical_line(lines: list[str], at: int, continued: re.Pattern[str]) -> tuple[str, int]:
    parts: list[str] = []
    while at < len(lines):
        end = continued.search(lines[at])
        if end is None:
            parts.append(lines[at])
            return "".join(parts).strip(), at + 1
        parts.append(lines[at][: end.start()])
        at += 1
        while at < len(lines) and _skipped(lines[at]):
            at += 1  # comments and blank lines inside a continuation are dropped, as Docker does
    return "".join(parts).strip(), at


def _with_heredocs(arguments: str, lines: list[str], at: int) -> tuple[str, int]:
    for dash, _quote, end_word in HEREDOC.findall(arguments):
        body: list[str] = []
        while at < len(lines):
            line = lines[at]
            at += 1
            body.append(line)
            if (line.lstrip("\t") if dash else line) == end_word:
                break
        arguments += "\n" + "\n".join(body)
    return arguments, at
