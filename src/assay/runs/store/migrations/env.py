"""Alembic's entry point: migrate the connection the store hands over, inside its transaction."""

from alembic import context

from assay.runs.store.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
