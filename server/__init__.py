"""The Hive Arena game server: lobby, games against people and bots, spectators, reconnects and
server clocks, with every session in Redis. ``python -m server`` or ``hive-server`` runs it."""
