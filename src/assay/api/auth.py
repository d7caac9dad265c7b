"""Who is calling: the operator (with the API key) or one benchmark run (with its bearer token)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from assay.api.errors import ApiError
from assay.runs.store.progress import Progress

TOKEN_PREFIX = "asr_"


@dataclass(frozen=True)
class Caller:
    operator: bool
    run_id: str | None = None

    def may_see(self, run_id: str) -> bool:
        return self.operator or self.run_id == run_id


def new_key() -> str:
    return "aso_" + secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


class Auth:
    """Checks bearer credentials; run tokens are kept only as hashes, with their expiry."""

    def __init__(self, operator_key: str, progress: Progress, token_ttl_s: float):
        self.operator_key = operator_key
        self.progress = progress
        self.token_ttl = timedelta(seconds=token_ttl_s)
        self._known: dict[str, tuple[str, str]] = {}

    def issue(self, run_id: str) -> tuple[str, str]:
        """A new token for the run and its expiry; only the hash is stored."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        expires = stamp(datetime.now(UTC) + self.token_ttl)
        self.progress.set_token(run_id, token_hash(token), expires)
        self._known[token_hash(token)] = (run_id, expires)
        return token, expires

    def caller(self, authorization: str | None) -> Caller:
        scheme, _, credential = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not credential:
            raise ApiError(
                401, "unauthorized", "send Authorization: Bearer <operator key or run token>"
            )
        if not credential.isascii():  # keys and tokens are ASCII: anything else matches nothing
            raise ApiError(401, "unauthorized", "the bearer token is not valid")
        if hmac.compare_digest(credential.encode(), self.operator_key.encode()):
            return Caller(operator=True)
        digest = token_hash(credential)
        found = self._known.get(digest) or self.progress.run_of_token(digest)
        if found is None:
            raise ApiError(401, "unauthorized", "the bearer token is not valid")
        self._known[digest] = found
        run_id, expires = found
        if expires <= stamp(datetime.now(UTC)):
            raise ApiError(401, "token_expired", f"the bearer token expired at {expires}")
        return Caller(operator=False, run_id=run_id)

    def operator(self, authorization: str | None) -> Caller:
        caller = self.caller(authorization)
        if not caller.operator:
            raise ApiError(403, "forbidden", "only the operator key may do this")
        return caller
