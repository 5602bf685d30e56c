"""``hive-bot``: a bot that plays on a Hive Arena server from outside, as people do.

    hive-bot --server ws://localhost:8080/ws --token TOKEN --level medium
    hive-bot --server ws://localhost:8080/ws --token TOKEN --uhp "hive-engine" \\
        --uhp-search "time 00:00:01"

It signs in with a bot account's token (``hive-server create-bot NAME``), says what it plays
(``bot_ready``), watches the lobby and joins the open games that ask for a bot (``opponent
bots``) or challenge it by name, as many at once as ``--max-games``. Its moves come from our
bots (``--level``, in worker processes) or from any engine speaking the Universal Hive Protocol
(``--uhp``: one engine process per game, given the GameString and asked ``bestmove``). When the
connection drops it reconnects, watches its games again from the last version it saw, and goes
on; a move being thought about meanwhile is sent on the new connection. With ``--tournament ID``
it also joins that tournament and plays every game it is paired in there
(``hivebot.tournament``).

docs/protocol.md ("Bots") describes what it does on the wire.

This module is its command line (``python -m hivebot`` runs it too). The bot itself:
``session`` (the connection, the lobby, the refusals), ``game`` (its games: updates, game over
and rematches, claims), ``move`` (its moves and their time), ``challenger`` (``--challenge``),
``tournament`` (``--tournament``) and ``engines``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from typing import Final

from websockets.exceptions import ConnectionClosed, InvalidURI

from ai.bots import LEVELS
from hive import GameType, HiveError
from hivebot.challenger import Challenger
from hivebot.engines import (
    ALL_TYPES,
    FALLBACK_LEVEL,
    Engine,
    EngineError,
    LevelEngine,
    UhpEngine,
    supported_types,
)
from hivebot.session import Runner
from protocol import TimeControl, TimeKind
from protocol.client import ServerError

log = logging.getLogger("hive-bot")

TIME_KINDS: Final[list[TimeKind]] = ["none", "clock", "days"]
STOP_SECONDS: Final = 2.0
"""The longest wait, stopping, to pause in its tournaments."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hive-bot",
        description="Play on a Hive Arena server as a bot account, with our bots or any UHP "
        "engine.",
    )
    p.add_argument("--server", required=True, help="websocket URL, e.g. ws://localhost:8080/ws")
    p.add_argument(
        "--token",
        default=os.environ.get("HIVE_BOT_TOKEN") or None,
        help="the bot account's token from 'hive-server create-bot' (env HIVE_BOT_TOKEN)",
    )
    engine = p.add_mutually_exclusive_group(required=True)
    engine.add_argument("--level", choices=list(LEVELS), help="play with our bot of this level")
    engine.add_argument("--uhp", metavar="COMMAND", help="play with this UHP engine command")
    p.add_argument(
        "--uhp-search",
        default="time 00:00:01",
        help="what follows 'bestmove' for the UHP engine (default %(default)r)",
    )
    p.add_argument(
        "--game-types",
        help="comma-separated game types it plays (default: all that the engine supports)",
    )
    p.add_argument(
        "--times",
        default=",".join(TIME_KINDS),
        help="comma-separated time control kinds it plays (default %(default)s)",
    )
    p.add_argument("--max-games", type=int, default=10, help="games at once (default 10)")
    p.add_argument("--anyone", action="store_true", help="also join open games meant for anyone")
    p.add_argument(
        "--workers", type=int, default=1, help="processes computing --level moves (default 1)"
    )
    p.add_argument(
        "--challenge",
        metavar="NAME",
        help="play --games games against this server level or bot account, one at a time, "
        "then stop (it then plays nothing else)",
    )
    p.add_argument("--games", type=int, default=1, help="games of --challenge (default 1)")
    p.add_argument(
        "--tournament",
        metavar="ID",
        action="append",
        default=[],
        help="join this tournament (repeatable; its id is in its page's address, "
        "#/tournament/ID) and play every game it pairs the bot in, alongside its other games "
        "(one of --max-games is kept free for each); it pauses there when it stops, and "
        "joins again when it starts",
    )
    p.add_argument(
        "--tournament-only",
        action="store_true",
        help="with --tournament: play nothing else, and stop once its tournaments are over",
    )
    p.add_argument(
        "--challenge-type",
        default="Base+MLP",
        help="game type of --challenge (default %(default)s)",
    )
    p.add_argument(
        "--challenge-time",
        default="none",
        help="time control of --challenge: 'none', or BASE+INCREMENT in minutes and seconds "
        "(e.g. 5+3; default %(default)s)",
    )
    return p


