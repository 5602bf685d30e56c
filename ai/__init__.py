"""Hive Arena's players: evaluation, search, opening book, bot levels, arenas and the UHP engine.

Pure (it imports ``hive``, never ``protocol``, ``server`` or ``hivebot``) except for the
programs' IO: ``ai.uhp`` (the ``hive-engine`` loop), ``ai.cli`` (``hive-ai``), ``ai.arena``
(worker processes), ``ai.uhpclient`` (the external engines an arena plays) and ``ai.pool`` (the
worker processes that compute bot moves for the server and for ``hive-bot``, on asyncio). A
search reads time only through the clock it is given.
"""
