"""``hive-bot`` in arena tournaments (issue 39): bot accounts run by real ``hive-bot``
processes join an arena (``--tournament``), with a person or only among bots, are paired and
play each game to its end, and the standings count them by the rules (``server.game.arena``)
applied to the games each bot logged; a game told twice is played once; a tournament the bot
waits in keeps a slot of its ``--max-games`` (a game for bots waits), freed once it is over;
a join refused (unknown, full, out of range, over) is logged with the tournament's id, and the
bot goes on with its other games; ``--tournament-only`` bots stop once theirs is over."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import re
import time

from protocol import (
    CreateGame,
    CreateTournament,
    JoinTournament,
    LeaveTournament,
    Play,
    Resign,
    TimeControl,
    Tournament,
    TournamentGame,
    Unwatch,
    Update,
    Watch,
    WatchTournament,
    encode,
)
from protocol.client import Client
from server.game.arena import game_points
from tests.server.conftest import Running, StartServer
from tests.server.support import ChildProcess, hive_bot, signed_up, updated

CLOCK = TimeControl("clock", 60, 0)
FAST = {"message_rate": 1000.0, "message_burst": 1000}
"""Players as fast as the bots (faster than a person may)."""
SCORE = {"WhiteWins": 1.0, "BlackWins": 0.0, "Draw": 0.5}


async def arena(client: Client, name: str, **fields: object) -> str:
    """A new arena's id (Base, 1+0, casual)."""
    request = CreateTournament(name, game_type="Base", time=CLOCK, rated=False, minutes=30)
    await client.send(dataclasses.replace(request, **fields))  # type: ignore[arg-type]
    made = await client.expect(Tournament)
    while made.summary.name != name:
        made = await client.expect(Tournament)
    return made.summary.id


def bots_args(srv: Running, token: str, *more: str) -> tuple[str, ...]:
    return ("--server", srv.ws_url, "--token", token, "--level", "beginner", *more)


def logged_games(bot: ChildProcess, tournament: str) -> list[tuple[str, float | None]]:
    """The games the bot logged in ``tournament``, in the order it was paired: each game and
    its score for the bot (None: no result)."""
    paired: list[tuple[str, str]] = []
    results: dict[str, str] = {}
    for line in bot.log:
        if found := re.search(rf"tournament {tournament}: paired in game (\w+) as (\w+)", line):
            paired.append((found[1], found[2]))
        elif found := re.search(r"game (\w+) over: (\w+) ", line):
            results[found[1]] = found[2]
    games: list[tuple[str, float | None]] = []
    for game, colour in paired:
        assert game in results, f"game {game} not played to its end:\n{''.join(bot.log)}"
        white = SCORE.get(results[game])
        games.append((game, None if white is None else white if colour == "white" else 1 - white))
    return games


async def person(client: Client, tournament: str, rng: random.Random) -> Tournament:
    """Play every game the arena gives ``client`` (two random moves, then resign) until it
    is over: its last standings. A pairing told before the end of the game before reached
    this client waits for it."""
    me, busy = client.player, None
    pending: list[TournamentGame] = []
    while True:
        message = pending.pop() if pending and busy is None else await client.recv(timeout=60)
        if isinstance(message, Tournament) and message.summary.id == tournament:
            if message.summary.status == "over":
                return message
        elif isinstance(message, TournamentGame) and message.tournament == tournament:
            if busy is not None:
                pending.append(message)
                continue
            busy = message.game
            await client.send(Watch(busy))
        elif isinstance(message, Update) and message.game == busy:
            state = message.state
            if state.status == "over":
                busy = None
                await client.send(Unwatch(message.game))
            elif state.status == "live" and state.white is not None:
                mine = "white" if state.white.player == me else "black"
                if state.turn != mine:
                    continue
                if len(state.moves) >= 4:
                    await client.send(Resign(message.game))
                else:
                    move = rng.choice([m.move for m in state.legal] or ["pass"])
                    await client.send(Play(message.game, message.version, move))


