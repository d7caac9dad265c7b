"""The cycle collector while `assay` starts.

What a command makes as it starts (modules, classes, a world's models) lives as long as the
process, and the collector finds no garbage among it: yet with each few hundred objects made it
looks again, and each older generation's pass walks all of it. `assay run` of one task spent
about 7 % of its instructions that way. So in the `assay` process the collector is paused from the
start until the command's body begins (`resume`), or, for a command that imports and loads much
more itself, until the end of that (`starting`). What was made by then is frozen out of every
later pass (`gc.freeze`), and collection goes on as usual for the work that follows. Called
anywhere else (the command line run inside another program, as the tests do), nothing changes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_command_line = False  # whether this process is `assay` itself, paused as it started


def pause() -> None:
    """Collection paused: called once, as the `assay` process starts."""
    global _command_line
    _command_line = True
    gc.disable()


def resume() -> None:
    """What the start made frozen out of later passes, and collection back on."""
    if _command_line and not gc.isenabled():
        gc.freeze()
        gc.enable()


@contextmanager
def starting() -> Iterator[None]:
    """Collection paused again for a command's own start (its imports), then resumed."""
    if _command_line:
        gc.disable()
    try:
        yield
    finally:
        resume()
