"""The host's package cache, asked from the host through a listener of its own: the PyPI face
against pypi.org, the apt face against deb.debian.org, what is kept, what is refused, the bound."""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assay.world.container.packages import Offer, cache_server, packages_dir, recorded
from assay.world.container.packages.apt import kind
from assay.world.container.packages.pypi import render_html
from assay.world.container.packages.relay import byte_range
from assay.world.container.packages.store import Store
from assay.world.container.proxy import Allowlist

JSON = "application/vnd.pypi.simple.v1+json"
# A small wheel and a small Debian package that stay published.
SIX = "six-1.16.0-py2.py3-none-any.whl"
HELLO = "http://deb.debian.org/debian/pool/main/h/hello/hello_2.10-3_amd64.deb"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Offer]:
    """The cache served on a loopback listener of the host, with the store of this test alone."""
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    offer = _offer(None)
    yield offer
    offer.close()


def _offer(allowlist: Allowlist | None) -> Offer:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    server = cache_server(lambda: {ipaddress.ip_address("127.0.0.1")})
    return server.offer(listener, allowlist)  # its store: this test's ASSAY_HOME


def since(mark: int) -> list[tuple[str, str]]:
    return [(event.outcome, event.url) for event in recorded()[mark:]]


def six_url(cache: Offer) -> str:
    page = httpx.get(f"{cache.url}/pypi/simple/six/", headers={"Accept": JSON}).json()
    (entry,) = [entry for entry in page["files"] if entry["filename"] == SIX]
    return entry["url"]


def test_a_project_page_points_every_file_at_the_cache(cache: Offer) -> None:
    response = httpx.get(f"{cache.url}/pypi/simple/six/", headers={"Accept": JSON})
    assert response.status_code == 200 and response.headers["content-type"] == JSON
    files = response.json()["files"]
    assert files and all(entry["url"].startswith("/pypi/files/packages/") for entry in files)
    assert all("sha256" in entry["hashes"] for entry in files)
    html = httpx.get(f"{cache.url}/pypi/simple/six/", headers={"Accept": "text/html"})
    assert f">{SIX}</a>" in html.text and 'href="/pypi/files/packages/' in html.text
    assert "#sha256=" in html.text


def test_a_name_that_is_not_normal_is_redirected_and_an_unknown_project_is_404(
    cache: Offer,
) -> None:
    moved = httpx.get(f"{cache.url}/pypi/simple/SIX/")
    assert moved.status_code == 301 and moved.headers["location"] == "/pypi/simple/six/"
    missing = f"assay-no-such-project-{os.getpid()}"
    assert httpx.get(f"{cache.url}/pypi/simple/{missing}/").status_code == 404


def test_a_file_is_kept_once_its_hash_checks_and_then_served_from_disk(cache: Offer) -> None:
    url = six_url(cache)
    mark = len(recorded())
    first = httpx.get(cache.url + url)
    second = httpx.get(cache.url + url)
    assert first.content == second.content and first.status_code == 200
    digest = url.split("/")[-2]
    assert hashlib.blake2b(first.content, digest_size=32).hexdigest().endswith(digest)
    outcomes = [outcome for outcome, seen in since(mark) if seen.endswith(SIX)]
    assert outcomes == ["fetched", "hit"]
    kept = list((packages_dir() / "pypi" / "files").glob(f"*/{SIX}"))
    assert len(kept) == 1 and kept[0].read_bytes() == first.content


def test_a_page_is_kept_a_short_while(cache: Offer) -> None:
    mark = len(recorded())
    for _ in range(2):
        httpx.get(f"{cache.url}/pypi/simple/six/", headers={"Accept": JSON})
    assert [outcome for outcome, _ in since(mark)] == ["fetched", "hit"]
    kept = json.loads((packages_dir() / "pypi" / "index" / "six.json").read_text())
    assert kept["page"]["name"] == "six"


def test_metadata_is_kept_only_when_a_page_gave_its_hash(cache: Offer) -> None:
    """six's page gives no hash of its metadata file: what upstream says is relayed, not kept."""
    page = httpx.get(f"{cache.url}/pypi/simple/six/", headers={"Accept": JSON}).json()
    (entry,) = [entry for entry in page["files"] if entry["filename"] == SIX]
    assert not entry.get("core-metadata")
    mark = len(recorded())
    httpx.get(cache.url + entry["url"] + ".metadata")
    assert [outcome for outcome, _ in since(mark)] in (["mismatch"], ["passed"])
    assert not list((packages_dir() / "pypi" / "files").glob(f"*/{SIX}.metadata"))


def test_what_a_client_sends_is_never_kept(cache: Offer) -> None:
    """Only GET and HEAD are answered: a PUT of forged bytes at a file's path stores nothing."""
    url = six_url(cache)
    for method in ("PUT", "POST", "DELETE"):
        answer = httpx.request(method, cache.url + url, content=b"forged")
        assert answer.status_code == 405
    for path in ("/pypi/files/../../etc/passwd", "/pypi/files/packages/x/../../../x"):
        assert httpx.get(cache.url + path).status_code == 404
    forged = url.rsplit("/", 2)[0] + "/" + "0" * 60 + "/" + SIX
    assert httpx.get(cache.url + forged).status_code != 200  # upstream has no such file
    stored = [path for path in (packages_dir()).rglob("*") if path.is_file()]
    assert all(b"forged" not in path.read_bytes() for path in stored)


