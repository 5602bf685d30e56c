"""The requests: what a client asks, one module per family of messages. Signing in
(``signin``), accounts (``accounts``, its passwords hashed on the bounded pool of
``passwords``), taking a seat or making a game (``seating``, with ``creation``'s limits),
the commands of a game (``commands``: each to its rule in ``game``), profiles and
leaderboards (``profiles``, from the archive), the analysis board's positions and engine lines
(``analysis``: positions checked in a worker process, lines searched in the bot pool), the
computer analyses of finished games (``reviews``), challenges by name (``challenges``),
follows and blocks (``friends``), puzzles (``puzzles``: moves checked in the positions'
worker, tries rated in the archive) and arena tournaments (``tournaments``, which also wires
their director).

May import ``live``, ``storage``, ``archive``, ``game`` and ``server.settings``; the edge
calls it.
"""
