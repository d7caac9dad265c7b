"""Who is calling: the operator key (admin), a stored key with its scope, or one benchmark run's
bearer token."""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from assay.runs.keys import KEY_PREFIX, Scope, digest, now_stamp, stamp
from assay.runs.store import Store
from assay.runs.store.progress import Progress
from assay.served.errors import ApiError

TOKEN_PREFIX = "asr_"
DAY_S = 24 * 3600.0  # how long a run's bearer token lasts unless the server says otherwise
token_hash = digest


@dataclass(frozen=True)
class Caller:
    """`scope` None: a run token, which sees only its own run (`run_id`)."""

    scope: Scope | None = None
    key_id: str | None = None
    run_id: str | None = None

    @property
    def operator(self) -> bool:
        """Admin: sees every run with its full evidence, holdout included."""
        return self.scope == "admin"

    def has(self, *scopes: Scope) -> bool:
        return self.scope in scopes


def new_key() -> str:
    return "aso_" + secrets.token_urlsafe(24)


class Auth:
    """Checks bearer credentials; stored keys and run tokens are kept only as hashes."""

    def __init__(self, operator_key: str, progress: Progress, token_ttl_s: float):
        self.operator_key = operator_key
        self.progress = progress
        self.token_ttl = timedelta(seconds=token_ttl_s)
        # token hash → (run id, expiry, the id of the key that created the run)
        self._known: dict[str, tuple[str, str, str | None]] = {}
        self._second = 0  # the whole second `_now_stamp` was made for
        self._stamp = ""

    @property
    def store(self) -> Store:
        return self.progress.store

    def issue(self, run_id: str) -> tuple[str, str]:
        """A new token for the run and its expiry; only the hash is stored."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        expires = stamp(datetime.now(UTC) + self.token_ttl)
        self.progress.set_token(run_id, token_hash(token), expires)
        return token, expires

    def caller(self, authorization: str | None) -> Caller:
        scheme, _, credential = (authorization or "").partition(" ")
        credential = credential.strip()
        if scheme.lower() != "bearer" or not credential:
            raise ApiError(401, "unauthorized", "send Authorization: Bearer <API key or run token>")
        if not credential.isascii():  # keys and tokens are ASCII: anything else matches nothing
            raise ApiError(401, "unauthorized", "the bearer token is not valid")
        if hmac.compare_digest(credential.encode(), self.operator_key.encode()):
            return Caller(scope="admin")
        if credential.startswith(KEY_PREFIX):
            return self._key(credential)
        return self._run_token(credential)

    def _key(self, credential: str) -> Caller:
        key = self.store.key_of_hash(digest(credential))  # read each time: revocation is at once
        if key is None:
            raise ApiError(401, "unauthorized", "the bearer token is not valid")
        state = key.state(now_stamp())
        if state == "revoked":
            raise ApiError(401, "key_revoked", f"the key {key.id} was revoked at {key.revoked_at}")
        if state == "expired":
            raise ApiError(401, "token_expired", f"the key {key.id} expired at {key.expires_at}")
        return Caller(scope=key.scope, key_id=key.id)  # type: ignore[arg-type]

    def _run_token(self, credential: str) -> Caller:
        hashed = token_hash(credential)
        found = self._known.get(hashed) or self.progress.run_of_token(hashed)
        if found is None:
            raise ApiError(401, "unauthorized", "the bearer token is not valid")
        self._known[hashed] = found
        run_id, expires, key_id = found
        if expires <= self._now_stamp():
            raise ApiError(401, "token_expired", f"the bearer token expired at {expires}")
        if key_id is not None:
            self._require_live_key(key_id, run_id)
        return Caller(run_id=run_id)

    def _require_live_key(self, key_id: str, run_id: str) -> None:
        """A run token lives no longer than the key that created its run (read each time, as
        keys are: a revocation ends the run's sessions at once)."""
        key = self.store.key(key_id)
        if key is None or key.state(now_stamp()) == "revoked":
            when = f" at {key.revoked_at}" if key is not None else ""
            raise ApiError(
                401, "key_revoked", f"the key {key_id} that created run {run_id} was revoked{when}"
            )

    def _now_stamp(self) -> str:
        """Now as a stamp (whole seconds, as expiries are), made once a second rather than on every
        request."""
        second = int(time.time())
        if second != self._second:
            self._second, self._stamp = second, stamp(datetime.fromtimestamp(second, UTC))
        return self._stamp

    def require(self, authorization: str | None, *scopes: Scope) -> Caller:
        """The caller, if it holds one of `scopes`; 403 otherwise."""
        caller = self.caller(authorization)
        if not caller.has(*scopes):
            needed = " or ".join(scopes)
            raise ApiError(403, "forbidden", f"this needs a key with the {needed} scope")
        return caller
