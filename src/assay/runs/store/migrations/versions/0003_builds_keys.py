"""Task builds with a model, API keys with scopes, and the key each benchmark run was created with.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

Json = sa.JSON()
Stamp = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "builds",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("world", sa.String(200), nullable=False),
        sa.Column("version", sa.String(100), nullable=False),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("prompt_hash", sa.String(64), nullable=False),
        sa.Column("published", sa.Integer, nullable=False),
        sa.Column("rejected", sa.Integer, nullable=False),
        sa.Column("record", Json, nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
    )
    op.create_index("ix_builds_world", "builds", ["world", "created_at"])
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("expires_at", Stamp),
        sa.Column("revoked_at", Stamp),
    )
    op.create_index("ix_api_keys_key_hash", "api_keys", ["key_hash"], unique=True)
    with op.batch_alter_table("benchmark_runs") as table:
        table.add_column(sa.Column("key_id", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("benchmark_runs") as table:
        table.drop_column("key_id")
    op.drop_index("ix_api_keys_key_hash", "api_keys")
    op.drop_table("api_keys")
    op.drop_index("ix_builds_world", "builds")
    op.drop_table("builds")
