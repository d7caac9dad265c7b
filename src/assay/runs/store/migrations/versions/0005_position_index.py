"""A run's task runs are found by run and position, so that reading a run page by page reads each
page's rows, not the whole run's, once for every page.

Revision ID: 0005
Revises: 0004
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_task_runs_benchmark_run_id", table_name="task_runs")
    op.create_index("ix_task_runs_position", "task_runs", ["benchmark_run_id", "position"])


def downgrade() -> None:
    op.drop_index("ix_task_runs_position", table_name="task_runs")
    op.create_index("ix_task_runs_benchmark_run_id", "task_runs", ["benchmark_run_id"])