def test_the_apt_face_keeps_pool_files_and_revalidates_indexes(cache: Offer) -> None:
    mark = len(recorded())
    with httpx.Client(proxy=cache.url) as client:
        first, second = client.get(HELLO), client.get(HELLO)
        release = client.get("http://deb.debian.org/debian/dists/bookworm/Release")
        again = client.get("http://deb.debian.org/debian/dists/bookworm/Release")
    assert first.status_code == 200 and first.content == second.content
    assert first.content.startswith(b"!<arch>")
    assert release.status_code == 200 and release.content == again.content
    assert b"Suite: " in release.content
    outcomes = [outcome for outcome, _ in since(mark)]
    assert outcomes == ["fetched", "hit", "fetched", outcomes[3]], outcomes
    assert outcomes[3] in ("revalidated", "refreshed")  # refreshed: upstream gave no validators


def test_the_apt_face_never_reaches_the_host_nor_a_host_the_allowlist_lacks(
    cache: Offer,
) -> None:
    with httpx.Client(proxy=cache.url) as client:
        for url in ("http://127.0.0.1:9/x", "http://localhost:9/pool/x.deb"):
            refused = client.get(url)
            assert refused.status_code == 403 and "loopback" in refused.text, url
    listed = _offer(Allowlist(["deb.debian.org"]))
    try:
        with httpx.Client(proxy=listed.url) as client:
            assert client.get("http://ftp.debian.org/debian/").status_code == 403
            assert client.get(HELLO).status_code == 200
        assert not listed.pypi and listed.env == {}
    finally:
        listed.close()


def test_two_clients_asking_at_once_get_the_same_file_and_one_copy_is_kept(cache: Offer) -> None:
    url = cache.url + six_url(cache)
    bodies: list[bytes] = []

    def get() -> None:
        bodies.append(httpx.get(url).content)

    threads = [threading.Thread(target=get) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(bodies) == 4 and len(set(bodies)) == 1
    folder = packages_dir() / "pypi" / "files"
    assert [path.name for path in folder.rglob("*") if path.is_file()] == [SIX]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/debian/pool/main/c/curl/curl_7.88.1-10+deb12u14_amd64.deb", "pool"),
        ("/debian/dists/bookworm/InRelease", "index"),
        ("/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256/" + "a" * 64, "hash"),
        ("/debian/dists/bookworm/main/binary-amd64/Packages.xz", "index"),
        ("/debian/pool/main/c/curl/", "other"),
        ("/debian/README", "other"),
    ],
)
def test_what_the_apt_face_keeps(path: str, expected: str) -> None:
    assert kind(path) == expected


def test_the_store_keeps_only_what_was_committed_and_sweeps_to_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    with store.writing("a/kept") as writer:
        writer.write(b"x" * 1000)
        writer.commit()
    with store.writing("a/dropped") as writer:
        writer.write(b"half")
    assert sorted(path.name for path in (tmp_path / "a").iterdir()) == ["kept"]
    for index in range(3):
        store.put(f"b/{index}", b"y" * 400_000)
        os.utime(tmp_path / "b" / str(index), (index, index))  # 0 used least recently
    store.find("b/0")  # used now: the sweep keeps it
    monkeypatch.setenv("ASSAY_PACKAGE_CACHE_MB", "1")
    assert store.sweep() > 0
    left = sorted(path.name for path in (tmp_path / "b").iterdir())
    assert "0" in left and len(left) < 3


def test_a_page_renders_as_pep_503_html() -> None:
    page = {
        "name": "demo",
        "files": [
            {
                "filename": "demo-1.0.tar.gz",
                "url": "/pypi/files/packages/aa/bb/x/demo-1.0.tar.gz",
                "hashes": {"sha256": "ab" * 32},
                "requires-python": ">=3.8",
                "core-metadata": {"sha256": "cd" * 32},
                "yanked": "broken",
            }
        ],
    }
    html = render_html(page)
    assert f'href="/pypi/files/packages/aa/bb/x/demo-1.0.tar.gz#sha256={"ab" * 32}"' in html
    assert 'data-requires-python="&gt;=3.8"' in html and 'data-yanked="broken"' in html
    assert f'data-core-metadata="sha256={"cd" * 32}"' in html


def test_a_kept_file_is_served_by_byte_range_as_uv_reads_a_wheels_metadata(cache: Offer) -> None:
    url = cache.url + six_url(cache)
    whole = httpx.get(url).content
    tail = httpx.get(url, headers={"Range": "bytes=-100"})
    assert tail.status_code == 206 and tail.content == whole[-100:]
    assert (
        tail.headers["content-range"] == f"bytes {len(whole) - 100}-{len(whole) - 1}/{len(whole)}"
    )
    middle = httpx.get(url, headers={"Range": "bytes=10-19"})
    assert middle.status_code == 206 and middle.content == whole[10:20]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("bytes=0-9", (0, 10)),
        ("bytes=5-", (5, 100)),
        ("bytes=-10", (90, 100)),
        ("bytes=90-500", (90, 100)),
        ("bytes=100-", None),
        ("bytes=0-1,5-6", None),
        ("items=0-1", None),
        ("bytes=x-y", None),
    ],
)
def test_byte_range(header: str | None, expected: tuple[int, int] | None) -> None:
    assert byte_range(header, 100) == expected
