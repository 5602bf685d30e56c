"""Hive Arena's players: evaluation, search, opening book, bot levels, arenas and the UHP engine.

Pure (it imports ``hive``, never ``server``) except for the programs' IO: ``ai.uhp`` (the
``hive-engine`` loop), ``ai.cli`` (``hive-ai``), ``ai.arena`` (worker processes) and
``ai.uhpclient`` (the external engines an arena plays). A search reads time only through the
clock it is given.
"""
