"""Alembic's migrations of the database (``server.archive.db.database.migrate`` runs them;
there is no alembic.ini: the configuration is made in code). A change to
``server/archive/db/tables.py`` goes with a new script in ``versions/``, written by hand from
Alembic's operations; ``tests/server/test_database.py`` checks that the migrated schema is
the one ``tables.py`` describes."""
