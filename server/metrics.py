"""What a server process measures, for Prometheus at ``GET /metrics`` (``prometheus_client``).

Each server (``server.runtime.Hub``) has its own registry, so that several servers in one
process (the tests) keep their figures apart. Gauges that mirror the hub's state are read when
scraped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST

_FAST: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_BOT: Final = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)


class Metrics:
    """The process's figures.

    Args:
        connections: How many websocket connections are open.
        live_games: How many games in progress this process knows of.
        bot_queue: How many bot moves wait for or use a worker.
        lagging: How many connections are owed an update (they stopped reading).
    """

    def __init__(
        self,
        *,
        connections: Callable[[], int],
        live_games: Callable[[], int],
        bot_queue: Callable[[], int],
        lagging: Callable[[], int],
    ) -> None:
        self.content_type = CONTENT_TYPE
        self.registry = CollectorRegistry()
        r = self.registry
        for name, text, read in (
            ("hive_connections", "Open websocket connections", connections),
            ("hive_live_games", "Games in progress known to this process", live_games),
            ("hive_bot_queue", "Bot moves waiting for or using a worker", bot_queue),
            ("hive_lagging", "Connections owed an update they were too slow to take", lagging),
        ):
            Gauge(name, text, registry=r).set_function(read)
        self.moves = Counter("hive_moves", "Moves played through this process", registry=r)
        self.move_seconds = Histogram(
            "hive_move_seconds",
            "From a move received to its commit in Redis",
            buckets=_FAST,
            registry=r,
        )
        self.bot_move_seconds = Histogram(
            "hive_bot_move_seconds",
            "From a bot's turn to its move computed (queue and search)",
            buckets=_BOT,
            registry=r,
        )
        self.redis_seconds = Histogram(
            "hive_redis_round_trip_seconds",
            "A Redis round trip (the heartbeat's, once a second)",
            buckets=_FAST,
            registry=r,
        )
        self.refused = Counter(
            "hive_refused", "Requests refused, by error code", ["code"], registry=r
        )
        self.skipped = Counter(
            "hive_frames_skipped",
            "Frames not sent to a client with too much waiting for it (it gets a snapshot)",
            registry=r,
        )
        self.states_built = Counter(
            "hive_states_built",
            "Game states built for watchers here (a change made elsewhere comes built)",
            registry=r,
        )
        self.changes_heard = Counter(
            "hive_changes_heard",
            "Committed changes heard from Redis, by whether this process made them (then its "
            "record is taken from the request, not unpacked)",
            ["made"],
            registry=r,
        )
        self.closed_for_abuse = Counter(
            "hive_closed_for_abuse", "Connections closed with 1008 for breaking limits", registry=r
        )

    def exposition(self) -> bytes:
        """The figures in Prometheus's text format."""
        return generate_latest(self.registry)
