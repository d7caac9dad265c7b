"""The cache's PyPI face: a pull-through simple index (PEP 503 and 691) at /pypi/simple/, whose
pages come from pypi.org (kept a short while) with every file's URL pointing back to /pypi/files/,
and files from files.pythonhosted.org kept for good once their hashes check."""

from __future__ import annotations

import html
import json
import re
import time
from typing import Any
from urllib.parse import urljoin

import httpx

from assay.world.container.packages.relay import OCTETS, note, relay, serve_file
from assay.world.container.packages.store import Store, Writer
from assay.world.container.packages.wire import Reply, Request

INDEX = "https://pypi.org/simple/"
FILES = "https://files.pythonhosted.org/"
INDEX_TTL_S = 600.0
MAX_REMEMBERED = 100_000  # metadata hashes held in memory  # a project's page is asked of pypi.org again after this long
JSON = "application/vnd.pypi.simple.v1+json"
HTML = "application/vnd.pypi.simple.v1+html"
SIMPLE, FILES_PATH = "/pypi/simple/", "/pypi/files/"
# files.pythonhosted.org names a file by the BLAKE2b-256 of its content: packages/ab/cd/<60 hex>/.
FILE_PATH = re.compile(
    r"packages/([0-9a-f]{2})/([0-9a-f]{2})/([0-9a-f]{60})/([A-Za-z0-9][A-Za-z0-9._+!~-]*)"
)
PROJECT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def normalize(name: str) -> str:
    """A project name as PEP 503 normalises it."""
    return re.sub(r"[-_.]+", "-", name).lower()


