"""The records' tables; the migrations under `migrations/versions` create exactly these."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

HEAD = "0007"  # the newest migration; opening a store at this revision skips Alembic entirely

Json = JSON()  # plain json on PostgreSQL too: the text is kept as serialised, keys in order
Stamp = String(32)  # ISO-8601 UTC text, the form the JSON carries; it sorts as time does

metadata = MetaData()

benchmark_runs = Table(
    "benchmark_runs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("world", String(200), nullable=False),
    Column("world_version", String(100), nullable=False),
    Column("world_path", Text, nullable=False),
    Column("agent", Text, nullable=False),
    Column("repeats", Integer, nullable=False),
    Column("tasks", Integer, nullable=False),
    Column("task_runs", Integer, nullable=False),
    Column("scored", Boolean, nullable=False),
    Column("phase", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("score", Float),
    Column("verdict", String(16)),
    Column("figures", Json),
    Column("created_at", Stamp, nullable=False),
    Column("started_at", Stamp),
    Column("finished_at", Stamp),
    Column("token_hash", String(64)),
    Column("token_expires_at", Stamp),
    Column("key_id", String(64)),  # the API key that created the run; None for the operator's
    # how its container-format tasks were verified: `task` (each task's own mode) or `separate`
    Column("verifier_mode", String(16), nullable=False, server_default="task"),
    # how it was made: its RunConfig, assay's version, the world's digest (`runs.config`)
    Column("config", Json),
    Index("ix_benchmark_runs_created_at", "created_at"),
    Index("ix_benchmark_runs_token_hash", "token_hash", unique=True),
)

task_runs = Table(
    "task_runs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column(
        "benchmark_run_id",
        String(64),
        ForeignKey("benchmark_runs.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("position", Integer, nullable=False),
    Column("task_id", String(200), nullable=False),
    Column("repeat", Integer, nullable=False),
    Column("split", String(16), nullable=False),
    Column("phase", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("outcome", String(16)),
    Column("reward", Integer),
    Column("score", Float),
    Column("verdict", String(16)),
    Column("axes", Json),
    Column("summary", Json),
    Column("result", Json),
    Column("created_at", Stamp, nullable=False),
    Column("started_at", Stamp),
    Column("finished_at", Stamp),
    UniqueConstraint("benchmark_run_id", "task_id", "repeat", name="uq_task_runs_repeat"),
    Index("ix_task_runs_position", "benchmark_run_id", "position"),  # a run read page by page
)

check_runs = Table(
    "check_runs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column(
        "task_run_id", String(64), ForeignKey("task_runs.id", ondelete="CASCADE"), nullable=False
    ),
    Column("position", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("type", String(16), nullable=False),
    Column("kind", String(64), nullable=False),
    Column("weight", Float, nullable=False),
    Column("axis", String(200)),
    Column("passed", Boolean, nullable=False),
    Column("score", Float, nullable=False),
    Column("details", Text),
    Column("evidence", Json),
    Column("judged", Boolean, nullable=False, server_default=false()),  # a model gave the verdict
    Index("ix_check_runs_task_run_id", "task_run_id"),
)

trajectories = Table(
    "trajectories",
    metadata,
    Column(
        "task_run_id",
        String(64),
        ForeignKey("task_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("trajectory", Json, nullable=False),
)

validations = Table(
    "validations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("world", String(200), nullable=False),
    Column("version", String(100), nullable=False),
    Column("task_id", String(200), nullable=False),
    Column("task_hash", String(128), nullable=False),
    Column("passed", Boolean, nullable=False),
    Column("record", Json, nullable=False),
    Column("created_at", Stamp, nullable=False),
    Index("ix_validations_world_version", "world", "version"),
)

task_run_actions = Table(
    "task_run_actions",
    metadata,
    Column(
        "task_run_id",
        String(64),
        ForeignKey("task_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("seq", Integer, primary_key=True),
    Column("action", Json, nullable=False),
)

builds = Table(
    "builds",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("world", String(200), nullable=False),
    Column("version", String(100), nullable=False),
    Column("model", Text, nullable=False),
    Column("prompt_hash", String(64), nullable=False),
    Column("published", Integer, nullable=False),
    Column("rejected", Integer, nullable=False),
    Column("record", Json, nullable=False),
    Column("created_at", Stamp, nullable=False),
    Index("ix_builds_world", "world", "created_at"),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", Text, nullable=False),
    Column("scope", String(16), nullable=False),
    Column("key_hash", String(64), nullable=False),
    Column("created_at", Stamp, nullable=False),
    Column("expires_at", Stamp),
    Column("revoked_at", Stamp),
    Index("ix_api_keys_key_hash", "key_hash", unique=True),
)
