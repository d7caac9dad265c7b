"""What the cache's faces share: the record of where each answer came from, a cached file served,
and an upstream response relayed to the client while it is written to the cache."""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from assay.world.sandbox.packages.store import Store, Writer
from assay.world.sandbox.packages.wire import Reply

CHUNK = 256 * 1024
RECORD_SIZE = 10000
# Kinds of answer: from the cache alone; downloaded now and kept; checked upstream (304) and served
# from the cache; checked upstream and replaced; served from the cache because upstream failed;
# relayed and not kept (not cacheable, or it failed its hash); refused.
OUTCOMES = ("hit", "fetched", "revalidated", "refreshed", "stale", "passed", "mismatch", "refused")
RELAYED_HEADERS = ("content-type", "last-modified", "etag", "location", "cache-control", "expires")


@dataclass(frozen=True)
class Event:
    """One answer of the cache: which face, for which upstream URL, and where it came from."""

    face: str
    url: str
    outcome: str
    at: float


_record: collections.deque[Event] = collections.deque(maxlen=RECORD_SIZE)
_record_lock = threading.Lock()


def note(face: str, url: str, outcome: str) -> None:
    with _record_lock:
        _record.append(Event(face, url, outcome, time.time()))


def recorded() -> list[Event]:
    """What this process's cache answered, oldest first (the last 10,000 answers)."""
    with _record_lock:
        return list(_record)


async def serve_file(
    reply: Reply, path: Path, content_type: str, extra: list[tuple[str, str]] = ()
) -> None:
    """A cached file, whole; an open file stays readable if a sweep removes it meanwhile."""
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        headers = [("Content-Type", content_type), ("Content-Length", str(size)), *extra]
        await reply.start(200, headers)
        while data := file.read(CHUNK):
            await reply.send(data)
    await reply.end()


async def relay(
    response: httpx.Response,
    reply: Reply,
    then: Callable[[bool], None],
    store: Store | None = None,
    key: str = "",
    check: Callable[[Writer], bool] | None = None,
) -> None:
    """Pass `response` on as it arrives; with a store, a 200 is also written to `key`, and kept
    only when it arrived whole and `check` (its hashes) passes. `then(kept)` is called before the
    last bytes go out, so that the record says where an answer came from once the client has it."""
    headers = [
        (name, response.headers[name]) for name in RELAYED_HEADERS if name in response.headers
    ]
    length = response.headers.get("content-length")
    if length is not None and "content-encoding" not in response.headers:
        headers.append(("Content-Length", length))
    await reply.start(response.status_code, headers)
    keeping = store is not None and response.status_code == 200
    held = b""
    with store.writing(key) if keeping else contextlib.nullcontext() as writer:  # type: ignore[union-attr]
        async for data in response.aiter_bytes(CHUNK):
            if writer is not None:
                writer.write(data)
            await reply.send(held)
            held = data
        if writer is not None:
            encoded = "content-encoding" in response.headers  # the length is of the encoded body
            whole = length is None or encoded or int(length) == writer.size
            if whole and (check is None or check(writer)):
                writer.commit()
    then(writer is not None and writer.committed)
    await reply.send(held)
    await reply.end()
