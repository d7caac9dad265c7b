"""Task runs driven over HTTP: each run's bearer token, and every action of a task run in flight.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Json = sa.JSON()
Stamp = sa.String(32)


def upgrade() -> None:
    with op.batch_alter_table("benchmark_runs") as table:
        table.add_column(sa.Column("token_hash", sa.String(64)))
        table.add_column(sa.Column("token_expires_at", Stamp))
        table.create_index("ix_benchmark_runs_token_hash", ["token_hash"], unique=True)
    op.create_table(
        "task_run_actions",
        sa.Column(
            "task_run_id",
            sa.String(64),
            sa.ForeignKey("task_runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("action", Json, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("task_run_actions")
    with op.batch_alter_table("benchmark_runs") as table:
        table.drop_index("ix_benchmark_runs_token_hash")
        table.drop_column("token_expires_at")
        table.drop_column("token_hash")
