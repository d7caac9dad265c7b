"""An image reference read as Docker reads one: registry, repository, tag and digest apart."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Docker Hub's official images, as Docker Hub and its mirrors spell them (docker.io/library/python,
# mirror.gcr.io/library/python, public.ecr.aws/docker/library/python): the same as plain `python`.
HUB_PREFIXES = ("docker/library/", "library/")
HUB = (None, "docker.io", "index.docker.io", "registry-1.docker.io")
VERSION = re.compile(r"\d+(\.\d+)*")


@dataclass(frozen=True)
class Reference:
    """One image reference: `text` as written (options such as --platform left out), the rest
    lower-cased for lookups."""

    text: str
    registry: str | None  # ghcr.io, localhost:5000; None for Docker Hub
    name: str  # the repository without registry or Docker Hub's library/: python, astral-sh/uv
    tag: str  # "latest" when none is written
    digest: str | None = None

    @property
    def words(self) -> list[str]:
        """The tag's words: `3.12-slim-bookworm` → ['3.12', 'slim', 'bookworm']."""
        return [word for word in self.tag.split("-") if word]

    def candidates(self) -> list[str]:
        """What a user's pattern is matched against: `name:tag`, and with the registry."""
        found = [f"{self.name}:{self.tag}"]
        if self.registry:
            found.append(f"{self.registry}/{self.name}:{self.tag}")
        return found


def parse_reference(image: str) -> Reference:
    """`[--platform=…] [registry[:port]/]name[:tag][@digest]` read apart; never fails (an empty or
    odd reference gives a name no table knows)."""
    words = [word for word in image.split() if not word.startswith("--")]
    text = words[0] if words else ""
    rest, _, digest = text.lower().partition("@")
    registry = None
    first, slash, remainder = rest.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        registry, rest = first, remainder
    path, colon, tag = rest.rpartition(":")
    if not colon or "/" in tag:
        path, tag = rest, ""
    for prefix in HUB_PREFIXES:
        if path.startswith(prefix):
            path = path.removeprefix(prefix)
            break
    return Reference(
        text, None if registry in HUB else registry, path, tag or "latest", digest or None
    )


def version_of(word: str) -> tuple[int, ...] | None:
    """`3.12.4` → (3, 12, 4), `3.13.0rc1` → (3, 13, 0); None when the word is not a version."""
    found = VERSION.match(word)
    if found is None:
        return None
    return tuple(int(part) for part in found.group(0).split("."))
