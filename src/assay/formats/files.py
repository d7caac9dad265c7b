"""Reading the files users write, turning every failure into a SpecError that names file and field."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from assay.errors import SpecError

Model = TypeVar("Model", bound=BaseModel)


def shown(path: Path) -> str:
    """The path as a user would type it: relative to the working directory when it is below it."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def read_bytes(path: Path) -> bytes:
    """A file a world names, as bytes; else a SpecError."""
    if path.is_dir():
        raise SpecError(shown(path), None, "is a directory, not a file")
    if not path.is_file():
        raise SpecError(shown(path), None, "file not found")
    try:
        return path.read_bytes()
    except OSError as error:
        raise SpecError(shown(path), None, f"cannot read: {error.strerror or error}") from None


def read_text(path: Path, data: bytes | None = None) -> str:
    """A file a world names, as text: UTF-8, a leading byte-order mark dropped; else a SpecError.
    `data`: its bytes, read already."""
    if data is None:
        data = read_bytes(path)
    if b"\0" in data:
        raise SpecError(shown(path), None, f"not text: a NUL byte at byte {data.index(0)}")
    try:
        return data.decode("utf-8-sig")  # the bytes as they are: no newline translation
    except UnicodeDecodeError as error:
        where = f"byte {error.start}: {error.reason}"
        raise SpecError(shown(path), None, f"not UTF-8 text ({where})") from None


def read_toml(path: Path, data: bytes | None = None) -> dict[str, Any]:
    """A TOML file's data (`data`: its bytes, read already); else a SpecError."""
    text = read_text(path, data)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(shown(path), None, f"not valid TOML: {error}") from None
    except RecursionError:
        # tomllib recurses once per level of nesting; a limit is reached long before a real file.
        raise SpecError(shown(path), None, "not valid TOML: nested too deeply") from None


def field_path(location: tuple[int | str, ...]) -> str:
    """`('checks', 2, 'op')` → `checks[2].op`."""
    text = ""
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def parse_model(model: type[Model], data: dict[str, Any], file: str) -> Model:
    """Validate data against a model; the first error becomes one line naming file and field."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        location = tuple(part for part in first["loc"] if not _is_union_tag(part))
        raise SpecError(file, field_path(location) or None, _message(first)) from None


def _is_union_tag(part: int | str) -> bool:
    # Tagged unions add their tag (always written `<kind>`) to the location; the user never wrote it.
    return isinstance(part, str) and part.startswith("<")


def _message(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required"
    message = error["msg"]
    return message.removeprefix("Value error, ")
