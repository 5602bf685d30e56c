"""The relational database: what lasts after a game (the archive of finished games, and the
players who played them), through SQLAlchemy 2's asyncio API.

``tables`` (the schema, in SQLAlchemy Core), ``database`` (the engine: SQLite under ``--data``
by default, PostgreSQL with ``--database-url``, and the migrations, run on start), and
``migrations/`` (Alembic's scripts, shipped in the package). Redis keeps what is live; the
database is written only off the path of a move (``server.archive.games``), so a database that is
down stops no game.
"""
