"""The base for an image: a user's images.toml first, then the built-in table (images.py); and the
root built for it, and the default environment it seeds."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from assay.errors import SpecError
from assay.formats.container_images import IMAGES_FILE, ImageMapping, read_images_file
from assay.formats.files import shown
from assay.world.container.baseroot import BaseRootFailed, base_root
from assay.world.container.imageref import Reference, parse_reference
from assay.world.container.images import Base, builtin, mapped, python_env
from assay.world.container.rootpackages import root_packages
from assay.world.snapshot import cache_dir

DEFAULT = Base("")  # no image named: the default root, Docker's default PATH


class UnsupportedImage(Exception):
    """No root is like the image; str() is the task run's reason, with the way to map it."""


BASE_FAILURES = (UnsupportedImage, BaseRootFailed)  # what base_for raises


@dataclass(frozen=True)
class UserImages:
    """The mappings of the images.toml files that apply, the first file's first."""

    rules: tuple[tuple[str, ImageMapping], ...] = ()

    def find(self, ref: Reference) -> ImageMapping | None:
        """The first mapping whose pattern matches `ref` (a pattern without a tag matches any)."""
        for pattern, mapping in self.rules:
            wanted = pattern.lower()
            if ":" not in wanted.rpartition("/")[2]:
                wanted += ":*"
            if any(fnmatch.fnmatchcase(candidate, wanted) for candidate in ref.candidates()):
                return mapping
        return None


NO_USER = UserImages()


def load_user_images(task_set: Path) -> UserImages:
    """The mappings of `task_set/images.toml`, then of `$ASSAY_HOME/images.toml`; a SpecError
    naming the file and the field when one is wrong."""
    rules: list[tuple[str, ImageMapping]] = []
    for path in (task_set / IMAGES_FILE, cache_dir() / IMAGES_FILE):
        if path.exists():
            found = read_images_file(path)
            for pattern, mapping in found.images.items():
                _check_like(path, pattern, mapping)
                rules.append((pattern, mapping))
    return UserImages(tuple(rules))


def _check_like(path: Path, pattern: str, mapping: ImageMapping) -> None:
    if mapping.like is None:
        return
    start = builtin(parse_reference(mapping.like))
    field = f"images.{pattern}.like"
    if start.unsupported is not None:
        raise SpecError(shown(path), field, f"{mapping.like!r}: {start.unsupported}")


def lookup(image: str | None, user: UserImages = NO_USER) -> Base:
    """The base that stands for `image` (None or empty: the default root)."""
    if not image:
        return DEFAULT
    ref = parse_reference(image)
    mapping = user.find(ref)
    return builtin(ref) if mapping is None else _user_base(ref, mapping)


def _user_base(ref: Reference, mapping: ImageMapping) -> Base:
    """The mapping over its start: `like`'s base, else the table's for the image itself when the
    table maps it, else the default root."""
    start = builtin(parse_reference(mapping.like) if mapping.like else ref)
    if start.unsupported is not None:
        start = Base(ref.text)
    suite = mapping.suite or start.suite
    python = start.python if mapping.python is None else mapping.python
    env = {**start.env, **(python_env(suite) if python else {}), **mapping.env}
    what = [f"python{env['PYTHON_VERSION']}"] if python and "PYTHON_VERSION" in env else []
    return Base(
        ref.text,
        suite,
        (*start.packages, *mapping.packages),
        python,
        env,
        notes=tuple(f"{note} by {IMAGES_FILE}" for note in mapped(ref, suite, *what)),
    )


def build(base: Base) -> Path:
    """The root for `base`, built now unless cached (BaseRootFailed); UnsupportedImage if none can be."""
    if base.problem is not None:
        raise UnsupportedImage(base.problem)
    return base_root(base.suite, root_packages(base.suite, base.packages), python=base.python)


def base_for(image: str | None, user: UserImages = NO_USER) -> Path:
    """The root that stands for `image`, built now unless cached; UnsupportedImage if none can,
    BaseRootFailed if the build fails."""
    return build(lookup(image, user))


def image_env(image: str | None, user: UserImages = NO_USER) -> dict[str, str]:
    """The environment the image's own config sets (PATH always), to seed before the
    Dockerfile's own ENV and ARG."""
    return dict(lookup(image, user).env)
