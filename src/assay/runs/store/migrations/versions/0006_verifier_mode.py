"""A benchmark run says how its container-format tasks were verified: each task's own mode (`task`)
or `separate` for every task.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("benchmark_runs") as table:
        table.add_column(
            sa.Column("verifier_mode", sa.String(16), nullable=False, server_default="task")
        )


def downgrade() -> None:
    with op.batch_alter_table("benchmark_runs") as table:
        table.drop_column("verifier_mode")
