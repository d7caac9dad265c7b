"""Headless Chromium for the tests: Debian's /usr/bin/chromium driven by Playwright, one browser
per test module, every console error and every request beyond the allowed ones recorded."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from apikit import ASSAY, free_port
from processkit import wait_ready
from worldkit import ROOT

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / ".test-output" / "browser"


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not Path(CHROMIUM).exists():
        return f"no {CHROMIUM} (make test installs Debian's chromium)"
    if find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[dev]')"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Watched:
    """A page with what it logged as errors and the requests it made that were not allowed."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@contextmanager
def watched_page(browser: Any, allowed: Callable[[str], bool], **context: Any) -> Iterator[Watched]:
    """A fresh page in a context of its own; requests `allowed` refuses are recorded and aborted."""
    session = browser.new_context(viewport={"width": 1280, "height": 900}, **context)
    page = session.new_page()
    watched = Watched(page)
    page.on(
        "console",
        lambda message: message.type == "error" and watched.errors.append(message.text),
    )
    page.on("pageerror", lambda error: watched.errors.append(str(error)))

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if allowed(url):
            request_route.continue_()
        else:
            watched.requests.append(url)
            request_route.abort()

    page.route("**/*", route)
    try:
        yield watched
    finally:
        session.close()


def screenshot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@contextmanager
def viewer_server(store: str) -> Iterator[str]:
    """`assay view` in a subprocess on a free loopback port; its base URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [ASSAY, "view", "--store", store, "--port", str(port)],
        env={**os.environ},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_ready(process, url + "/")
        yield url
    finally:
        process.terminate()
        process.wait(10)
