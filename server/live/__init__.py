"""Live: this process's games and connections. The cached games and who follows them (``cache``,
one lock a game in ``locks``), the one door of a change (``changes``: decide, commit, apply),
passing it on (``fanout``) and hearing of the other processes' (``listener``), who is connected
(``presence``), the lobby (``lobby``), the clocks (``timers``), the heartbeat and the guests
kept (``heartbeat``), the games in play recovered on start (``recovery``), the server's bots'
turns (``botturns``, on ``ai.pool``), the computer analyses it makes (``analyst``, on the same
pool), the puzzles it finds in the archived games (``miner``, likewise), the tournaments it
drives (``director``: pairs, games and scores, under a lease each), a connection's own
state and queue (``session``), and the connections that do not read (``backlog``).

Each part names what it uses in its constructor (``server.runtime`` builds them); a call up to
the requests or the edge is a callable it is given (``Listener``'s ``on_signed_out``), or, for
a loop, the connections here given when it starts (``LobbyFeed.broadcast``).

May import ``storage``, ``archive``, ``game`` and ``server.settings``; ``requests`` and the
edge use it.
"""
