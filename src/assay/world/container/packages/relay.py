"""What the cache's faces share: the record of where each answer came from, a cached file served,
and an upstream response relayed to the client while it is written to the cache."""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from assay.world.container.packages.store import Store, Writer
from assay.world.container.packages.wire import Reply

CHUNK = 256 * 1024
OCTETS = "application/octet-stream"
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
    reply: Reply,
    path: Path,
    content_type: str,
    extra: Sequence[tuple[str, str]] = (),
    wanted: str | None = None,
) -> None:
    """A cached file, whole or the one byte range `wanted` names (a Range header: uv reads a
    wheel's metadata that way); an open file stays readable if a sweep removes it meanwhile."""
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        headers = [("Content-Type", content_type), ("Accept-Ranges", "bytes"), *extra]
        span = byte_range(wanted, size)
        if span is None:
            start, stop, status = 0, size, 200
        else:
            (start, stop), status = span, 206
            headers.append(("Content-Range", f"bytes {start}-{stop - 1}/{size}"))
        await reply.start(status, [*headers, ("Content-Length", str(stop - start))])
        file.seek(start)
        left = stop - start
        while left > 0 and (data := file.read(min(CHUNK, left))):
            left -= len(data)
            await reply.send(data)
    await reply.end()


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """[start, stop) of a single `bytes=` range that fits in `size`; None for none, several, or
    one that does not fit (the whole file is then served, which HTTP allows)."""
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    first, _, last = header[len("bytes=") :].strip().partition("-")
    try:
        if not first:
            start, stop = max(size - int(last), 0), size
        else:
            start, stop = int(first), min(int(last) + 1, size) if last else size
    except ValueError:
        return None
    return (start, stop) if 0 <= start < stop <= size else None


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