def time_control(text: str) -> TimeControl:
    """``none`` or ``MINUTES+SECONDS`` (``5+3``) as a ``TimeControl``.

    Raises:
        ValueError: Neither.
    """
    if text == "none":
        return TimeControl()
    minutes, _, increment = text.partition("+")
    try:
        return TimeControl("clock", round(float(minutes) * 60), int(increment or 0))
    except ValueError:
        raise ValueError(f"a time control is 'none' or MINUTES+SECONDS, not {text!r}") from None


async def _main(args: argparse.Namespace) -> int:
    engine: Engine
    if args.level is not None:
        engine = LevelEngine(args.level, args.workers)
        supported = ALL_TYPES
    else:
        uhp = UhpEngine(args.uhp, args.uhp_search, fallback=FALLBACK_LEVEL)
        supported = supported_types(await uhp.expansions())
        engine = uhp
    try:
        game_types = (
            [str(GameType.parse(t.strip())) for t in args.game_types.split(",")]
            if args.game_types
            else supported
        )
    except HiveError as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 2
    times = [kind.strip() for kind in args.times.split(",")]
    if unknown := [kind for kind in times if kind not in TIME_KINDS]:
        print(f"hive-bot: unknown time control kind {unknown[0]!r}", file=sys.stderr)
        return 2
    if args.tournament_only and not args.tournament:
        print("hive-bot: --tournament-only needs --tournament", file=sys.stderr)
        return 2
    if len(set(args.tournament)) > args.max_games:
        print("hive-bot: --max-games is less than the tournaments to play in", file=sys.stderr)
        return 2
    if args.tournament and args.challenge is not None:
        print("hive-bot: --challenge plays only its challenge: no --tournament", file=sys.stderr)
        return 2
    challenge = None
    if args.challenge is not None:
        try:
            challenge = Challenger(
                args.challenge,
                args.games,
                str(GameType.parse(args.challenge_type)),
                time_control(args.challenge_time),
            )
        except (HiveError, ValueError) as error:
            print(f"hive-bot: {error}", file=sys.stderr)
            return 2
    runner = Runner(
        args.server,
        args.token,
        engine,
        game_types,
        times,
        1 if challenge is not None else args.max_games,
        args.anyone,
        challenge,
        list(dict.fromkeys(args.tournament)),
        args.tournament_only,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    running = asyncio.create_task(runner.run())
    stopping = asyncio.create_task(stop.wait())
    waits = {running, stopping}
    if challenge is not None:
        waits.add(asyncio.create_task(challenge.done.wait()))
    if args.tournament_only:
        waits.add(asyncio.create_task(runner.tournaments.done.wait()))
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            running.result()  # it ends only on a refused token
        if challenge is not None and challenge.done.is_set():
            log.info("%s", challenge.summary())
        if runner.client is not None:
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                async with asyncio.timeout(STOP_SECONDS):
                    await runner.tournaments.pause_all(runner.client)
        log.info("stopping (%d games played to their end)", runner.games.finished)
    except ServerError as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 1
    finally:
        for task in (*waits, *runner.tasks()):
            task.cancel()
        await engine.close()  # its worker processes or engine processes go with it
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.token:
        parser().error("a bot account's token is needed: --token or HIVE_BOT_TOKEN")
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        return asyncio.run(_main(args))
    except EngineError as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 2
    except InvalidURI as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 2
