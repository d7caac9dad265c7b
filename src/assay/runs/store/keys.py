"""API keys in the records store: kept only as hashes, with their scope, expiry and revocation."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from assay.runs.stamps import now
from assay.runs.store.part import StorePart


@dataclass(frozen=True)
class KeyRecord:
    id: str
    name: str
    scope: str
    created_at: str
    expires_at: str | None
    revoked_at: str | None

    def state(self, moment: str) -> str:
        """active, expired or revoked at `moment` (an ISO-8601 UTC stamp)."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= moment:
            return "expired"
        return "active"

    def as_json(self, moment: str) -> dict[str, Any]:
        return {**vars(self), "state": self.state(moment)}


class KeyRecords(StorePart):
    def create_key(
        self, key_id: str, name: str, scope: str, key_hash: str, expires_at: str | None
    ) -> KeyRecord:
        from sqlalchemy import insert

        from assay.runs.store.tables import api_keys

        record = KeyRecord(key_id, name, scope, now(), expires_at, revoked_at=None)
        with self.engine.begin() as connection:
            connection.execute(insert(api_keys).values(**asdict(record), key_hash=key_hash))
        return record

    def key_of_hash(self, key_hash: str) -> KeyRecord | None:
        from sqlalchemy import select

        from assay.runs.store.tables import api_keys

        with self.engine.connect() as connection:
            row = connection.execute(
                select(api_keys).where(api_keys.c.key_hash == key_hash)
            ).first()
        return None if row is None else _record(row)

    def key(self, key_id: str) -> KeyRecord | None:
        """The key with that id, or None."""
        from sqlalchemy import select

        from assay.runs.store.tables import api_keys

        with self.engine.connect() as connection:
            row = connection.execute(select(api_keys).where(api_keys.c.id == key_id)).first()
        return None if row is None else _record(row)

    def api_keys(self) -> list[KeyRecord]:
        from sqlalchemy import select

        from assay.runs.store.tables import api_keys

        with self.engine.connect() as connection:
            rows = connection.execute(select(api_keys).order_by(api_keys.c.created_at)).all()
        return [_record(row) for row in rows]

    def revoke_key(self, key_id: str) -> KeyRecord | None:
        """Revoke the key with that id; None when there is no such key."""
        from sqlalchemy import update

        from assay.runs.store.tables import api_keys

        key = next((key for key in self.api_keys() if key.id == key_id), None)
        if key is None:
            return None
        if key.revoked_at is None:
            with self.engine.begin() as connection:
                connection.execute(
                    update(api_keys).where(api_keys.c.id == key.id).values(revoked_at=now())
                )
        return next(k for k in self.api_keys() if k.id == key.id)


def _record(row: Any) -> KeyRecord:
    return KeyRecord(
        id=row.id,
        name=row.name,
        scope=row.scope,
        created_at=row.created_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
    )
