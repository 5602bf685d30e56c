"""Live: this process's games and connections. The cached games and who follows them
(``cache``, one lock a game in ``locks``), the one door of a change (``changes``: decide,
commit, apply), passing it on (``fanout``) and hearing of the other processes' (``listener``),
who is connected (``presence``), the lobby (``lobby``), the clocks (``timers``), the server's
bots' turns (``botturns``, on ``ai.pool``), and a connection's own state and queue
(``session``).

May import ``storage``, ``archive``, ``game`` and ``server.settings``; ``requests`` and the
edge use it.
"""
