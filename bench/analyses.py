"""Computer analyses through the server: a 60-ply game analysed end to end, and what two
analyses running do to a live server bot's replies.

    python -m bench.analyses [--runs 3] [--bot-workers 2] [--level hard] [--bot-games 2]
                             [--bot-moves 12] [--only analysis|bots]

One server process (``python -m server``, as ``bench.load`` starts it: a Redis of its own, a
SQLite archive) with ``--bot-workers`` workers. Two guests play the 60-ply Base+MLP game of
``bench.review`` through it (its moves, then a resignation), and once the game is archived a
third asks for its computer analysis (``analyse_game`` with ``start``): the time from the
request to the stored analysis received, over ``--runs`` games (each a new game: a stored
analysis would be read back), and the median.

Then the live bots: ``--bot-games`` games against the server's ``--level`` bot, each person
playing a random legal move at once, ``--bot-moves`` each; the time from a person's move sent
to the bot's reply seen, the p50 and p99 over every reply; ``--runs`` times alone and
``--runs`` times while two 60-ply games are being analysed (two more queued each run; the
server runs two at once; checked at the end of each run: both were still going), and the
median of each.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench.load import Servers, percentile
from bench.review import build, sixty_plies
from protocol import (
    CreateGame,
    Error,
    ErrorCode,
    GameAnalysis,
    Play,
    Resign,
    Update,
)
from protocol.client import Client
from tests.server.analysed import analysis, played

ARCHIVE_POLL = 0.2
"""Seconds between two asks whether a game is archived yet (a bench polls; tests wait)."""


async def archived(client: Client, game_id: str) -> None:
    """Once the game is in the archive (asked every ``ARCHIVE_POLL`` seconds)."""
    while True:
        answer = await analysis(client, game_id, start=False, timeout=300)
        if isinstance(answer, GameAnalysis):
            return
        if answer.code != ErrorCode.UNKNOWN_GAME:
            raise RuntimeError(answer.message)
        await asyncio.sleep(ARCHIVE_POLL)


async def analysed(client: Client, game_id: str) -> GameAnalysis:
    """Start the game's analysis and wait for it."""
    answer = await analysis(client, game_id, start=True, timeout=300)
    if isinstance(answer, Error):
        raise RuntimeError(answer.message)
    while answer.status != "done":
        message = await client.recv(300)
        if isinstance(message, GameAnalysis) and message.game == game_id:
            answer = message
    return answer


async def bot_replies(ws_url: str, level: str, moves: int, seed: int) -> list[float]:
    """One game against the server's ``level`` bot: the seconds of each of its replies. The
    game is resigned at the end (an address plays only a few games against bots at once)."""
    rng = random.Random(seed)
    replies: list[float] = []
    async with Client.connect(ws_url, nickname=f"p{seed}") as person:
        await person.send(
            CreateGame(game_type="Base+MLP", opponent="bot", level=level, color="white")
        )
        update = await person.expect(Update)
        for _ in range(moves):
            while update.state.turn != "white" or update.state.status != "live":
                if _over(update):
                    return replies
                update = await person.expect(Update)
            plies = len(update.state.moves)
            sent = time.perf_counter()
            await person.send(
                Play(update.game, update.version, rng.choice(update.state.legal).move)
            )
            while len(update.state.moves) < plies + 2 and not _over(update):
                update = await person.expect(Update, timeout=60)
            if len(update.state.moves) == plies + 2:
                replies.append(time.perf_counter() - sent)
        if not _over(update):
            await person.send(Resign(update.game))
            while not _over(update):
                update = await person.expect(Update)
    return replies


def _over(update: Update) -> bool:
    return update.state.status == "over"


async def bots(ws_url: str, args: argparse.Namespace, run: int) -> list[float]:
    found = await asyncio.gather(
        *(
            bot_replies(ws_url, args.level, args.bot_moves, run * 100 + g)
            for g in range(args.bot_games)
        )
    )
    return [seconds for replies in found for seconds in replies]


async def bench(ws_url: str, args: argparse.Namespace) -> None:
    game_type, moves = sixty_plies()
    print(
        f"analysis of a {len(moves)}-ply {game_type} game through one server process, "
        f"{args.bot_workers} bot workers, {build()} build, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    async with Client.connect(ws_url, nickname="cy") as cy:
        times = []
        for run in range(args.runs if args.only in (None, "analysis") else 0):
            game_id = (await played(ws_url, moves, game_type))[0]
            await archived(cy, game_id)
            started = time.perf_counter()
            done = await analysed(cy, game_id)
            times.append(time.perf_counter() - started)
            assert done.white is not None and done.black is not None
            print(
                f"run {run + 1}: {times[-1]:.1f} s (accuracy White {done.white.accuracy}, "
                f"Black {done.black.accuracy})",
                flush=True,
            )
        if times:
            print(f"end to end: median {statistics.median(times):.1f} s", flush=True)
        for busy in (False, True) if args.only in (None, "bots") else ():
            p50s, p99s = [], []
            for run in range(args.runs):
                games = []
                if busy:
                    games = [(await played(ws_url, moves, game_type))[0] for _ in range(2)]
                    for game_id in games:
                        await archived(cy, game_id)
                        answer = await analysis(cy, game_id, start=True, timeout=300)
                        if isinstance(answer, Error):
                            raise RuntimeError(answer.message)
                replies = await bots(ws_url, args, run)
                if busy:
                    for game_id in games:  # both still going when the bots were done
                        answer = await analysis(cy, game_id, start=False, timeout=300)
                        assert isinstance(answer, GameAnalysis)
                        if answer.status == "done":
                            print("  (an analysis ended before the bot games did)")
                p50s.append(percentile(replies, 0.5))
                p99s.append(percentile(replies, 0.99))
                print(
                    f"  {'with two analyses' if busy else 'alone'}, run {run + 1}: "
                    f"{len(replies)} replies, p50 {p50s[-1] * 1000:.0f} ms, "
                    f"p99 {p99s[-1] * 1000:.0f} ms",
                    flush=True,
                )
            print(
                f"{args.level} bot replies {'with two analyses running' if busy else 'alone'}: "
                f"median p50 {statistics.median(p50s) * 1000:.0f} ms, "
                f"median p99 {statistics.median(p99s) * 1000:.0f} ms",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bot-workers", type=int, default=2)
    parser.add_argument("--level", default="hard", help="the server bot's level")
    parser.add_argument("--bot-games", type=int, default=2, help="bot games at once")
    parser.add_argument("--bot-moves", type=int, default=12, help="moves of each bot game")
    parser.add_argument("--only", choices=("analysis", "bots"), help="one half of the bench")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hive-analyses-") as folder:
        servers = Servers(
            Path(folder),
            1,
            bot_workers=args.bot_workers,
            module="server",
            extra=("--analyses-per-address", "1000", "--guests-per-address", "1000"),
        )
        try:
            servers.start()
            asyncio.run(bench(servers.all[0].ws_url, args))
        finally:
            servers.stop()


if __name__ == "__main__":
    main()
