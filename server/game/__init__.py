"""The game, pure: a game as stored (``record``), its rules (``match``, ``social``,
``rematches``), what a client sees of it (``view``), names (``names``), and ``clock`` (the
one read of the time, ``now_ms``).

Imports nothing of the server outside ``server.game``, and no Redis, SQL or websockets (but,
for now, ``view`` takes a game's speed from ``archive.ratings``).
"""
