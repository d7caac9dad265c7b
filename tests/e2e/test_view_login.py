"""Signing a browser in to /view on `assay serve`: a form, then a signed HttpOnly cookie."""

from __future__ import annotations

import httpx
import pytest
from apikit import KEY, Server, bearer

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def server(tmp_path_factory, assay_home):
    running = Server(tmp_path_factory.mktemp("view") / "records.db", assay_home).start()
    yield running
    running.stop()


def _sign_in(server: Server, key: str) -> httpx.Response:
    return httpx.post(f"{server.url}/view/login", data={"key": key}, follow_redirects=False)


def _key(server: Server, scope: str) -> dict:
    made = httpx.post(f"{server.url}/v1/keys", json={"scope": scope}, headers=bearer(KEY))
    assert made.status_code == 201, made.text
    return made.json()


def test_a_browser_without_a_session_is_sent_to_the_form(server):
    page = httpx.get(f"{server.url}/view/", headers=HTML)
    assert (page.status_code, page.headers["location"]) == (303, "/view/login")
    form = httpx.get(f"{server.url}/view/login")
    assert form.status_code == 200
    assert '<form method="post"' in form.text and 'name="key"' in form.text
    assert httpx.get(f"{server.url}/view/").status_code == 401  # not a browser: no redirect
    assert httpx.get(f"{server.url}/view/", headers=bearer(KEY)).status_code == 200


def test_the_operator_key_signs_in_with_a_cookie_that_holds_no_key(server):
    signed = _sign_in(server, KEY)
    assert (signed.status_code, signed.headers["location"]) == (303, "/view/")
    cookie = signed.headers["set-cookie"]
    assert KEY not in cookie
    for attribute in ("HttpOnly", "SameSite=strict", "Path=/view"):
        assert attribute.lower() in cookie.lower()
    session = signed.cookies["assay_view"]
    page = httpx.get(f"{server.url}/view/", cookies={"assay_view": session}, headers=HTML)
    assert page.status_code == 200
    assert "Runs" in page.text
    forged = session[:-1] + ("0" if session[-1] != "0" else "1")
    refused = httpx.get(f"{server.url}/view/", cookies={"assay_view": forged}, headers=HTML)
    assert refused.status_code == 303
    api = httpx.get(f"{server.url}/v1/keys", cookies={"assay_view": session})
    assert api.status_code == 401  # the cookie opens the viewer only
    out = httpx.post(f"{server.url}/view/logout", cookies={"assay_view": session})
    assert out.status_code == 303 and 'assay_view=""' in out.headers["set-cookie"]


def test_only_operator_keys_sign_in(server):
    for key in ("wrong", "", _key(server, "evaluate")["key"], "asr_not-a-token"):
        refused = _sign_in(server, key)
        assert refused.status_code == 401
        assert "That is not an operator key." in refused.text
        assert "set-cookie" not in refused.headers


def test_an_admin_key_s_session_ends_when_it_is_revoked(server):
    admin = _key(server, "admin")
    session = _sign_in(server, admin["key"]).cookies["assay_view"]
    assert admin["key"] not in session and admin["id"] in session
    cookies = {"assay_view": session}
    assert httpx.get(f"{server.url}/view/", cookies=cookies).status_code == 200
    revoked = httpx.delete(f"{server.url}/v1/keys/{admin['id']}", headers=bearer(KEY))
    assert revoked.status_code == 200
    assert httpx.get(f"{server.url}/view/", cookies=cookies, headers=HTML).status_code == 303


def test_signing_out_ends_the_session_on_the_server(server):
    """Sign-out only deleted the browser's cookie: the same cookie still opened /view/."""
    session = _sign_in(server, KEY).cookies["assay_view"]
    other = _sign_in(server, KEY).cookies["assay_view"]  # a second browser, still signed in
    cookies = {"assay_view": session}
    assert httpx.get(f"{server.url}/view/", cookies=cookies, headers=HTML).status_code == 200
    assert httpx.post(f"{server.url}/view/logout", cookies=cookies).status_code == 303
    again = httpx.get(f"{server.url}/view/", cookies=cookies, headers=HTML)
    assert (again.status_code, again.headers["location"]) == (303, "/view/login")
    assert httpx.get(f"{server.url}/view/", cookies=cookies).status_code == 401
    kept = httpx.get(f"{server.url}/view/", cookies={"assay_view": other}, headers=HTML)
    assert kept.status_code == 200
