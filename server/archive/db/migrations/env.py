"""Alembic's environment: migrate on the connection ``server.archive.db.database`` hands over."""

from __future__ import annotations

from alembic import context

from server.archive.db.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
