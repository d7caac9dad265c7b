"""The reserved `sandbox_*` tables the runtime fills: every service request and every agent action."""

from __future__ import annotations

RESERVED_TABLES = ("sandbox_actions", "sandbox_requests")

SQLITE_DDL = """
CREATE TABLE sandbox_requests (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    operation TEXT NOT NULL,
    payload TEXT NOT NULL,
    response TEXT,
    status TEXT NOT NULL,
    turn INTEGER NOT NULL,
    at TEXT NOT NULL,
    duplicate_of INTEGER
);
CREATE TABLE sandbox_actions (
    id INTEGER PRIMARY KEY,
    turn INTEGER NOT NULL,
    kind TEXT NOT NULL,
    tool TEXT,
    args TEXT,
    status TEXT NOT NULL,
    operation_id TEXT
);
"""

INSERT_REQUEST = (
    "INSERT INTO sandbox_requests (id, service, operation, payload, response, status, turn, at, "
    "duplicate_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_ACTION = (
    "INSERT INTO sandbox_actions (turn, kind, tool, args, status, operation_id) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)

# PostgreSQL: the same columns; json_extract casts text to JSON (see postgres/translate.py).
POSTGRES_DDL = """
CREATE TABLE sandbox_requests (
    id BIGINT PRIMARY KEY,
    service TEXT NOT NULL,
    operation TEXT NOT NULL,
    payload TEXT NOT NULL,
    response TEXT,
    status TEXT NOT NULL,
    turn BIGINT NOT NULL,
    at TEXT NOT NULL,
    duplicate_of BIGINT
);
CREATE TABLE sandbox_actions (
    id BIGINT PRIMARY KEY,
    turn BIGINT NOT NULL,
    kind TEXT NOT NULL,
    tool TEXT,
    args TEXT,
    status TEXT NOT NULL,
    operation_id TEXT
);
"""
RESERVED_ROWIDS = {"sandbox_requests": "id", "sandbox_actions": "id"}
