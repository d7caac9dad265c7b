"""Where a Dockerfile's COPY and ADD sources are in the build context, and where they land."""

from __future__ import annotations

import glob
import posixpath
import re
from pathlib import Path

from assay.errors import SpecError
from assay.spec.files import shown

ARCHIVE_ENDINGS = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst")
REMOTE = re.compile(r"^(https?://|git@|git://)")
GLOB_CHARACTERS = re.compile(r"[*?\[]")


class CopySources:
    """A build context: COPY and ADD sources are looked up in it and refused outside it."""

    def __init__(self, context: Path, dockerfile: str):
        self.context = context
        self.root = context.resolve()
        self.dockerfile = dockerfile
        self.known_dirs = {"/"}  # directories the build made, so `COPY a /made` goes inside

    def items(
        self, keyword: str, sources: list[str], destination: str, workdir: str, line: int
    ) -> tuple[list[tuple[Path, str]], list[str]]:
        """(host source, absolute target) pairs by Docker's rules, and notes on what was skipped."""
        notes: list[str] = []
        target = _absolute(destination, workdir)
        into = _names_a_directory(destination) or target in self.known_dirs
        found: list[Path] = []
        for source in sources:
            if keyword == "ADD" and REMOTE.match(source):
                notes.append(f"add_url_unsupported:{source}")
                continue
            found += self._expanded(source, line)
        if len(found) > 1 and not into:
            message = f"{keyword} of several sources needs a destination ending in '/'"
            raise SpecError(self.dockerfile, f"line {line}", f"{message}, not {destination!r}")
        items: list[tuple[Path, str]] = []
        for path in found:
            if path.is_dir():
                items.append((path, target))
                self.known_dirs.add(target)
                continue
            items.append((path, posixpath.join(target, path.name) if into else target))
            if into:
                self.known_dirs.add(target)
            if keyword == "ADD" and path.name.endswith(ARCHIVE_ENDINGS):
                notes.append(f"add_archive_copied_unpacked_not:{path.relative_to(self.root)}")
        return items, notes

    def made_directory(self, path: str) -> None:
        """A WORKDIR made this directory: a later COPY to it puts files inside it."""
        self.known_dirs.add(path)

    def _expanded(self, source: str, line: int) -> list[Path]:
        relative = source.lstrip("/") or "."  # an absolute source is relative to the context
        if GLOB_CHARACTERS.search(relative):
            matches = sorted(glob.glob(relative, root_dir=self.context, include_hidden=True))
            if not matches:
                where = f"the build context {shown(self.context)}"
                raise SpecError(
                    self.dockerfile, f"line {line}", f"{source!r} matches nothing in {where}"
                )
        else:
            matches = [relative]
        return [self._inside(source, match, line) for match in matches]

    def _inside(self, source: str, relative: str, line: int) -> Path:
        path = (self.context / relative).resolve()
        if not path.is_relative_to(self.root):
            message = f"{source!r} is outside the build context {shown(self.context)}"
            raise SpecError(self.dockerfile, f"line {line}", message)
        if not path.exists():
            message = f"{source!r} is not in the build context {shown(self.context)}"
            raise SpecError(self.dockerfile, f"line {line}", message)
        return path


def _absolute(destination: str, workdir: str) -> str:
    joined = posixpath.normpath(posixpath.join(workdir, destination))
    return "/" + joined.lstrip("/")  # normpath keeps a leading `//`


def _names_a_directory(destination: str) -> bool:
    return destination.endswith(("/", "/.", "/..")) or destination in (".", "..")
