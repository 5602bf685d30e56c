"""Fixtures for ``hive-bot``'s tests: the bot plays on a real server (tests/server's fixtures: a
real Redis, the server on port 0)."""

from tests.server.conftest import postgres_server, redis_server, srv, start_server

__all__ = ["postgres_server", "redis_server", "srv", "start_server"]
