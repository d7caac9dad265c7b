"""The records: benchmark runs, task runs, check runs, trajectories, validations.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Json = sa.JSON()
Stamp = sa.String(32)


def upgrade() -> None:
    _benchmark_runs()
    _task_runs()
    _check_runs()
    _trajectories()
    _validations()


def _benchmark_runs() -> None:
    op.create_table(
        "benchmark_runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("world", sa.String(200), nullable=False),
        sa.Column("world_version", sa.String(100), nullable=False),
        sa.Column("world_path", sa.Text, nullable=False),
        sa.Column("agent", sa.Text, nullable=False),
        sa.Column("repeats", sa.Integer, nullable=False),
        sa.Column("tasks", sa.Integer, nullable=False),
        sa.Column("task_runs", sa.Integer, nullable=False),
        sa.Column("scored", sa.Boolean, nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("verdict", sa.String(16)),
        sa.Column("figures", Json),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("started_at", Stamp),
        sa.Column("finished_at", Stamp),
    )
    op.create_index("ix_benchmark_runs_created_at", "benchmark_runs", ["created_at"])


def _task_runs() -> None:
    op.create_table(
        "task_runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "benchmark_run_id",
            sa.String(64),
            sa.ForeignKey("benchmark_runs.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("task_id", sa.String(200), nullable=False),
        sa.Column("repeat", sa.Integer, nullable=False),
        sa.Column("split", sa.String(16), nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("outcome", sa.String(16)),
        sa.Column("reward", sa.Integer),
        sa.Column("score", sa.Float),
        sa.Column("verdict", sa.String(16)),
        sa.Column("axes", Json),
        sa.Column("summary", Json),
        sa.Column("result", Json),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("started_at", Stamp),
        sa.Column("finished_at", Stamp),
        sa.UniqueConstraint("benchmark_run_id", "task_id", "repeat", name="uq_task_runs_repeat"),
    )
    op.create_index("ix_task_runs_benchmark_run_id", "task_runs", ["benchmark_run_id"])


def _check_runs() -> None:
    op.create_table(
        "check_runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "task_run_id",
            sa.String(64),
            sa.ForeignKey("task_runs.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("weight", sa.Float, nullable=False),
        sa.Column("axis", sa.String(200)),
        sa.Column("passed", sa.Boolean, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("details", sa.Text),
        sa.Column("evidence", Json),
    )
    op.create_index("ix_check_runs_task_run_id", "check_runs", ["task_run_id"])


def _trajectories() -> None:
    op.create_table(
        "trajectories",
        sa.Column(
            "task_run_id",
            sa.String(64),
            sa.ForeignKey("task_runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("trajectory", Json, nullable=False),
    )


def _validations() -> None:
    op.create_table(
        "validations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("world", sa.String(200), nullable=False),
        sa.Column("version", sa.String(100), nullable=False),
        sa.Column("task_id", sa.String(200), nullable=False),
        sa.Column("task_hash", sa.String(128), nullable=False),
        sa.Column("passed", sa.Boolean, nullable=False),
        sa.Column("record", Json, nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
    )
    op.create_index("ix_validations_world_version", "validations", ["world", "version"])


def downgrade() -> None:
    for table in ("validations", "trajectories", "check_runs", "task_runs", "benchmark_runs"):
        op.drop_table(table)
