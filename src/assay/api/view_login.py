"""Signing a browser in to the viewer at /view: a browser cannot send a bearer header, so a form
takes an operator key once and a signed, HttpOnly cookie stands in for it.

The cookie holds who signed in (`operator`, or a stored admin key's id), until when, the session's
id, and an HMAC of them under a secret of this server process: never the key, and a restart signs
everyone out. A stored key is looked up on every page, so revoking it ends its sessions at once;
signing out ends the session here, so the same cookie opens nothing afterwards.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
import time
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from assay.runs.keys import now_stamp
from assay.served.auth import Auth, Caller
from assay.served.errors import ApiError

COOKIE = "assay_view"
SESSION_S = 12 * 3600
OPERATOR = "operator"


class ViewSessions:
    """Issues and reads the viewer's session cookies, and ends them on sign-out."""

    def __init__(self, auth: Auth, lifetime_s: float = SESSION_S):
        self.auth = auth
        self.lifetime_s = lifetime_s
        self._secret = secrets.token_bytes(32)
        self._live: dict[str, float] = {}  # session id → until when; signed out: gone

    def issue(self, caller: Caller) -> str:
        now = time.time()
        self._live = {session: until for session, until in self._live.items() if until > now}
        session, until = secrets.token_urlsafe(16), int(now + self.lifetime_s)
        self._live[session] = until
        body = f"{caller.key_id or OPERATOR}.{until}.{session}"
        return f"{body}.{self._sign(body)}"

    def caller(self, value: str) -> Caller | None:
        """The admin a cookie stands for, or None if it is forged, expired, signed out or its key
        revoked."""
        who = self._session(value)
        if who is None:
            return None
        if who == OPERATOR:
            return Caller(scope="admin")
        key = self.auth.store.key(who)
        if key is None or key.scope != "admin" or key.state(now_stamp()) != "active":
            return None
        return Caller(scope="admin", key_id=key.id)

    def end(self, value: str) -> None:
        """Sign the cookie's session out: it opens nothing from now on."""
        if self._session(value) is not None:
            self._live.pop(value.rsplit(".", 2)[-2], None)

    def _session(self, value: str) -> str | None:
        """Who a genuine cookie of a live session stands for."""
        body, _, signature = value.rpartition(".")
        if not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            return None
        rest, _, session = body.rpartition(".")
        who, _, until = rest.rpartition(".")
        if not until.isdigit() or int(until) <= time.time() or session not in self._live:
            return None
        return who

    def _sign(self, body: str) -> str:
        return hmac.new(self._secret, body.encode(), hashlib.sha256).hexdigest()


class SignInFirst(Exception):
    """A browser asked for a viewer page with neither a bearer header nor a session."""


def viewer_access(sessions: ViewSessions):
    """The viewer's guard: the operator's bearer header, or a session cookie from the form."""

    async def guard(request: Request) -> Caller:
        header = request.headers.get("authorization")
        if header is not None:
            return sessions.auth.require(header, "admin")
        cookie = request.cookies.get(COOKIE)
        caller = sessions.caller(cookie) if cookie else None
        if caller is not None:
            return caller
        if "text/html" in request.headers.get("accept", ""):
            raise SignInFirst
        raise ApiError(
            401,
            "unauthorized",
            "send Authorization: Bearer <operator key>, or sign in at /view/login",
        )

    return Depends(guard)


def login_router(sessions: ViewSessions, prefix: str) -> APIRouter:
    """`GET|POST {prefix}/login` and `POST {prefix}/logout`."""
    router = APIRouter(include_in_schema=False)

    @router.get(prefix + "/login")
    async def form() -> HTMLResponse:
        return _page("")

    @router.post(prefix + "/login")
    async def login(request: Request, key: Annotated[str, Form()] = "") -> Response:
        try:
            caller = sessions.auth.caller(f"Bearer {key.strip()}")
        except ApiError:
            caller = None
        if caller is None or not caller.operator:
            return _page("That is not an operator key.", status=401)
        done = RedirectResponse(prefix + "/", status_code=303)
        done.set_cookie(
            COOKIE,
            sessions.issue(caller),
            max_age=int(sessions.lifetime_s),
            path=prefix,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return done

    @router.post(prefix + "/logout")
    async def logout(request: Request) -> Response:
        sessions.end(request.cookies.get(COOKIE, ""))
        done = RedirectResponse(prefix + "/login", status_code=303)
        done.delete_cookie(COOKIE, path=prefix, httponly=True, samesite="strict")
        return done

    return router


def sign_in_redirect(prefix: str):
    """The handler that sends a browser without a session to the sign-in form."""

    async def redirect(_: Request, __: Exception) -> Response:
        return RedirectResponse(prefix + "/login", status_code=303)

    return redirect


def _page(message: str, status: int = 200) -> HTMLResponse:
    said = f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""
    return HTMLResponse(PAGE.replace("{message}", said), status_code=status)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>assay · sign in</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}
input{font:inherit;width:100%;padding:.4rem;margin:.4rem 0 1rem}.error{color:#b00020}</style>
</head><body><h1>assay viewer</h1>{message}
<form method="post" action="login"><label for="key">Operator key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form></body></html>
"""
