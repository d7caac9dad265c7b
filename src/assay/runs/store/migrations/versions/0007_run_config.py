"""A benchmark run keeps how it was made: its configuration (every setting that shapes it), assay's
version and the world's digest, as JSON; runs made before it have none.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("benchmark_runs") as table:
        table.add_column(sa.Column("config", sa.JSON()))


def downgrade() -> None:
    with op.batch_alter_table("benchmark_runs") as table:
        table.drop_column("config")
