"""``hive-bot``: a program of its own, which plays on a Hive Arena server from outside, as
people do, with our bots or any UHP engine.

It speaks the wire (``protocol``) and computes moves with ``ai`` (our bots, in ``ai.pool``'s
worker processes) or a UHP engine's process; it never imports ``server``. Its modules:
``cli`` (the command line), ``session`` (the connection, the lobby, the refusals), ``game``
(its games: updates, game over and rematches, claims), ``move`` (its moves and their time),
``challenger`` (``--challenge``) and ``engines`` (where moves come from).
"""
