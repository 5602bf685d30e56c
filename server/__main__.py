"""``python -m server`` / ``hive-server``: run the server until SIGTERM or Ctrl-C.

``hive-server create-bot NAME``: create a bot account (its token in the server's Redis, the
account, flagged as a bot, in its database) and print its secret token (for ``hive-bot
--token``).

``hive-server migrate``: bring the database's schema up to date, and stop (the server does it
on start too).

``hive-server puzzles load FILE``: store the puzzles of a file of ``hive-ai puzzles`` (a JSON
object a line) in the database; a puzzle stored already (the same position and line) is not
stored again.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import gc
import logging
import resource
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import redis
import uvloop

from ai.bots import LEVELS
from protocol import MAX_NICKNAME, ProtocolError
from server.archive import puzzles
from server.archive.db.database import Database, default_url, shown
from server.archive.games import DATABASE_ERRORS
from server.edge.connection import Connections
from server.embedded import RedisProcess
from server.game import names
from server.game.clock import now_ms
from server.requests.accounts import AccountBook
from server.runtime import running
from server.settings import (
    Settings,
    add_database_arguments,
    add_storage_arguments,
    from_args,
)
from server.storage.connect import connect
from server.storage.connect import shown as shown_redis
from server.storage.stopping import cancel_all
from server.storage.store import Store

log = logging.getLogger("server")


STOP_LIMIT_SECONDS: Final = 25.0
"""How long a stop may take, from SIGTERM: past it the server prints every thread's stack
(``faulthandler``) and exits with status 1, rather than hang (each step of the stop is bounded
on its own, ``server.runtime``; this bounds what is not: a thread that will not end)."""
TASKS_SHOWN_BEFORE: Final = 5.0
"""How long before that limit the tasks still running are logged, with where each waits."""
GC_FREEZE_SECONDS = 5.0
GC_FULL_SECONDS = 600.0
GC_FULL_AFTER_CLOSED = 2000
"""Connections closed since the last full collection that bring the next one forward."""


async def tune_gc(connections: Connections) -> None:
    """Keep the garbage collector's full passes out of the way of moves.

    A server holds hundreds of thousands of long-lived objects (connections, games, boards), and
    each full collection walks them all: pauses of several hundred milliseconds every few
    seconds under load (measured by bench/load.py). What has survived a few seconds is moved out
    of the collector's sight (``gc.freeze``), young collections run less often, and the frozen
    objects are looked at again, in one full pass, every ten minutes, or sooner once 2,000
    connections have closed: a connection that lived across a freeze leaves its reference
    cycles frozen when it closes, and clients coming and going (hostile or not) would
    otherwise pile them up for ten minutes (bench/hostile.py measured it). (A young
    collection before each freeze, to keep fresh garbage out of it, paused the server for
    about 40 ms every five seconds under load: bench/load.py's p99 went from 1.6 to 3 ms.)
    """
    gc.set_threshold(50_000, 100, 100)
    loop = asyncio.get_running_loop()
    last_full = loop.time()
    closed_at_full = connections.closed
    while True:
        await asyncio.sleep(GC_FREEZE_SECONDS)
        if (
            loop.time() - last_full >= GC_FULL_SECONDS
            or connections.closed - closed_at_full >= GC_FULL_AFTER_CLOSED
        ):
            gc.unfreeze()
            gc.collect()
            last_full = loop.time()
            closed_at_full = connections.closed
        gc.freeze()


def raise_file_limit() -> None:
    """Raise the soft limit on open files to the hard one: every connection is a file, and
    the server refuses connections near the limit (``Connections.admit``)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def run(settings: Settings) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with running(settings) as (server, hub):
        port = server.sockets[0].getsockname()[1] if settings.port == 0 else settings.port
        log.info("Hive Arena is ready: open http://%s:%d/", settings.host, port)
        if hub.metrics.port is not None:
            metrics = hub.metrics.port
            log.info("metrics for Prometheus: http://%s:%d/metrics", settings.host, metrics)
        gc_task = asyncio.create_task(tune_gc(hub.connections))
        await stop.wait()
        gc_task.cancel()
        log.info("stopping: closing connections (1001), then storage")
        loop.call_later(STOP_LIMIT_SECONDS - TASKS_SHOWN_BEFORE, show_tasks, loop)
        faulthandler.dump_traceback_later(STOP_LIMIT_SECONDS, exit=True)
    # Any task left is stopped here, cancelled again until it ends: the event loop's own end
    # cancels each once and waits for it, forever for one that swallowed that cancellation.
    await cancel_all([task for task in asyncio.all_tasks() if task is not asyncio.current_task()])


def show_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Log every task still running, with where each waits, down its chain of awaits (a stop
    that is taking too long: the threads' stacks follow, but they show a waiting event loop,
    not what it waits for)."""
    tasks = asyncio.all_tasks(loop)
    lines = [f"stopping takes long: {len(tasks)} tasks still running"]
    for task in tasks:
        lines.append(f"{task.get_name()}:")
        awaited: Any = task.get_coro()
        while awaited is not None:
            frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
            frame = frame or getattr(awaited, "gi_frame", None)
            if frame is not None:
                code = frame.f_code
                lines.append(f"  {code.co_filename}:{frame.f_lineno} in {code.co_name}")
            awaited = (
                getattr(awaited, "cr_await", None)
                or getattr(awaited, "ag_await", None)
                or getattr(awaited, "gi_yieldfrom", None)
            )
            if awaited is not None and frame is not None and code.co_name == "__aexit__":
                # (an async context manager's generator: its asend is no way in)
                awaited = getattr(frame.f_locals.get("self"), "gen", awaited)
    log.warning("\n".join(lines))


def create_bot(argv: Sequence[str]) -> int:
    """``hive-server create-bot NAME``: print the new account's token on stdout."""
    p = argparse.ArgumentParser(
        prog="hive-server create-bot",
        description="Create a bot account and print its secret token (for hive-bot --token).",
    )
    p.add_argument(
        "name", help=f"the bot's name: 1 to {MAX_NICKNAME} letters (of one script), digits, ' .-_'"
    )
    add_storage_arguments(p)  # the server's own: the running server's Redis
    add_database_arguments(p, data=False)  # and its database (the account, as a bot's)
    p.add_argument(
        "--new-token",
        action="store_true",
        help="give an existing bot account a new token (its old token stops working)",
    )
    args = p.parse_args(argv)
    try:
        args.name = names.bot_name(args.name, LEVELS)
    except ProtocolError as error:
        p.error(error.message)
    embedded: RedisProcess | None = None
    url = args.redis_url
    if url is None:  # the embedded Redis: the running server's, or started for this
        folder = RedisProcess(args.data / "redis")
        url = folder.url
        try:
            with redis.Redis.from_url(url) as probe:
                probe.ping()
        except redis.exceptions.ConnectionError:
            embedded = folder
            embedded.start()

    database = Database(args.database_url or default_url(args.data))

    async def create() -> tuple[str, str]:
        connections = connect(url, timeout=3.0)
        client = connections.client
        try:
            await database.migrate()
            book = AccountBook(database)
            found = await book.named(args.name)
            if found is not None and not found.bot:
                raise ValueError(f"an account is named {found.name!r}")
            player, token = await Store(client).new_bot(
                args.name, now_ms(), new_token=args.new_token
            )
            await book.add_bot(player, args.name, now_ms())
            return player, token
        finally:
            await connections.aclose()
            await database.close()

    try:
        player, token = asyncio.run(create())
    except ValueError as error:
        print(f"hive-server create-bot: {error}", file=sys.stderr)
        return 1
    except redis.exceptions.ConnectionError as error:
        print(
            f"hive-server create-bot: cannot reach Redis at {shown_redis(url)}: {error}",
            file=sys.stderr,
        )
        return 2
    except DATABASE_ERRORS as error:
        print(f"hive-server create-bot: {shown(database.url)}: {error}", file=sys.stderr)
        return 2
    finally:
        if embedded is not None:
            embedded.stop()
    print(f"bot account {args.name!r} (player {player}); its token:", file=sys.stderr)
    print(token)
    return 0


def migrate(argv: Sequence[str]) -> int:
    """``hive-server migrate``: run the database's migrations, and nothing else."""
    p = argparse.ArgumentParser(
        prog="hive-server migrate",
        description="Bring the database's schema up to date (the server does it on start too).",
    )
    add_database_arguments(p)
    args = p.parse_args(argv)
    database = Database(args.database_url or default_url(args.data))

    async def run() -> None:
        try:
            await database.migrate()
        finally:
            await database.close()

    try:
        asyncio.run(run())
    except DATABASE_ERRORS as error:
        print(f"hive-server migrate: {shown(database.url)}: {error}", file=sys.stderr)
        return 2
    print(f"the database {shown(database.url)} is up to date", file=sys.stderr)
    return 0


def load_puzzles(argv: Sequence[str]) -> int:
    """``hive-server puzzles load FILE``: print how many puzzles were added."""
    p = argparse.ArgumentParser(
        prog="hive-server puzzles load",
        description="Store the puzzles of FILE (hive-ai puzzles --out) in the database, each once.",
    )
    p.add_argument("file", type=Path, help="a JSON-lines file of hive-ai puzzles")
    add_database_arguments(p)
    args = p.parse_args(argv)
    try:
        with args.file.open(encoding="utf-8") as lines:
            found = puzzles.read_lines(lines)
    except (OSError, ValueError) as error:
        print(f"hive-server puzzles load: {args.file}: {error}", file=sys.stderr)
        return 1
    database = Database(args.database_url or default_url(args.data))

    async def run() -> int:
        try:
            await database.migrate()
            return await puzzles.load(database, found)
        finally:
            await database.close()

    try:
        added = asyncio.run(run())
    except (*DATABASE_ERRORS, ValueError) as error:
        print(f"hive-server puzzles load: {shown(database.url)}: {error}", file=sys.stderr)
        return 2
    print(f"{added} puzzles added, {len(found) - added} stored already", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["create-bot"]:
        return create_bot(argv[1:])
    if argv[:1] == ["migrate"]:
        return migrate(argv[1:])
    if argv[:2] == ["puzzles", "load"]:
        return load_puzzles(argv[2:])
    settings = from_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # websockets says every connection and HTTP request at INFO: with a proxy's health check
    # every second, that drowns the server's own lines. Its warnings and errors still show.
    logging.getLogger("websockets").setLevel(logging.WARNING)
    # A process that hangs says where: SIGABRT (or a crash) prints every thread's stack, and
    # SIGUSR1 prints them and goes on.
    faulthandler.enable()
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    raise_file_limit()
    try:
        # uvloop: the event loop in C (asyncio's own loop was a fifth of the CPU under load).
        uvloop.run(run(settings))
    except (OSError, RuntimeError, FileNotFoundError) as error:
        print(f"hive-server: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