class PyPI:
    """Answers /pypi/… requests from the store, asking PyPI for what it lacks."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.metadata_sha256: dict[str, str] = {}  # "<file>.metadata" → its sha256, from pages

    async def handle(self, request: Request, reply: Reply, store: Store) -> None:
        path = request.target.partition("?")[0]
        if path.startswith(SIMPLE):
            await self._page(store, path[len(SIMPLE) :].strip("/"), request, reply)
        elif path.startswith(FILES_PATH):
            await self._file(store, path[len(FILES_PATH) :], request, reply)
        else:
            await reply.whole(404, b"not a path of the package cache's PyPI face\n")

    async def _page(self, store: Store, name: str, request: Request, reply: Reply) -> None:
        if not name or "/" in name or not PROJECT_NAME.fullmatch(name):
            await reply.whole(404, b"the package cache serves project pages only\n")
            return
        wanted = normalize(name)
        if wanted != name:
            await reply.start(301, [("Location", f"{SIMPLE}{wanted}/"), ("Content-Length", "0")])
            await reply.end()
            return
        page = await self._project(store, wanted)
        if page is None:
            await reply.whole(404, f"no project {wanted} on PyPI\n".encode())
            return
        page = self._pointed_here(wanted, page)
        if JSON in request.headers.get("accept", ""):
            await reply.whole(200, json.dumps(page).encode(), JSON)
        else:
            await reply.whole(200, render_html(page).encode(), HTML)

    async def _project(self, store: Store, name: str) -> dict[str, Any] | None:
        """The project's page as PyPI's JSON gives it: kept for INDEX_TTL_S, then asked again
        with its ETag; served stale when PyPI cannot be reached. None when PyPI has no such
        project."""
        key, url = f"pypi/index/{name}.json", f"{INDEX}{name}/"
        kept = _load(store, key)
        if kept is not None and time.time() - kept["fetched"] < INDEX_TTL_S:
            note("pypi", url, "hit")
            return kept["page"]
        headers = {"Accept": JSON}
        if kept is not None and kept.get("etag"):
            headers["If-None-Match"] = kept["etag"]
        try:
            response = await self.client.get(url, headers=headers, follow_redirects=True)
        except httpx.HTTPError:
            if kept is None:
                raise
            note("pypi", url, "stale")
            return kept["page"]
        if response.status_code == 304 and kept is not None:
            kept["fetched"] = time.time()
            store.put(key, json.dumps(kept).encode())
            note("pypi", url, "revalidated")
            return kept["page"]
        if response.status_code == 404:
            note("pypi", url, "passed")
            return None
        response.raise_for_status()
        page = response.json()
        entry = {"fetched": time.time(), "etag": response.headers.get("etag"), "page": page}
        store.put(key, json.dumps(entry).encode())
        note("pypi", url, "refreshed" if kept is not None else "fetched")
        return page

    def _pointed_here(self, name: str, page: dict[str, Any]) -> dict[str, Any]:
        """The page with each file of files.pythonhosted.org at /pypi/files/ instead."""
        files = []
        for entry in page.get("files", []):
            url = urljoin(f"{INDEX}{name}/", entry.get("url", ""))
            if url.startswith(FILES):
                entry = {**entry, "url": FILES_PATH + url[len(FILES) :]}
            metadata = entry.get("core-metadata") or entry.get("dist-info-metadata")
            if isinstance(metadata, dict) and metadata.get("sha256"):
                if len(self.metadata_sha256) > MAX_REMEMBERED:
                    self.metadata_sha256.clear()  # kept pages are read again when needed
                self.metadata_sha256[f"{entry.get('filename')}.metadata"] = metadata["sha256"]
            files.append(entry)
        return {**page, "files": files}

    async def _file(self, store: Store, path: str, request: Request, reply: Reply) -> None:
        metadata = path.endswith(".metadata")
        match = FILE_PATH.fullmatch(path.removesuffix(".metadata"))
        url = FILES + path
        if match is None:
            await reply.whole(404, b"not a file path of files.pythonhosted.org\n")
            return
        digest = "".join(match.group(1, 2, 3))
        key = f"pypi/files/{digest}/{match.group(4)}{'.metadata' if metadata else ''}"
        found = store.find(key)
        if found is not None:
            note("pypi", url, "hit")
            await serve_file(reply, found, OCTETS, wanted=request.headers.get("range"))
            return
        expected = self._metadata_hash(store, match.group(4)) if metadata else None

        def check(writer: Writer) -> bool:
            if metadata:
                return expected is not None and writer.sha256.hexdigest() == expected
            return writer.blake2b.hexdigest() == digest

        headers = {"Accept-Encoding": "identity"}
        async with self.client.stream("GET", url, headers=headers) as response:

            def then(kept: bool) -> None:
                missed = "mismatch" if response.status_code == 200 else "passed"
                note("pypi", url, "fetched" if kept else missed)

            await relay(response, reply, then, store, key, check)

    def _metadata_hash(self, store: Store, filename: str) -> str | None:
        """The sha256 a page gave for `filename`'s metadata: from this process's pages, else
        from the kept page of the project the file name begins with."""
        known = self.metadata_sha256.get(f"{filename}.metadata")
        if known is not None:
            return known
        kept = _load(store, f"pypi/index/{normalize(filename.split('-')[0])}.json")
        if kept is not None:
            self._pointed_here(str(kept["page"].get("name", "")), kept["page"])
        return self.metadata_sha256.get(f"{filename}.metadata")


def render_html(page: dict[str, Any]) -> str:
    """A PEP 503 page from a PEP 691 one."""
    name = html.escape(str(page.get("name", "")))
    lines = [
        "<!DOCTYPE html>",
        '<html><head><meta name="pypi:repository-version" content="1.1">',
        f"<title>Links for {name}</title></head><body><h1>Links for {name}</h1>",
    ]
    for entry in page.get("files", []):
        hashes = entry.get("hashes") or {}
        fragment = f"#sha256={hashes['sha256']}" if "sha256" in hashes else ""
        attributes = [f'href="{html.escape(entry["url"] + fragment)}"']
        if entry.get("requires-python"):
            attributes.append(f'data-requires-python="{html.escape(entry["requires-python"])}"')
        metadata = entry.get("core-metadata") or entry.get("dist-info-metadata")
        if isinstance(metadata, dict) and metadata.get("sha256"):
            value = f"sha256={metadata['sha256']}"
            attributes += [f'data-core-metadata="{value}"', f'data-dist-info-metadata="{value}"']
        yanked = entry.get("yanked")
        if yanked:
            reason = yanked if isinstance(yanked, str) else ""
            attributes.append(f'data-yanked="{html.escape(reason)}"')
        lines.append(f"<a {' '.join(attributes)}>{html.escape(entry['filename'])}</a><br/>")
    lines.append("</body></html>")
    return "\n".join(lines) + "\n"


def _load(store: Store, key: str) -> dict[str, Any] | None:
    kept = store.find_json(key)
    return kept if kept is not None and "page" in kept and "fetched" in kept else None
