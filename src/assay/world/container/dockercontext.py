"""Where a Dockerfile's COPY and ADD sources are in the build context, and where they land."""

from __future__ import annotations

import glob
import posixpath
import re
import tarfile
from pathlib import Path

from assay.errors import SpecError
from assay.formats.files import shown
from assay.world.container.dockerignore import DockerIgnore

GLOB_CHARACTERS = re.compile(r"[*?\[]")


class CopySources:
    """A build context: COPY and ADD sources are looked up in it (what .dockerignore leaves out is
    not there) and refused outside it."""

    def __init__(self, context: Path, dockerfile: str, ignore: DockerIgnore):
        self.context = context
        self.root = context.resolve()
        self.dockerfile = dockerfile
        self.left_out = ignore.left_out(self.root)

    def items(
        self, keyword: str, sources: list[str], target: str, into: bool, line: int
    ) -> list[tuple[Path, str]]:
        """(host source, absolute target) pairs by Docker's rules; `into` when the destination
        names a directory (it ends in '/', or the build made it)."""
        found = [path for source in sources for path in self._expanded(source, line)]
        if len(found) > 1 and not into:
            message = f"{keyword} of several sources needs a destination ending in '/'"
            raise SpecError(self.dockerfile, f"line {line}", f"{message}, not {target!r}")
        items: list[tuple[Path, str]] = []
        for path in found:
            if path.is_dir():
                items.append((path, target))
            else:
                items.append((path, posixpath.join(target, path.name) if into else target))
        return items

    def skipped_under(self, path: Path) -> frozenset[Path]:
        """What .dockerignore leaves out under the source `path`."""
        return frozenset(left for left in self.left_out if left.is_relative_to(path))

    def _expanded(self, source: str, line: int) -> list[Path]:
        relative = source.lstrip("/") or "."  # an absolute source is relative to the context
        if GLOB_CHARACTERS.search(relative):
            matches = sorted(glob.glob(relative, root_dir=self.context, include_hidden=True))
            paths = [self._inside(source, match, line) for match in matches]
            paths = [path for path in paths if not self._left_out(path)]
            if not paths:
                where = f"the build context {shown(self.context)}"
                raise SpecError(
                    self.dockerfile, f"line {line}", f"{source!r} matches nothing in {where}"
                )
            return paths
        path = self._inside(source, relative, line)
        if self._left_out(path):
            message = f"{source!r} is left out of the build context by .dockerignore"
            raise SpecError(self.dockerfile, f"line {line}", message)
        return [path]

    def _left_out(self, path: Path) -> bool:
        return any(path.is_relative_to(left) for left in self.left_out)

    def _inside(self, source: str, relative: str, line: int) -> Path:
        path = (self.context / relative).resolve()
        if not path.is_relative_to(self.root):
            message = f"{source!r} is outside the build context {shown(self.context)}"
            raise SpecError(self.dockerfile, f"line {line}", message)
        if not path.exists():
            message = f"{source!r} is not in the build context {shown(self.context)}"
            raise SpecError(self.dockerfile, f"line {line}", message)
        return path


def is_archive(path: Path) -> bool:
    """Whether ADD unpacks `path`: a tar archive, plain or gzip, bzip2 or xz compressed, by its
    content and never its name (as Docker decides)."""
    if not path.is_file():
        return False
    try:
        return tarfile.is_tarfile(path)
    except (OSError, EOFError, tarfile.TarError):
        return False


def absolute(destination: str, workdir: str) -> str:
    """A destination against WORKDIR, as an absolute path."""
    joined = posixpath.normpath(posixpath.join(workdir, destination))
    return "/" + joined.lstrip("/")  # normpath keeps a leading `//`


def names_a_directory(destination: str) -> bool:
    """Whether a destination as written says it is a directory."""
    return destination.endswith(("/", "/.", "/..")) or destination in (".", "..")
