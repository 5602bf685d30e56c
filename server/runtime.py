"""One server process: its parts wired together (``Parts``), and ``running``, which starts
and stops them and owns every background task. Each part's constructor names what it uses, so
the order they are built in here is checked by Python; nothing imports this module but the
entry point, ``server.__main__``.

Reading order, by layer, arrows pointing down: the edge, ``edge.connection`` (a websocket,
each frame to its handler) -> the requests, ``requests.signin`` and ``requests.accounts``
(its passwords hashed on the pool of ``requests.passwords``), ``requests.seating`` (with
``requests.creation``'s limits), ``requests.commands`` (each request to its rule in
``game.match``) -> live, ``live.changes`` (decide, commit, apply) -> ``live.fanout`` (pass
on: the lobby and the watchers here); ``requests.profiles`` answers profiles and leaderboards
(and the download of a player's games) from the database alone; ``requests.coaching`` builds
the analysis board (``requests.analysis``) and the computer analyses of finished games
(``requests.reviews``, made by ``live.analyst``); ``requests.puzzles`` serves puzzles and
rates their tries (``archive.puzzles``, moves checked by ``game.puzzle`` in the positions' worker),
and ``live.miner`` finds new ones in the archived games (``archive.mining``, on ``ai.pool``).
``live.listener``: every other process that has the game cached hears of the commit on the
game's channel (``storage.channels``), and passes it on to its own watchers.
Beside them, in ``live``: ``cache`` (the games here and who follows them), ``presence`` (who
is connected, here and elsewhere), ``lobby``, ``botturns`` (the server's bots' turns, on
``ai.pool``), ``timers`` (the clocks), ``heartbeat``, ``recovery`` (on start), ``backlog``
(the clients that do not read); at the edge, ``http`` (its routes; ``static``, the client's
files; ``addresses``, who asks from where; ``answers``, the headers of every answer),
``health``, ``metrics``. Outside the server:
``hive-bot`` is a program of its own (the package ``hivebot``). The game itself, pure, in
``game``: ``record`` (as stored; ``storage.codec`` packs it), its rules in ``match``,
``social`` (chat, mutes) and ``rematches``, and ``view`` (a record to the wire
``GameState``). Storage, in Redis (reached by ``storage.connect``: one Redis, or the primary
Sentinel names, which the listener follows through a failover): ``storage.store`` (games,
the commit, waiting for replicas when told to) with ``players`` and ``liveness``; the
archive, in SQL: ``archive.games`` (finished games, written once to the database of
``archive.db``, and read back from it). The wire is a package of its own,
``protocol`` (with its client in Python, ``protocol.client``).

Nothing a client sends, or fails to read, grows the process without bound: what waits to be
sent to one client is bounded (``Settings.queue_limit``), locks and cached games exist only
while used, a connection must say hello within ``Settings.hello_timeout``, an address has
a bounded number of connections, guests, open games and games against bots, and passwords are
hashed by ``Settings.hash_workers`` threads with at most ``Settings.hash_queue`` waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Final

from websockets.asyncio.server import Server, serve

from ai.pool import BotPool
from protocol import MAX_FRAME_BYTES
from server.archive.db.database import Database, default_url, shown
from server.archive.games import DATABASE_ERRORS, Archive
from server.edge.answers import SERVER, stop_serving
from server.edge.connection import Connections, counted, dispatch
from server.edge.health import Health
from server.edge.http import Routes, http
from server.edge.metrics import Figures, Metrics, metrics_endpoint
from server.edge.review import Positions
from server.embedded import RedisProcess
from server.game.movers import SERVER_BOT
from server.live.backlog import Backlog
from server.live.botturns import BotTurns
from server.live.cache import GameCache
from server.live.changes import Changes
from server.live.fanout import Fanout
from server.live.heartbeat import Guests, Heartbeat
from server.live.listener import Following, Listener
from server.live.lobby import LobbyBoard, LobbyFeed
from server.live.miner import PuzzleMiner
from server.live.presence import Presence, tell
from server.live.recovery import Recovery
from server.live.timers import Timers
from server.requests.accounts import Accounts
from server.requests.challenges import Challenges
from server.requests.coaching import coaching
from server.requests.commands import Commands
from server.requests.friends import Friends
from server.requests.passwords import Hashing
from server.requests.profiles import Profiles
from server.requests.puzzles import Puzzles
from server.requests.seating import Seating
from server.requests.signin import SignIn
from server.requests.tournaments import arenas
from server.settings import Settings
from server.storage.connect import RedisClients, connect
from server.storage.stopping import cancel_all
from server.storage.store import Store
from server.storage.tries import OpenTries

log = logging.getLogger(__name__)

SHUTDOWN_SECONDS: Final = 15
"""Longest wait for connections and tasks to end when the server stops."""


class Parts:
    """One server process's parts, each built here from what its constructor names: a part
    that needs another is built after it; where two need each other, one is given the other's
    callable later, as said where it is. No part holds them all."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        pool: BotPool,
        redis: RedisClients,
        database: Database,
    ) -> None:
        self.settings = settings
        self.store = store
        self.database = database
        self.pool = pool
        self.first_move_ms = first_move_ms = int(settings.first_move_timeout * 1000)
        self.metrics = metrics = Metrics()  # first: the parts count in it from their start
        # The store counts the waits for replicas that timed out: its counter is given now.
        store.wait_timed_out = metrics.wait_timed_out
        self.positions = Positions()
        self.lobby = board = LobbyBoard()
        # /healthz says how many connections are open, and the connections tell the health
        # when storage fails: the count is a callable, read when asked.
        self.health = Health(
            metrics.redis_errors,
            metrics.loop_lag,
            board,
            lambda: len(self.connections.sessions),
        )
        self.backlog = backlog = Backlog(settings.queue_limit, metrics.skipped)
        # The cache notes the games that come into it and go (for the listener's
        # subscriptions) and those whose watchers change (for presence's view): both are made
        # after it and read it, so they read its notes rather than give it callbacks.
        self.following = Following()
        touched: set[str] = set()
        self.cache = cache = GameCache(
            store, settings.event_log, touched.add, self.following.follow, self.following.unfollow
        )
        self.presence = presence = Presence(
            store,
            cache,
            touched,
            backlog,
            on_bots_changed=board.dirty.set,
            claim_after=int(settings.disconnect_claim * 1000),
        )
        self.lobby_feed = lobby_feed = LobbyFeed(
            board, presence, cache, store, backlog, metrics.games_ended
        )
        self.fanout = fanout = Fanout(
            cache,
            presence,
            lobby_feed,
            store,
            backlog,
        )
        self.archive = archive = Archive(store, database, pair_games=settings.rated_pair_games)
        self.changes = changes = Changes(
            cache,
            store,
            fanout,
            lobby_feed,
            process=presence.process,
            first_move_ms=first_move_ms,
            wake_archive=archive.wake,
        )
        # The archive commits a rated game's event through the changes, which wake it when a
        # rated game ends: its door is given later.
        archive.announce = changes.rated
        self.bot_turns = bot_turns = BotTurns(
            changes,
            cache,
            store,
            pool,
            first_move_ms=first_move_ms,
            trace_ttl=int(settings.trace_ttl),
            move_seconds=metrics.bot_move_seconds,
            count_move=lambda: metrics.moves.labels(SERVER_BOT).inc(),
        )
        # A bot's move goes through the changes, which start the bot's turn after a change:
        # the start is given later.
        changes.start_bot_turn = bot_turns.start_if_due
        self.timers = Timers(
            changes,
            cache,
            store,
            board,
            presence.connected,
            first_move_ms=first_move_ms,
            sweep_interval=settings.sweep_interval,
            disconnect_claim=settings.disconnect_claim,
            untimed_timeout=settings.untimed_timeout,
        )
        self.heartbeat = Heartbeat(
            store,
            presence,
            storage_answers=self.health.storage,
            redis_seconds=metrics.redis_seconds,
        )
        self.guests = Guests(store, board, session_ttl=settings.session_ttl)
        self.recovery = Recovery(
            store,
            deadline=changes.deadline,
            update_lobby=lobby_feed.update,
            start_bot_turn=bot_turns.start_if_due,
            first_move_ms=first_move_ms,
            hold_ms=int(settings.reconnect_grace * 1000),
        )
        # Signing out closes the connections, whose handlers are the sign-in's (a call up, to
        # the edge): a callable, the connections' ``close`` once they are built.
        self.signin = signin = SignIn(
            settings,
            store,
            presence,
            board,
            pool,
            lambda session, code, reason: self.connections.close(session, code, reason),
        )
        self.hashing = Hashing(settings.hash_workers, settings.hash_queue)
        self.accounts = Accounts(
            database,
            store,
            self.hashing,
            signin,
            presence,
            session_ttl=settings.session_ttl,
        )
        self.profiles = Profiles(database, store=store, per_address=settings.lookups_per_address)
        self.seating = Seating(settings, store, database, cache, changes, board, presence, pool)
        self.challenges = Challenges(
            store, database, self.seating, cache, changes, open_game_ttl=settings.open_game_ttl
        )
        self.friends = Friends(database, store, board, presence)
        self.tournaments, self.director = arenas(settings, store, database, self.seating, changes)
        changes.game_ended = self.director.woken.set  # (made after the changes it plays through)
        self.commands = Commands(
            settings,
            store,
            cache,
            changes,
            fanout,
            lobby_feed,
            moves=metrics.moves,
            move_seconds=metrics.move_seconds,
            blocked_by_any=self.friends.blocked_by_any,
        )
        self.analysis, self.analyst, self.reviews = coaching(
            settings, store, database, archive, pool, self.positions.call, metrics.analysed.inc
        )
        analysis, reviews = self.analysis, self.reviews
        self.puzzles = Puzzles(database, OpenTries(store), self.positions.call)
        self.miner = PuzzleMiner(settings, store, database, pool, metrics.mined)
        self.connections = Connections(
            settings,
            dispatch(
                signin,
                self.accounts,
                self.seating,
                self.commands,
                self.profiles,
                analysis,
                self.challenges,
                self.friends,
                reviews,
                self.puzzles,
                self.tournaments,
            ),
            metrics=metrics,
            health=self.health,
            store=store,
            cache=cache,
            fanout=fanout,
            presence=presence,
            lobby=board,
            on_closed=(analysis.forget, self.challenges.closed),
        )
        self.routes = Routes(
            self.connections,
            self.health,
            archive,
            self.positions,
            self.profiles,
            store,
            settings.proxies,
        )
        self.listener = Listener(
            redis.listener,
            store,
            cache,
            self.following,
            fanout,
            lobby_feed,
            made_here=changes.made_here,
            on_signed_out=signin.signed_out,
            on_notice=lambda players, frame: tell(presence, players, frame),
            changes_heard=metrics.changes_heard,
            change_delay=metrics.change_delay,
            primary=redis.primary,
            primary_changes=metrics.primary_changes,
            on_analysis=reviews.heard,
        )
        metrics.read(
            Figures(
                sessions=self.connections.sessions,
                lagging=fanout.lagging,
                lobby=board,
                presence=presence,
                pool=pool,
                health=self.health,
                archive=archive,
                fanout=fanout,
                analysis=analysis,
            )
        )

    def loops(self) -> list[asyncio.Task[None]]:
        """Start the background loops."""
        settings = self.settings
        sessions = self.connections.sessions
        return [
            asyncio.create_task(self.listener.listen()),
            asyncio.create_task(self.listener.follow_primary()),
            asyncio.create_task(self.timers.sweep()),
            asyncio.create_task(self.heartbeat.beat()),
            asyncio.create_task(self.lobby_feed.broadcast(sessions)),
            asyncio.create_task(self.lobby_feed.share()),
            asyncio.create_task(self.fanout.catch_up(sessions)),
            asyncio.create_task(self.timers.end_abandoned()),
            asyncio.create_task(self.timers.end_deserted()),
            asyncio.create_task(self.health.watch_loop()),
            asyncio.create_task(
                self.archive.sweep(
                    interval=settings.archive_interval, grace=int(settings.archive_grace)
                )
            ),
            asyncio.create_task(self.guests.keep()),
            asyncio.create_task(self.challenges.sweep()),
            asyncio.create_task(self.analyst.sweep()),
            asyncio.create_task(self.miner.sweep()),
            asyncio.create_task(self.director.drive()),
        ]


