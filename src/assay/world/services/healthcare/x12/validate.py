"""pyx12's implementation-guide validation of an interchange, and the 999 it writes."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass


@dataclass(frozen=True)
class Validation:
    valid: bool
    ack: str  # the 999 pyx12 wrote, segments joined by `~`
    errors: list[str]


def validate(raw: str) -> Validation:
    """Validate against the 5010 map named in GS08; the 999 (IK5/AK9) says what was wrong."""
    import pyx12.params
    import pyx12.x12n_document

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
