"""A check run says whether a model gave its verdict (a judge check), as the result does.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("check_runs") as table:
        table.add_column(sa.Column("judged", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("check_runs") as table:
        table.drop_column("judged")
