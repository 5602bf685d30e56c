"""The game, pure: a game as stored (``record``), its rules (``match``, ``social``, ``rematches``),
what a client sees of it (``view``) and of its computer analysis (``reviewed``), names
(``names``), ratings' maths (``rating``: speeds, Glicko-2), a puzzle's moves checked
(``puzzle``), who played a move (``movers``), and
``clock`` (the one read of the time, ``now_ms``).

Imports nothing of the server outside ``server.game``, and no Redis, SQL, websockets or
asyncio: ``tests/test_architecture.py`` fails on such an import.
"""