def _short_lived(hub: Parts) -> list[asyncio.Task[None]]:
    """The short-lived tasks running: bot turns, engine runs, analyses and closing
    connections."""
    return [
        *hub.bot_turns.tasks.values(),
        *(run.task for run in hub.analysis.runs.values()),
        *hub.connections.closing,
        *hub.analyst.running.values(),
        *hub.reviews.tasks,
    ]


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[Server, Parts]]:
    """The server, started (on ``settings.port``; 0 picks a free port) and stopped on exit:
    connections closed with 1001, tasks stopped, the worker pools and Redis closed."""
    embedded: RedisProcess | None = None
    url = settings.redis_url
    if url is None:
        embedded = RedisProcess(settings.data / "redis")
        embedded.start()  # in this thread: the child's parent-death signal follows the thread
        url = embedded.url
    connections = connect(url, timeout=settings.redis_timeout)
    database = Database(settings.database_url or default_url(settings.data))
    pool = BotPool(settings.bot_workers, trace_bytes=settings.trace_bytes)
    store = Store(
        connections.client,
        event_log=settings.event_log,
        replicas=settings.replicas,
        wait_ms=int(settings.redis_wait * 1000),
        refuse_unreplicated=settings.on_no_replica == "refuse",
    )
    hub = Parts(settings, store, pool, connections, database)
    tasks: list[asyncio.Task[None]] = []
    try:
        try:
            await database.migrate()
        except DATABASE_ERRORS as error:
            raise RuntimeError(f"the database {shown(database.url)}: {error}") from error
        hub.connections.secret = await hub.store.secret()  # the key of origin hashes
        await hub.recovery.recover()
        try:
            await hub.accounts.recover()
        except DATABASE_ERRORS as error:
            raise RuntimeError(f"the database {shown(database.url)}: {error}") from error
        tasks = hub.loops()
        if embedded is not None:
            tasks.append(asyncio.create_task(embedded.supervise()))
        server = await serve(
            hub.connections.handle,
            settings.host,
            settings.port,
            process_request=lambda connection, request: http(hub.routes, connection, request),
            server_header=SERVER,
            max_size=MAX_FRAME_BYTES,
            max_queue=8,
            compression=None,
            create_connection=counted(hub.metrics),
        )
        try:
            async with metrics_endpoint(hub.metrics, settings.host, settings.metrics_port):
                hub.health.ready = True
                yield server, hub
        finally:
            hub.health.ready = False
            await stop_serving(server, SHUTDOWN_SECONDS, "the server")
    finally:
        await cancel_all([*tasks, *_short_lived(hub)], SHUTDOWN_SECONDS)
        pool.close()
        hub.hashing.close()
        hub.positions.close()
        hub.analysis.close()
        try:
            async with asyncio.timeout(SHUTDOWN_SECONDS):
                await connections.aclose()
        except TimeoutError:
            log.warning("the Redis connections would not close")
        try:
            async with asyncio.timeout(SHUTDOWN_SECONDS):
                await database.close()
        except TimeoutError:
            log.warning("the database's connections would not close")
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
