"""Arena tournaments through the protocol: players (accounts on real connections) join, are
paired as their games end, play (a result the test decides from who meets whom), and the
standings the server sends match the rules (``server.game.arena``) applied to the games each
player saw; nobody plays themselves or two games at once; the process that drives a
tournament killed and another takes over; the limits refused with their codes."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from protocol import (
    Account,
    CreateTournament,
    Draw,
    Error,
    JoinTournament,
    Message,
    Resign,
    SignUp,
    TimeControl,
    Tournament,
    TournamentGame,
    Unwatch,
    Update,
    Watch,
    WatchTournament,
)
from protocol.client import Client
from server.game.arena import game_points
from tests.server.conftest import Running

PASSWORD = "correct horse battery"
BLITZ = TimeControl("clock", 180, 2)
SCORE = {"WhiteWins": 1.0, "BlackWins": 0.0, "Draw": 0.5}


@contextlib.asynccontextmanager
async def account(url: str, name: str) -> AsyncIterator[Client]:
    """A connection of a new account ``name`` (a guest that signs up)."""
    async with Client.connect(url, nickname=name) as client:
        await client.send(SignUp(name, PASSWORD))
        await client.expect(Account)
        yield client


async def refusal(client: Client, message: Message) -> Error:
    await client.send(message)
    return await client.expect(Error)


def outcome(white: str, black: str, order: list[str]) -> str:
    """The result the test gives a game: a draw between the last two of ``order`` (names),
    else the one listed first wins (so the first wins every game, on a streak from the
    third)."""
    a, b = order.index(white), order.index(black)
    if {a, b} == {len(order) - 1, len(order) - 2}:
        return "Draw"
    return "WhiteWins" if a < b else "BlackWins"


@dataclass
class Player:
    """What one player saw: its games in the order played (White, Black, White's score) and
    the last standings sent to it."""

    client: Client
    name: str
    games: list[tuple[str, str, float]] = field(default_factory=list)
    last: Tournament | None = None
    busy: str | None = None
    acted: set[str] = field(default_factory=set)


async def play(player: Player, tournament: str, order: list[str], names: dict[str, str]) -> None:
    """Play every game the arena gives ``player`` as the test decides, until it is over."""
    client, me = player.client, player.client.player
    while True:
        message = await client.recv(timeout=60)
        if isinstance(message, Error):
            raise AssertionError(f"{player.name}: {message}")
        if isinstance(message, Tournament) and message.summary.id == tournament:
            player.last = message
            if message.summary.status == "over":
                return
        elif isinstance(message, TournamentGame):
            assert message.tournament == tournament
            assert message.white != message.black, "paired with themselves"
            assert me in (message.white, message.black)
            assert player.busy is None, f"{player.name} paired while in {player.busy}"
            player.busy = message.game
            await client.send(Watch(message.game))
        elif isinstance(message, Update) and message.game == player.busy:
            state = message.state
            assert state.white is not None and state.black is not None
            white, black = names[state.white.player], names[state.black.player]
            if state.status == "over":
                assert state.result is not None
                player.games.append((state.white.player, state.black.player, SCORE[state.result]))
                player.busy = None
                await client.send(Unwatch(message.game))
                continue
            if message.game in player.acted:
                continue
            player.acted.add(message.game)  # once a game: a draw offered by both is agreed
            result = outcome(white, black, order)
            mine = "white" if state.white.player == me else "black"
            if result == "Draw":
                await client.send(Draw(message.game, "offer"))
            elif result != ("WhiteWins" if mine == "white" else "BlackWins"):
                await client.send(Resign(message.game))


def expected(players: list[Player]) -> dict[str, list[int]]:
    """Each player's points game by game, by the rules, from the games they saw."""
    points = {}
    for player in players:
        me = player.client.player
        scores = [s if white == me else 1 - s for white, _, s in player.games]
        points[me] = game_points(scores)
    return points


async def create(client: Client, **fields: object) -> Tournament:
    settings: dict[str, object] = {"name": "Test arena", "game_type": "Base", "time": BLITZ}
    await client.send(CreateTournament(**{**settings, **fields}))  # type: ignore[arg-type]
    return await client.expect(Tournament)


async def standings_until(
    client: Client, holds: Callable[[Tournament], bool], timeout: float = 60
) -> Tournament:
    async with asyncio.timeout(timeout):
        while True:
            shown = await client.expect(Tournament)
            if holds(shown):
                return shown


async def test_an_arena_plays_to_its_end_with_standings_by_the_rules(srv: Running) -> None:
    names = ["ann", "bob", "cy", "dee", "eve"]
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(account(srv.ws_url, n)) for n in names]
        async with account(srv.ws_url, "host") as host:
            made = await create(host, minutes=30, rated=False)
            tournament = made.summary.id
            assert made.summary.status in ("upcoming", "running") and made.standings == []
            await host.send(WatchTournament(tournament))
            await host.expect(Tournament)
            by_player = {c.player: n for c, n in zip(clients, names, strict=True)}
            players = [Player(c, n) for c, n in zip(clients, names, strict=True)]
            for client in clients:
                await client.send(JoinTournament(tournament))
            playing = [asyncio.create_task(play(p, tournament, names, by_player)) for p in players]
            # Once 12 games have ended (ann's streak begun, a draw), the arena ends: the games in
            # progress finish and count.
            await standings_until(
                host,
                lambda t: (
                    sum(len(s.scores) for s in t.standings) >= 2 * 12
                    and any(4 in s.scores for s in t.standings)
                    and any(1 in s.scores for s in t.standings)
                ),
            )
            store = srv.hub.tournaments.tournaments
            await store.end_at(tournament, int(time.time() * 1000))
            final = await standings_until(host, lambda t: t.summary.status == "over")
            await asyncio.gather(*playing)
    want = expected(players)
    assert {s.player: s.scores for s in final.standings} == want
    assert {s.player: s.points for s in final.standings} == {p: sum(v) for p, v in want.items()}
    assert [s.points for s in final.standings] == sorted(
        (s.points for s in final.standings), reverse=True
    )
    assert final.winner == final.standings[0].player
    assert all(s.status != "playing" and s.game is None for s in final.standings)
    assert sum(len(p.games) for p in players) >= 2 * 12
    for player in players:
        assert player.last == final  # every player was sent the final standings
    ann = next(s for s in final.standings if s.name == "ann")
    assert ann.scores[:2] == [2, 2] and set(ann.scores[2:]) == {4}  # on a streak from her third
    assert ann.streak and final.winner == ann.player
    assert any(1 in s.scores for s in final.standings)  # dee and eve drew
