""".dockerignore by Docker's rules: which entries of a build context COPY, ADD and the cache key leave out.

The rules are moby's patternmatcher's: each line is a pattern relative to the context root (a
leading `/` dropped, the path cleaned), `*` and `?` never match `/`, `**` matches any number of
directories, `!` makes an exception, the last matching pattern decides, and a pattern that matches
a directory leaves out everything under it unless a later exception takes something back.
gitignore's rules differ (a name without `/` matches at any depth there), so pathspec would be wrong.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from assay.errors import SpecError
from assay.formats.files import read_text, shown

IGNORE_FILE = ".dockerignore"
BOM = "\ufeff"
REGEX_SPECIAL = set(".+()|{}$^")


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    exception: bool


class DockerIgnore:
    """The patterns of one .dockerignore; `left_out` walks a context with them."""

    def __init__(self, patterns: list[_Pattern]):
        self.patterns = patterns
        self.has_exceptions = any(pattern.exception for pattern in patterns)

    @classmethod
    def none(cls) -> DockerIgnore:
        return cls([])

    @classmethod
    def parse(cls, text: str, where: str) -> DockerIgnore:
        """The patterns of a .dockerignore's text; a pattern Docker refuses is a SpecError."""
        patterns = []
        for number, line in enumerate(text.removeprefix(BOM).splitlines(), start=1):
            if line.startswith("#"):
                continue
            pattern = line.strip()
            if not pattern:
                continue
            exception = pattern.startswith("!")
            if exception:
                pattern = pattern[1:].strip()
                if not pattern:
                    raise SpecError(where, f"line {number}", "'!' alone is not a pattern")
            try:
                regex = re.compile(_regex(_cleaned(pattern)))
            except re.error as error:
                raise SpecError(where, f"line {number}", f"{line.strip()!r}: {error}") from None
            patterns.append(_Pattern(regex, exception))
        return cls(patterns)

    def excluded(self, relative: str) -> bool:
        """Whether the context entry at `relative` (a/b/c, from the context root) is left out."""
        parents = relative.split("/")[:-1]
        ancestors = ["/".join(parents[: index + 1]) for index in range(len(parents))]
        matched = False
        for pattern in self.patterns:
            if pattern.exception != matched:
                continue  # only an exception can take back, only a pattern can leave out
            if pattern.regex.match(relative) or any(pattern.regex.match(a) for a in ancestors):
                matched = not pattern.exception
        return matched

    def left_out(self, context: Path) -> frozenset[Path]:
        """The entries of `context` left out with everything under them: each excluded entry,
        except a directory that still holds something an exception takes back (its parts are
        then listed one by one)."""
        if not self.patterns:
            return frozenset()
        return frozenset(self._walk(context, "")[1])

    def _walk(self, directory: Path, prefix: str) -> tuple[bool, list[Path]]:
        """Whether anything under `directory` is kept, and what is left out there."""
        kept_any, left_out = False, []
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError:
            return False, []
        for entry in entries:
            relative = f"{prefix}{entry.name}"
            path = directory / entry.name
            excluded = self.excluded(relative)
            if entry.is_dir(follow_symlinks=False) and (not excluded or self.has_exceptions):
                kept_inside, inside = self._walk(path, f"{relative}/")
                if excluded and not kept_inside:
                    left_out.append(path)  # the whole directory, not each entry of it
                    continue
                kept_any = True
                left_out += inside
            elif excluded:
                left_out.append(path)
            else:
                kept_any = True
        return kept_any, left_out


def read_dockerignore(dockerfile: Path, context: Path) -> DockerIgnore:
    """The ignore file that applies: `<Dockerfile name>.dockerignore` beside the Dockerfile, as
    BuildKit reads first, else the context's own .dockerignore, else none."""
    for candidate in (
        dockerfile.with_name(f"{dockerfile.name}{IGNORE_FILE}"),
        context / IGNORE_FILE,
    ):
        if candidate.is_file():
            return DockerIgnore.parse(read_text(candidate), shown(candidate))
    return DockerIgnore.none()


def _cleaned(pattern: str) -> str:
    """Go's filepath.Clean, then a leading `/` dropped: patterns are relative to the context."""
    cleaned = posixpath.normpath(pattern)
    if cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")
    return cleaned[1:] if len(cleaned) > 1 and cleaned.startswith("/") else cleaned


def _regex(pattern: str) -> str:
    """The pattern as a whole-path regex, as moby's patternmatcher compiles it."""
    out = ["^"]
    at, in_class = 0, False
    while at < len(pattern):
        char = pattern[at]
        at += 1
        if in_class:
            out.append("\\\\" if char == "\\" else char)
            in_class = char != "]"
        elif char == "*" and pattern[at : at + 1] == "*":
            at += 1
            if pattern[at : at + 1] == "/":
                at += 1  # `**/` is `**`
            out.append(".*" if at >= len(pattern) else "(.*/)?")
        elif char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            out.append("[")
            in_class = True
        elif char == "\\" and at < len(pattern):
            out.append(re.escape(pattern[at]))
            at += 1
        elif char in REGEX_SPECIAL or char == "\\":
            out.append("\\" + char)
        else:
            out.append(char)
    if in_class:
        raise re.error("a '[' is not closed")
    out.append("$")
    return "".join(out)
