"""What one check query may use on SQLite: a value's length, the process's heap, its time.

The time limit is a watchdog thread that interrupts the connection at the deadline: a progress
handler fires only every so many steps, too rarely when a few calls do all the work. The limit is
of the query's own CPU time (its thread's clock, where the platform gives one), so that a check
on a machine busy with other work (a thousand task runs graded at once) is not stopped for the time
it spent waiting for a core: the same rollout scores the same, loaded or not. A query that waits
without working is still stopped at WALL_CEILING times its limit of wall-clock time.
"""

from __future__ import annotations

import heapq
import itertools
import os
import sqlite3
import threading
import time
from contextlib import suppress
from typing import NamedTuple

VALUE_LIMIT = (
    16 << 20
)  # no string or blob a check makes or reads may be longer (SQLITE_LIMIT_LENGTH)
HEAP_CEILING = 2 << 30  # SQLite's heap in this process once a copy is locked (hard_heap_limit)
WALL_CEILING = 20  # a query's wall-clock time may reach this many times its limit of CPU time


class _Due(NamedTuple):
    """A guarded query: when to look at it next, and what it may still spend."""

    at: float  # monotonic time of the next look
    number: int
    connection: sqlite3.Connection
    clock: int | None  # the CPU clock of the query's thread; None: wall-clock time only
    cpu_until: float  # that clock's reading at which the query has used its limit
    wall_until: float  # the monotonic time past which it is stopped anyway


def _thread_clock() -> int | None:
    """The calling thread's CPU clock, or None where the platform has none to give."""
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):
        return None


class Watchdog:
    """One thread for the whole process: it interrupts each guarded connection at its deadline."""

    def __init__(self) -> None:
        self._due: list[_Due] = []
        self._live: set[int] = set()
        self._numbers = itertools.count()
        # Held as a plain lock by arm and disarm (a C-level with, cheaper than the Condition's
        # Python-level one); the thread waits on the Condition built over it.
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        # None until started, and again once it has ended (`_run`) or after a fork, in whose
        # child it does not run: asking the thread itself (`is_alive`) at every query took a lock
        self._thread: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._forked)

    def arm(self, connection: sqlite3.Connection, seconds: float) -> int:
        """Interrupt `connection` once the calling thread has spent `seconds` of CPU time (or
        WALL_CEILING times as long has passed) unless disarmed before; the number to disarm it by."""
        number = next(self._numbers)
        now, clock = time.monotonic(), _thread_clock()
        cpu = time.clock_gettime(clock) if clock is not None else now
        wall_until = now + seconds * (WALL_CEILING if clock is not None else 1)
        due = _Due(now + seconds, number, connection, clock, cpu + seconds, wall_until)
        with self._lock:
            self._start()
            if not self._due or due.at < self._due[0].at:
                self._wake.notify()  # else it wakes in time anyway: no thread switch per query
            heapq.heappush(self._due, due)
            self._live.add(number)
        return number

    def disarm(self, number: int) -> None:
        with self._lock:  # after this, the watchdog cannot interrupt this query any more
            self._live.discard(number)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="assay-check-watchdog")
            self._thread.daemon = True
            self._thread.start()

    def _forked(self) -> None:
        """In a forked child nothing the parent guarded runs, and the thread does not exist: the
        child starts with none, and with a lock no parent's thread can hold."""
        self._due, self._live = [], set()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread = None

    def _run(self) -> None:
        try:
            self._watch()
        finally:
            with self._lock:
                self._thread = None  # the next query starts another

    def _watch(self) -> None:
        with self._wake:
            while True:
                while self._due and self._due[0].number not in self._live:
                    heapq.heappop(self._due)
                if not self._due:
                    self._wake.wait()
                    continue
                now = time.monotonic()
                if self._due[0].at > now:
                    self._wake.wait(self._due[0].at - now)
                    continue
                due = heapq.heappop(self._due)
                left = _cpu_left(due)
                if left > 0 and now < due.wall_until:  # it waited for a core: look again later
                    heapq.heappush(self._due, due._replace(at=min(now + left, due.wall_until)))
                    continue
                self._live.discard(due.number)
                with suppress(sqlite3.ProgrammingError):  # closed meanwhile: nothing runs on it
                    due.connection.interrupt()


def _cpu_left(due: _Due) -> float:
    """The CPU time the query may still spend (0 once used, or with no clock to read)."""
    if due.clock is None:
        return 0.0
    try:
        return due.cpu_until - time.clock_gettime(due.clock)
    except OSError:  # its thread has ended: nothing of it runs any more
        return 0.0


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
