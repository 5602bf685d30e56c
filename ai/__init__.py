"""Hive Arena's players: the UHP engine now; search and bots later.

Everything here is pure (it imports ``hive``, never ``server``) except ``ai.uhp``'s ``serve``
and ``main``, which do the engine's stdin/stdout IO.
"""
