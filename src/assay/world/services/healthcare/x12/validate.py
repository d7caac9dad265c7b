"""pyx12's implementation-guide validation of an interchange, and the 999 it writes."""

from __future__ import annotations

import functools
import io
import logging
import pickle
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_maps_lock = threading.Lock()


@dataclass(frozen=True)
class Validation:
    valid: bool
    ack: str  # the 999 pyx12 wrote, segments joined by `~`
    errors: list[str]


def validate(raw: str) -> Validation:
    """Validate against the 5010 map named in GS08; the 999 (IK5/AK9) says what was wrong."""
    import pyx12.params
    import pyx12.x12n_document

    _keep_maps()
    errors = io.StringIO()
    handler = logging.StreamHandler(errors)
    logger = logging.getLogger("pyx12")
    logger.addHandler(handler)
    ack = io.StringIO()
    try:
        valid = bool(
            pyx12.x12n_document.x12n_document(
                param=pyx12.params.params(),
                src_file=io.StringIO(raw),
                fd_997=ack,
                fd_html=None,
            )
        )
    except Exception as error:  # pyx12 raises its own errors on a broken envelope
        return Validation(False, "", [f"unreadable: {error}"])
    finally:
        logger.removeHandler(handler)
    lines = [line.strip() for line in errors.getvalue().splitlines() if line.strip()]
    return Validation(valid, ack.getvalue().strip(), lines[:20])


def _keep_maps() -> None:
    """pyx12 reads and parses an implementation guide's XML map (0.1–0.3 s) for every document it
    validates. Each map is read once per process now, kept pickled, and every validation gets a
    fresh copy of its own (about 13 ms): pyx12's walk keeps counts in the map's nodes, so no
    validation ever sees another's."""
    import pyx12.map_if

    with _maps_lock:
        if not getattr(pyx12.map_if.load_map_file, "assay_keeps_maps", False):
            pyx12.map_if.load_map_file = _kept(pyx12.map_if.load_map_file)


def _kept(load: Callable[..., Any]) -> Callable[..., Any]:
    @functools.lru_cache(maxsize=32)
    def pickled(map_file: str, map_path: str | None) -> bytes:
        import pyx12.params

        return pickle.dumps(load(map_file, pyx12.params.params(), map_path))

    def load_map_file(map_file: str, param: Any, map_path: str | None = None) -> Any:
        return pickle.loads(pickled(map_file, map_path))

    load_map_file.assay_keeps_maps = True  # type: ignore[attr-defined]
    return load_map_file
