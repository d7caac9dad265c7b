"""images.toml: a user's own mappings of image names to the Debian root that stands for them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, StrictBool, StringConstraints

from assay.formats.files import parse_model, read_toml, shown

# The Debian suites a root can be built from (deb.debian.org carries them).
SuiteName = Literal["bullseye", "bookworm", "trixie"]
SUITE_NAMES: tuple[str, ...] = get_args(SuiteName)
IMAGES_FILE = "images.toml"

Pattern = Annotated[str, StringConstraints(pattern=r"^\S+$")]  # fnmatch: *, ?, [...]
PackageName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9+.-]*(:[a-z0-9-]+)?$")]
EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class ImageMapping(BaseModel, defer_build=True):
    """What root stands for the images a pattern matches; every key is optional.

    like: start from what the built-in table gives this image (`python:3.11-slim`); without it,
    from what the table gives the matched image itself, or the default root where it gives none.
    suite, python: replace the start's; packages are added to its; env is set over its.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    like: str | None = None
    suite: SuiteName | None = None
    packages: tuple[PackageName, ...] = ()
    python: StrictBool | None = None
    env: dict[EnvName, str] = {}


class ImagesFile(BaseModel, defer_build=True):
    """`[images."PATTERN"]` tables, in the order written: the first whose pattern matches wins."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    images: dict[Pattern, ImageMapping] = {}


def read_images_file(path: Path) -> ImagesFile:
    """An images.toml as its model; a SpecError naming the file and the field when it is wrong."""
    return parse_model(ImagesFile, read_toml(path), shown(path))