async def games_over(bot: ChildProcess, count: int) -> None:
    for _ in range(count):
        await bot.wait_for(r"game \w+ over: ", timeout=90)


async def stopped(bot: ChildProcess, tournament: str) -> None:
    """A ``--tournament-only`` bot stops by itself once its tournament is over."""
    await bot.wait_for(rf"tournament {tournament} over: won by \w+; this bot")
    assert bot.process is not None
    async with asyncio.timeout(30):
        assert await bot.process.wait() == 0


def check_standings(final: Tournament, bots: dict[str, ChildProcess], tournament: str) -> None:
    """Each bot's line: its game points by the rules from the games it logged."""
    lines = {line.name: line for line in final.standings}
    for name, bot in bots.items():
        scores = [s for _, s in logged_games(bot, tournament) if s is not None]
        assert len(scores) >= 2, name
        points = game_points(scores)
        assert lines[name].scores == [float(p) for p in points], (name, lines[name])
        assert lines[name].points == sum(points)


async def test_bots_and_a_person_play_an_arena_to_its_end(start_server: StartServer) -> None:
    async with start_server(**FAST) as srv, signed_up(srv.ws_url, "ada") as ada:
        tournament = await arena(ada, "Bots welcome")
        tokens = {name: (await srv.hub.store.new_bot(name, 0))[1] for name in ("robo", "tron")}
        await ada.send(JoinTournament(tournament))
        only = ("--tournament", tournament, "--tournament-only", "--max-games", "2")
        async with (
            hive_bot(*bots_args(srv, tokens["robo"], *only)) as robo,
            hive_bot(*bots_args(srv, tokens["tron"], *only)) as tron,
        ):
            bots = {"robo": robo, "tron": tron}
            playing = asyncio.create_task(person(ada, tournament, random.Random(1)))
            try:
                for bot in bots.values():
                    await games_over(bot, 2)
                await srv.hub.tournaments.tournaments.end_at(tournament, int(time.time() * 1000))
                async with asyncio.timeout(90):
                    final = await playing
            finally:
                playing.cancel()
            for bot in bots.values():
                await stopped(bot, tournament)
        check_standings(final, bots, tournament)
        (ada_line,) = [line for line in final.standings if line.name == "ada"]
        assert ada_line.scores and all(s == 0 for s in ada_line.scores)  # she always resigns
        assert final.winner in {line.player for line in final.standings if line.name != "ada"}


async def test_an_arena_of_bots_only(start_server: StartServer) -> None:
    async with start_server(**FAST) as srv, signed_up(srv.ws_url, "ada") as ada:
        tournament = await arena(ada, "Bots only")
        await ada.send(WatchTournament(tournament))
        names = ("alpha", "beta", "gamma")
        tokens = [(await srv.hub.store.new_bot(name, 0))[1] for name in names]
        only = ("--tournament", tournament, "--tournament-only")
        async with contextlib.AsyncExitStack() as stack:
            bots = {
                name: await stack.enter_async_context(hive_bot(*bots_args(srv, token, *only)))
                for name, token in zip(names, tokens, strict=True)
            }
            for bot in bots.values():
                await games_over(bot, 2)
            await srv.hub.tournaments.tournaments.end_at(tournament, int(time.time() * 1000))
            async with asyncio.timeout(90):
                final = await ada.expect(Tournament)
                while final.summary.status != "over":
                    final = await ada.expect(Tournament)
            for bot in bots.values():
                await stopped(bot, tournament)
        check_standings(final, bots, tournament)
        assert [line.name for line in final.standings if line.scores] != []


