"""What a server process measures, for Prometheus (``prometheus_client``), served on a port of
its own (``Settings.metrics_port``, ``metrics_endpoint``), never on the public one: a proxy in
front of the public port shows it to nobody, and each process is scraped on its own.

Each server (``server.runtime.Parts``) has its own registry, so that several servers in one
process (the tests) keep their figures apart. What mirrors the state of the process's parts
(connections, games, players, the bot pool) is read from them when scraped (``Figures``). The
process's own figures (CPU, memory, open files) are prometheus_client's process collector's. No
``*_created`` series: they double the series and say only when the process started
(``process_start_time_seconds`` does).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
from collections.abc import AsyncIterator, Collection, Iterator
from http import HTTPStatus
from typing import TYPE_CHECKING, Final

import prometheus_client
from prometheus_client import (
    PLATFORM_COLLECTOR,
    CollectorRegistry,
    Counter,
    Histogram,
    Info,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from server.edge.answers import ALLOW, METHODS, SERVER, headless, response, stop_serving, text
from server.game.movers import BOT_ACCOUNT, PERSON, SERVER_BOT

if TYPE_CHECKING:
    from ai.pool import BotPool
    from server.archive.games import Archive
    from server.edge.health import Health
    from server.live.fanout import Fanout
    from server.live.lobby import LobbyBoard
    from server.live.presence import Presence
    from server.live.session import Session
    from server.requests.analysis import Analysis

prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
CLOSE_SECONDS: Final = 5.0
"""Longest wait for the scrapes under way when the endpoint stops."""

_FAST: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_BOT: Final = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)


def version() -> str:
    """The installed hive-arena's version ("unknown" when run from a bare source tree)."""
    try:
        return importlib.metadata.version("hive-arena")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class Metrics(Collector):
    """The process's figures: what its parts count, and (``read``) their state when scraped."""

    def __init__(self) -> None:
        self.content_type = CONTENT_TYPE
        self.port: int | None = None  # where /metrics is served, once it is
        self.registry = CollectorRegistry()
        r = self.registry
        ProcessCollector(registry=r)
        r.register(PLATFORM_COLLECTOR)
        Info("hive_build", "The server's version", registry=r).info({"version": version()})
        # Counted several times a move (``counted``: five frames a move) as a plain int, read
        # when scraped: a prometheus_client Counter takes a lock at each ``inc``.
        self.frames_sent = 0
        r.register(self)
        self.moves = Counter(
            "hive_moves",
            f"Moves played through this process, by who played them ({PERSON}, {BOT_ACCOUNT}: "
            f"a bot account's connection, {SERVER_BOT}: the server's own bots)",
            ["player"],
            registry=r,
        )
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
        self.analysed = Counter(
            "hive_analysed_positions",
            "Positions of finished games searched by this process for their computer analysis",
            registry=r,
        )
        self.games_mined = Counter(
            "hive_puzzle_games_mined",
            "Archived games read for puzzles by this process (server.live.miner)",
            registry=r,
        )
        self.puzzles_mined = Counter(
            "hive_puzzles_mined",
            "Puzzles found in archived games and added by this process (each stored once)",
            registry=r,
        )
        self.redis_seconds = Histogram(
            "hive_redis_round_trip_seconds",
            "A Redis round trip (the heartbeat's, once a second)",
            buckets=_FAST,
            registry=r,
        )
        self.redis_errors = Counter(
            "hive_redis_errors",
            "Redis commands that failed (no answer in time, connection lost), by error",
            ["error"],
            registry=r,
        )
        self.primary_changes = Counter(
            "hive_redis_primary_changes",
            "Times this process saw the Redis primary's address change (a Sentinel failover): "
            "it subscribed again on the new primary and read its games again from it",
            registry=r,
        )
        self.wait_timeouts = Counter(
            "hive_redis_wait_timeouts",
            "Changes committed on the Redis primary that no replica held within --redis-wait, "
            "by what became of them (refused: answered 'unavailable'; acknowledged: on the "
            "primary alone)",
            ["outcome"],
            registry=r,
        )
        self.loop_lag = Histogram(
            "hive_event_loop_lag_seconds",
            "How late the event loop ran a timer (measured twice a second): time every "
            "connection of the process waited",
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
        self.changes_heard = Counter(
            "hive_changes_heard",
            "Committed changes heard from Redis, by whether this process made them",
            ["made"],
            registry=r,
        )
        self.change_delay = Histogram(
            "hive_change_delay_seconds",
            "From a change sent to Redis to commit (by any process) to this process hearing "
            "of it, by whether this process made it",
            ["made"],
            buckets=_FAST,
            registry=r,
        )
        self.closed_for_abuse = Counter(
            "hive_closed_for_abuse", "Connections closed with 1008 for breaking limits", registry=r
        )
        self.connections_closed = Counter(
            "hive_connections_closed",
            "Websocket connections ended, by close code (1000 normal, 1001 going away, 1006 "
            "broken off without a close, 1008 limits, 4001 signed out...)",
            ["code"],
            registry=r,
        )
        self.received = Counter(
            "hive_messages_received",
            "Messages received from clients, by type (undecodable: frames that were none)",
            ["type"],
            registry=r,
        )
        # each type's count looked up once (the types are the protocol's tags, a closed set)
        self.received_of = functools.cache(self.received.labels)
        self.games_ended = Counter(
            "hive_games_ended",
            "Games that ended, by reason, as this process's lobby heard of them: every process "
            "counts every game of its Redis (take the max over processes, not the sum)",
            ["reason"],
            registry=r,
        )

    def wait_timed_out(self, refused: bool) -> None:
        """A change's wait for replicas timed out: it was ``refused``, or acknowledged."""
        self.wait_timeouts.labels("refused" if refused else "acknowledged").inc()

    def mined(self, games: int, puzzles: int) -> None:
        """A pass of the puzzle miner read ``games`` and added ``puzzles``."""
        self.games_mined.inc(games)
        self.puzzles_mined.inc(puzzles)

    def collect(self) -> Iterator[Metric]:
        """What this object counts as plain ints (read when scraped)."""
        yield CounterMetricFamily(
            "hive_frames_sent",
            "Websocket frames written to clients (messages, and pings and closes)",
            value=self.frames_sent,
        )

    def read(self, figures: Figures) -> None:
        """Read ``figures`` from the parts when scraped (given once the parts are built: the
        parts count in this object's counters from their start)."""
        self.registry.register(figures)

    def exposition(self) -> bytes:
        """The figures in Prometheus's text format."""
        return generate_latest(self.registry)


@contextlib.asynccontextmanager
async def metrics_endpoint(metrics: Metrics, host: str, port: int | None) -> AsyncIterator[None]:
    """``GET /metrics`` on ``port`` (``Settings.metrics_port``) of ``host`` while in the block;
    the port is then ``metrics.port``. Nothing when ``port`` is None."""
    if port is None:
        yield
        return

    def answer(connection: ServerConnection, request: Request) -> Response:
        if request.method not in METHODS:
            return text(HTTPStatus.METHOD_NOT_ALLOWED, "only GET is answered here\n", ALLOW)
        if request.path.partition("?")[0] != "/metrics":
            found = text(HTTPStatus.NOT_FOUND, "only /metrics is served here\n")
        else:
            found = response(HTTPStatus.OK, metrics.exposition(), metrics.content_type)
        return headless(found) if request.method == "HEAD" else found

    async def refuse(connection: ServerConnection) -> None:
        raise AssertionError("unreachable: every request is answered over HTTP")

    server = await serve(refuse, host, port, process_request=answer, server_header=SERVER)
    metrics.port = server.sockets[0].getsockname()[1]
    try:
        yield
    finally:
        metrics.port = None
        await stop_serving(server, CLOSE_SECONDS, "the metrics endpoint")


class Figures(Collector):
    """The figures read from the process's parts when scraped: its connections (``sessions``)
    and those owed an update (``lagging``), its games (``lobby``), its players (``presence``),
    its bot workers (``pool``), whether Redis answers (``health``), its archive sweep, the
    changes passed on (``fanout``), and the analysis board's engine runs (``analysis``)."""

    def __init__(
        self,
        *,
        sessions: Collection[Session],
        lagging: Collection[Session],
        lobby: LobbyBoard,
        presence: Presence,
        pool: BotPool,
        health: Health,
        archive: Archive,
        fanout: Fanout,
        analysis: Analysis | None = None,
    ) -> None:
        self.fanout = fanout
        self.analysis = analysis
        self.sessions = sessions
        self.lagging = lagging
        self.lobby = lobby
        self.presence = presence
        self.pool = pool
        self.health = health
        self.archive = archive

    def collect(self) -> Iterator[Metric]:
        presence, lobby, archive = self.presence, self.lobby, self.archive
        for name, about, value in (
            ("hive_connections", "Open websocket connections", len(self.sessions)),
            (
                "hive_live_games",
                "Games in progress known to this process",
                len(lobby.in_progress),
            ),
            ("hive_open_games", "Open games waiting for a player", len(lobby.open)),
            ("hive_bot_queue", "Bot moves waiting for or using a worker", self.pool.queued),
            (
                "hive_background_queue",
                "Background work (engine lines) waiting for or using a bot worker",
                self.pool.background_queued,
            ),
            (
                "hive_engine_runs",
                "Engine runs of the analysis board going on here",
                0 if self.analysis is None else len(self.analysis.runs),
            ),
            (
                "hive_lagging",
                "Connections owed an update they were too slow to take",
                len(self.lagging),
            ),
            (
                "hive_redis_up",
                "1 while Redis answers this process's heartbeat (once a second), else 0",
                int(self.health.storage_ok),
            ),
            (
                "hive_archive_up",
                "1 while this process's archive sweep reaches Redis and the database, else 0",
                int(archive.up),
            ),
            (
                "hive_archive_waiting",
                "Finished games not yet archived in the database (at the last sweep)",
                archive.waiting,
            ),
            (
                "hive_spectators",
                "Connections here watching a game not over that they do not play",
                sum(presence.spectating.values()),
            ),
            (
                "hive_players_online",
                "Players (people and bot accounts) with a connection here",
                len(presence.by_player),
            ),
            (
                "hive_bots_online",
                "Bot accounts with a connection here",
                sum(1 for sessions in presence.by_player.values() if any(s.bot for s in sessions)),
            ),
        ):
            yield GaugeMetricFamily(name, about, value=value)
        yield CounterMetricFamily(
            "hive_states_built",
            "Game states built for watchers here (once a change, for all of them)",
            value=self.fanout.states_built,
        )
        yield CounterMetricFamily(
            "hive_changes_passed_on",
            "Committed changes of the games followed here passed on to the lobby and the "
            "watchers here (once a version, by whichever brings the cache here to it first)",
            value=self.fanout.passed_on,
        )
        yield CounterMetricFamily(
            "hive_games_archived",
            "Finished games this process wrote to the database",
            value=archive.written,
        )
        yield CounterMetricFamily(
            "hive_engine_runs_cancelled",
            "Engine runs ended early: stopped, replaced by another, their connection closed",
            value=0 if self.analysis is None else self.analysis.cancelled,
        )
        yield CounterMetricFamily(
            "hive_bot_workers_replaced",
            "Times the bot workers were replaced after one died (killed, out of memory)",
            value=self.pool.replaced,
        )
