"""A time limit on each tool call. Tools run in the world's process, so they are stopped from within:
an alarm in the main thread stops Python code and sleeps, a watchdog thread interrupts a SQLite
statement, and a call that ends past the limit counts as an overrun however it ended."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import threading
import time
from collections.abc import Callable

try:  # the handler as it is set: signal.getsignal's look-up of a Handlers enum costs ~2 µs a call
    from _signal import getsignal as _handler_of
except ImportError:  # not CPython
    _handler_of = signal.getsignal

WATCH_S = 0.05  # how often the watchdog looks for statements past their deadline


class ToolOverrun(KeyboardInterrupt):
    """A tool ran past its time limit. A KeyboardInterrupt, so that a tool's `except Exception`
    does not swallow it and the PostgreSQL driver cancels a statement in flight, as on Ctrl-C."""


class ToolTimeLimit:
    """`with ToolTimeLimit(seconds, interrupt):` around one tool call; ToolOverrun when it overran.

    `interrupt` (a SQLite connection's) is called from another thread at the deadline.
    """

    def __init__(self, seconds: float, interrupt: Callable[[], object] | None = None):
        self.seconds = seconds
        self.interrupt = interrupt
        self.fired = False
        self._started = 0.0
        self._alarm = False
        self._watch: int | None = None

    def __enter__(self) -> ToolTimeLimit:
        global _ringing
        self._started = time.monotonic()
        if self.interrupt is not None:
            self._watch = _watchdog().arm(self._started + self.seconds, self.interrupt)
        if _alarm_possible():
            self._alarm = True
            _ringing = self
            try:
                signal.setitimer(signal.ITIMER_REAL, self.seconds)
            except BaseException:  # it rang already: __exit__ will not be called
                self._stop()
                raise
        return self

    def __exit__(self, *_: object) -> None:
        self._stop()
        if self.fired or time.monotonic() - self._started > self.seconds:
            raise ToolOverrun(f"ran past its time limit of {self.seconds:g} s") from None

    def _stop(self) -> None:
        global _ringing
        if self._alarm:
            _ringing = None  # a late ring does nothing from here on
            self._alarm = False
            signal.setitimer(signal.ITIMER_REAL, 0)
        if self._watch is not None:
            _watchdog().disarm(self._watch)
            self._watch = None


_ringing: ToolTimeLimit | None = None  # the call the main thread's alarm is set for, if any


def _ring(signum: int, frame: object) -> None:
    limit = _ringing
    if limit is not None:
        limit.fired = True
        raise ToolOverrun(f"ran past its time limit of {limit.seconds:g} s")


def _alarm_possible() -> bool:
    """Signals reach only the main thread; another timer or SIGALRM handler is left alone. The
    handler is installed once, for good: setting it on every call would cost more than the call."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return False
    if signal.getitimer(signal.ITIMER_REAL)[0] != 0:
        return False
    handler = _handler_of(signal.SIGALRM)
    if handler is _ring:
        return True
    if handler in (signal.SIG_DFL, None):
        signal.signal(signal.SIGALRM, _ring)
        return True
    return False


class _Watchdog:
    """One thread per process that calls each armed action at its deadline, unless disarmed first.

    It looks every WATCH_S rather than being woken, so arming costs a tool call a lock, not a
    switch of threads.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: dict[int, tuple[float, Callable[[], object]]] = {}
        self._ids = itertools.count()
        threading.Thread(target=self._watch, daemon=True, name="assay-tool-watchdog").start()

    def arm(self, deadline: float, action: Callable[[], object]) -> int:
        with self._lock:
            key = next(self._ids)
            self._armed[key] = (deadline, action)
            return key

    def disarm(self, key: int) -> None:
        with self._lock:  # once this returns, the action will not be called
            self._armed.pop(key, None)

    def _watch(self) -> None:
        while True:
            time.sleep(WATCH_S)
            with self._lock:
                now = time.monotonic()
                for key, (deadline, action) in list(self._armed.items()):
                    if deadline <= now:
                        del self._armed[key]
                        with contextlib.suppress(
                            Exception
                        ):  # a closed connection has nothing to stop
                            action()


_the_watchdog: _Watchdog | None = None
_making = threading.Lock()


def _forget_watchdog() -> None:
    global _the_watchdog
    _the_watchdog = None  # its thread is not copied into a forked child


os.register_at_fork(after_in_child=_forget_watchdog)


def _watchdog() -> _Watchdog:
    global _the_watchdog
    with _making:
        if _the_watchdog is None:
            _the_watchdog = _Watchdog()
        return _the_watchdog