async def test_a_game_told_twice_is_played_once_and_a_tournament_keeps_its_slot(
    start_server: StartServer,
) -> None:
    """``--max-games 1`` in a tournament: its one slot is kept for the tournament (a game for
    bots in the lobby waits), a pairing told again (during the game, and after it) is
    played once, and once the tournament is over the slot goes to the lobby's game."""
    async with start_server(**FAST) as srv, signed_up(srv.ws_url, "ada") as ada:
        tournament = await arena(ada, "Told twice")
        robo_id, token = await srv.hub.store.new_bot("robo", 0)
        args = bots_args(srv, token, "--tournament", tournament, "--max-games", "1")
        async with hive_bot(*args) as bot:
            await bot.wait_for(f"tournament {tournament}: joined 'Told twice'")
            await ada.send(CreateGame("Base", color="white", opponent="bots"))
            waiting = (await ada.expect(Update)).game
            await ada.send(JoinTournament(tournament))
            told = await ada.expect(TournamentGame)
            again = encode(told)
            await ada.send(Watch(told.game))
            await srv.hub.store.notify([robo_id], again)  # told twice while it is played
            await bot.wait_for(f"tournament {tournament}: game {told.game} told again")
            update = await updated(ada, told.game)
            while update.state.status == "live" and len(update.state.moves) < 2:
                if (update.state.turn == "white") == (told.white == ada.player):
                    await ada.send(Play(told.game, update.version, update.state.legal[0].move))
                update = await updated(ada, told.game)
            await ada.send(LeaveTournament(tournament))  # not paired again: the bot waits
            await ada.send(Resign(told.game))
            await bot.wait_for(f"game {told.game} over: ")
            await srv.hub.store.notify([robo_id], again)  # and again after its end
            await bot.wait_for(f"tournament {tournament}: game {told.game} told again")
            assert sum(f"playing game {told.game}" in line for line in bot.log) == 1
            open_game = await srv.hub.store.get(waiting)
            assert open_game is not None and open_game.status == "open"  # the slot is kept
            await srv.hub.tournaments.tournaments.end_at(tournament, int(time.time() * 1000))
            await bot.wait_for(f"tournament {tournament} over")
            start = await updated(ada, waiting)  # its slot free: the bot joins the lobby's game
            while start.state.status == "open":
                start = await updated(ada, waiting)
            assert start.state.black is not None and start.state.black.player == robo_id


async def test_a_refused_join_is_logged_and_the_bot_plays_on(start_server: StartServer) -> None:
    async with (
        start_server(**FAST) as srv,
        signed_up(srv.ws_url, "ada") as ada,
        signed_up(srv.ws_url, "bob") as bob,
    ):
        full = await arena(ada, "Full", max_players=2)
        high = await arena(ada, "High", rating_min=1600)
        over = await arena(ada, "Over")
        for client in (ada, bob):
            await client.send(JoinTournament(full))
        await srv.hub.tournaments.tournaments.end_at(over, int(time.time() * 1000))
        await ada.send(WatchTournament(over))
        while (news := await ada.expect(Tournament)).summary.status != "over":
            assert news is not None
        _, token = await srv.hub.store.new_bot("robo", 0)
        tournaments = [
            ("deadbeef", "unknown_tournament", "no tournament 'deadbeef'"),
            (full, "not_allowed", "this tournament is full (2 players"),
            (high, "out_of_range", "this tournament is for ratings 1600-; yours is 1500"),
            (over, "not_open", "this tournament is over"),
        ]
        args = [a for t, _, _ in tournaments for a in ("--tournament", t)]
        async with hive_bot(*bots_args(srv, token, *args, "--max-games", "5")) as bot:
            for _ in tournaments:
                await bot.wait_for(r"tournament \w+: not joined")
            for tournament, code, why in tournaments:
                lines = [line for line in bot.log if f"tournament {tournament}: not joined" in line]
                assert len(lines) == 1 and why in lines[0] and code in lines[0], lines
            await ada.send(CreateGame("Base", color="white", opponent="bots"))  # it plays on
            game = (await ada.expect(Update)).game
            start = await updated(ada, game)
            while start.state.status == "open":
                start = await updated(ada, game)
            assert start.state.status == "live"
