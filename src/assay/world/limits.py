"""What one check query may use on SQLite: a value's length, the process's heap, its time.

The time limit is a watchdog thread that interrupts the connection at the deadline: a progress
handler fires only every so many steps, too rarely when a few calls do all the work.
"""

from __future__ import annotations

import heapq
import itertools
import sqlite3
import threading
import time
from contextlib import suppress

VALUE_LIMIT = (
    16 << 20
)  # no string or blob a check makes or reads may be longer (SQLITE_LIMIT_LENGTH)
HEAP_CEILING = 2 << 30  # SQLite's heap in this process once a copy is locked (hard_heap_limit)


class Watchdog:
    """One thread for the whole process: it interrupts each guarded connection at its deadline."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, sqlite3.Connection]] = []
        self._live: set[int] = set()
        self._numbers = itertools.count()
        # Held as a plain lock by arm and disarm (a C-level with, cheaper than the Condition's
        # Python-level one); the thread waits on the Condition built over it.
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def arm(self, connection: sqlite3.Connection, seconds: float) -> int:
        """Interrupt `connection` in `seconds` unless disarmed before; the number to disarm it by."""
        number = next(self._numbers)
        due = time.monotonic() + seconds
        with self._lock:
            self._start()
            if not self._due or due < self._due[0][0]:
                self._wake.notify()  # else it wakes in time anyway: no thread switch per query
            heapq.heappush(self._due, (due, number, connection))
            self._live.add(number)
        return number

    def disarm(self, number: int) -> None:
        with self._lock:  # after this, the watchdog cannot interrupt this query any more
            self._live.discard(number)

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="assay-check-watchdog")
            self._thread.daemon = True
            self._thread.start()

    def _run(self) -> None:
        with self._wake:
            while True:
                while self._due and self._due[0][1] not in self._live:
                    heapq.heappop(self._due)
                if not self._due:
                    self._wake.wait()
                    continue
                wait = self._due[0][0] - time.monotonic()
                if wait > 0:
                    self._wake.wait(wait)
                    continue
                _, number, connection = heapq.heappop(self._due)
                self._live.discard(number)
                with suppress(sqlite3.ProgrammingError):  # closed meanwhile: nothing runs on it
                    connection.interrupt()


watchdog = Watchdog()

_heap_lock = threading.Lock()
_heap_capped = False


def cap_heap() -> None:
    """Cap SQLite's heap in this process at HEAP_CEILING, once, unless a lower cap is set already.

    `PRAGMA hard_heap_limit` is process-wide and can only be lowered, so the cap stays for the
    process's life and counts the worlds' own copies too (a 10 MB world's copy holds 10 MB).
    """
    global _heap_capped
    with _heap_lock:
        if _heap_capped:
            return
        connection = sqlite3.connect(":memory:")
        try:
            current = connection.execute("PRAGMA hard_heap_limit").fetchone()[0]
            if current == 0 or current > HEAP_CEILING:
                connection.execute(f"PRAGMA hard_heap_limit = {int(HEAP_CEILING)}")
        finally:
            connection.close()
        _heap_capped = True
