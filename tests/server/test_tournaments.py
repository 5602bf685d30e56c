"""Arena tournaments through the protocol: players (accounts on real connections) join, are
paired as their games end, play (a result the test decides from who meets whom and the game's
id), and the standings the server sends match the rules (``server.game.arena``) applied to the
games each player saw; nobody plays themselves or two games at once; the process that drives a
tournament killed and another takes over; the limits refused with their codes. An ended
tournament is kept in SQL once (its games marked with it), listed on its players' profiles,
and its page served from there once Redis let it go."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis.asyncio as aioredis

from protocol import (
    TOURNAMENT_PLAYERS,
    TOURNAMENTS_PER_DAY,
    CreateTournament,
    Draw,
    Error,
    ErrorCode,
    GetProfile,
    GetTournaments,
    JoinTournament,
    LeaveTournament,
    Message,
    Play,
    PlayerTournament,
    Profile,
    Resign,
    TimeControl,
    Tournament,
    TournamentGame,
    TournamentList,
    Unwatch,
    Update,
    Watch,
    WatchTournament,
)
from protocol.client import Client
from server.archive.db import tables
from server.embedded import RedisProcess
from server.game import swiss
from server.game.arena import game_points
from server.storage.keys import TOURNAMENTS_KEY, tournament_key
from server.storage.store import Store
from server.storage.tournaments import Arena, Entrant, TournamentStore
from tests.server.archived import insert, rating
from tests.server.conftest import Running, StartServer, free_port
from tests.server.support import ServerProcess, rows, running_all, signed_up
from tests.support import until

BLITZ = TimeControl("clock", 180, 2)
SCORE = {"WhiteWins": 1.0, "BlackWins": 0.0, "Draw": 0.5}
FAST = {"message_rate": 1000.0, "message_burst": 3000}
"""The players here are people's accounts that end a game in milliseconds, and the arena pairs
them again at once: three messages a game (watch, resign, unwatch) go past a person's 20 a
second, which are for people (hive-bot's accounts have bots' budgets)."""


@pytest.fixture
async def srv(start_server: StartServer) -> AsyncIterator[Running]:
    async with start_server(**FAST) as running_server:
        yield running_server


async def refusal(client: Client, message: Message) -> Error:
    await client.send(message)
    return await client.expect(Error)


def outcome(white: str, black: str, order: list[str], game: str) -> str:
    """The result the test gives a game: the one listed first in ``order`` (names) wins, so
    the first wins every game, on a streak from the third; but a quarter of the games
    without the first (by their id, which both players see) are drawn. Draws must not hang
    on who meets whom: an arena's pairings follow the order games end in, and one order
    can come round again and again in which two given players never wait together."""
    a, b = order.index(white), order.index(black)
    if 0 not in (a, b) and int(game, 16) % 4 == 0:
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
    seen: set[str] = field(default_factory=set)


async def play(
    player: Player,
    tournament: str,
    order: list[str],
    names: dict[str, str],
    absent: str | None = None,
) -> None:
    """Play every game the tournament gives ``player`` as the test decides, until it is
    over. Against ``absent`` (a player who never shows), White makes its first move and
    waits for the game's abort (a Swiss counts it lost by the side that did not move).

    A pairing may be told (the notices channel) before the end of the last game (its
    watchers' update) reaches the client: it is taken up once that end came; a second while
    one game goes on would be a player in two games."""
    client, me = player.client, player.client.player
    pending: list[Message] = []
    while True:
        if pending and player.busy is None:
            message = pending.pop()
        else:
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
            if message.game in player.seen:
                continue  # (told again: made again after a takeover)
            if player.busy is not None:
                assert not pending, f"{player.name} paired twice while in {player.busy}"
                pending.append(message)
                continue
            player.busy = message.game
            player.seen.add(message.game)
            await client.send(Watch(message.game))
        elif isinstance(message, Update) and message.game == player.busy:
            state = message.state
            assert state.white is not None and state.black is not None
            assert state.tournament == tournament and state.tournament_name  # shown with it
            white, black = names[state.white.player], names[state.black.player]
            if state.status == "over":
                if state.result is None:  # aborted: lost by the side that did not move
                    assert state.reason == "aborted" and absent is not None
                    score = 0.0 if not state.moves else 1.0
                else:
                    score = SCORE[state.result]
                player.games.append((state.white.player, state.black.player, score))
                player.busy = None
                await client.send(Unwatch(message.game))
                continue
            if message.game in player.acted:
                continue
            player.acted.add(message.game)  # once a game: a draw offered by both is agreed
            result = outcome(white, black, order, message.game)
            mine = "white" if state.white.player == me else "black"
            if absent in (state.white.player, state.black.player):
                if mine == "white":
                    await client.send(Play(message.game, message.version, state.legal[0].move))
            elif result == "Draw":
                await client.send(Draw(message.game, "offer"))
            elif result != ("WhiteWins" if mine == "white" else "BlackWins"):
                await client.send(Resign(message.game))


@contextlib.asynccontextmanager
async def playing(
    players: list[Player],
    tournament: str,
    order: list[str],
    names: dict[str, str],
    absent: str | None = None,
) -> AsyncIterator[None]:
    """Each of ``players`` plays (``play``) while the block runs; at its end, waits for all
    to see the tournament over. A player's failure ends the block at once, and the block's
    failure ends the players: no task outlives its test (one left to the garbage collector
    logs its traceback wherever the collector runs, once inside another test's
    ``ast.parse``, which CPython 3.11 does not survive)."""
    async with asyncio.TaskGroup() as group:
        for player in players:
            group.create_task(play(player, tournament, order, names, absent))
        yield


async def entered(
    clients: list[Client], names: list[str], tournament: str
) -> tuple[dict[str, str], list[Player]]:
    """``clients`` (called ``names``) join ``tournament``: each one's name by player id, and
    their ``Player``s."""
    for client in clients:
        await client.send(JoinTournament(tournament))
    by_player = {c.player: n for c, n in zip(clients, names, strict=True)}
    return by_player, [Player(c, n) for c, n in zip(clients, names, strict=True)]


def drew(players: list[Player]) -> bool:
    """Whether a game was drawn, by what the players saw."""
    return any(score == 0.5 for player in players for *_, score in player.games)


def expected(players: list[Player]) -> dict[str, list[int]]:
    """Each player's points game by game, by the rules, from the games they saw."""
    points = {}
    for player in players:
        me = player.client.player
        scores = [s if white == me else 1 - s for white, _, s in player.games]
        points[me] = game_points(scores)
    return points


async def create(client: Client, **fields: object) -> Tournament:
    """A new arena (a name of its own unless given: the client may be sent other tournaments'
    news)."""
    name = str(fields.pop("name", f"Arena {secrets.token_hex(4)}"))
    settings: dict[str, object] = {"name": name, "game_type": "Base", "time": BLITZ}
    await client.send(CreateTournament(**{**settings, **fields}))  # type: ignore[arg-type]
    while True:
        made = await client.expect(Tournament)
        if made.summary.name == name:
            return made


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
        clients = [await stack.enter_async_context(signed_up(srv.ws_url, n)) for n in names]
        async with signed_up(srv.ws_url, "host") as host:
            made = await create(host, minutes=30, rated=False)
            tournament = made.summary.id
            assert made.summary.status in ("upcoming", "running") and made.standings == []
            await host.send(WatchTournament(tournament))
            await host.expect(Tournament)
            by_player, players = await entered(clients, names, tournament)
            async with playing(players, tournament, names, by_player):
                # Once 12 games have ended, ann's third among them, and one was drawn, the
                # arena ends: the games in progress finish and count.
                ann = clients[0].player
                await standings_until(
                    host,
                    lambda t: (
                        sum(len(s.scores) for s in t.standings) >= 2 * 12
                        and any(s.player == ann and len(s.scores) >= 3 for s in t.standings)
                        and drew(players)
                    ),
                )
                store = srv.hub.tournaments.tournaments
                await store.end_at(tournament, int(time.time() * 1000))
                final = await standings_until(host, lambda t: t.summary.status == "over")
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
    first = next(s for s in final.standings if s.name == "ann")
    assert first.scores[:2] == [2, 2] and set(first.scores[2:]) == {4}  # a streak from her third
    assert first.streak
    assert drew(players)  # (and scored by the rules: ``want``)


@contextlib.asynccontextmanager
async def tournaments_of(redis_url: str) -> AsyncIterator[TournamentStore]:
    """The tournaments in the Redis at ``redis_url``, as the server keeps them."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        yield TournamentStore(Store(client))
    finally:
        await client.aclose()


async def test_a_pairing_commits_all_or_nothing_and_a_game_ends_once(
    redis_server: RedisProcess,
) -> None:
    """Two processes pairing the same players at once: one pairing wins whole, the other
    changes nothing; a game scored twice counts once."""
    async with tournaments_of(redis_server.url) as store:
        arena = Arena("a1b2c3d4", "t", "p0", "host", "Base", BLITZ, False, 0, 10**13, 8)
        await store.create(arena)
        for n, player in enumerate(["p1", "p2", "p3"]):
            await store.join(arena, player, Entrant(player, "account", 1500), n)
        one = store.pair(arena.id, [("p1", "p2", "g1")], 10)
        other = store.pair(arena.id, [("p3", "p2", "g2")], 10)
        assert sorted(await asyncio.gather(one, other)) == [False, True]
        roster = await store.roster(arena.id)
        assert set(roster.playing) == {"p1", "p2"} or set(roster.playing) == {"p3", "p2"}
        assert len(await store.pairings(arena.id)) == 1
        assert await store.waiting(arena.id) in (["p3"], ["p1"])
        (pairing,) = await store.pairings(arena.id)
        ended = [store.end_game(arena.id, pairing, 1.0, 20) for _ in range(2)]
        assert sorted(await asyncio.gather(*ended)) == [False, True]
        roster = await store.roster(arena.id)
        assert len(roster.ended) == 1 and roster.playing == {}
        assert sorted(await store.waiting(arena.id)) == ["p1", "p2", "p3"]


async def test_no_player_is_paired_while_in_a_game_nor_with_themselves(srv: Running) -> None:
    """Four players paired in two games, a fifth joins: while the games go on (steps of the
    director), nobody is paired again; one game ends and its two players are the only ones
    paired with the fifth."""
    names = ["ann", "bob", "cy", "dee", "eve"]
    async with contextlib.AsyncExitStack() as stack:
        host = await stack.enter_async_context(signed_up(srv.ws_url, "host"))
        clients = [await stack.enter_async_context(signed_up(srv.ws_url, n)) for n in names]
        tournament = (await create(host, minutes=30, rated=False)).summary.id
        for client in clients[:4]:
            await client.send(JoinTournament(tournament))
        games = {client.player: await client.expect(TournamentGame) for client in clients[:4]}
        assert all(g.white != g.black for g in games.values())
        assert all(player in (g.white, g.black) for player, g in games.items())
        assert len({g.game for g in games.values()}) == 2
        eve = clients[4]
        await eve.send(JoinTournament(tournament))
        await eve.expect(Tournament)
        store, director = srv.hub.tournaments.tournaments, srv.hub.director
        for _ in range(3):  # steps of the director while both games go on
            await director.drive_once()
        roster = await store.roster(tournament)
        assert roster.playing == {player: g.game for player, g in games.items()}
        assert await store.waiting(tournament) == [eve.player]
        first = games[clients[0].player]
        loser = next(c for c in clients if c.player == first.white)
        await loser.send(Resign(first.game))
        paired = await eve.expect(TournamentGame)
        assert eve.player in (paired.white, paired.black)
        assert {paired.white, paired.black} - {eve.player} <= {first.white, first.black}
        roster = await store.roster(tournament)
        others = {p: g.game for p, g in games.items() if g.game != first.game}
        assert {p: g for p, g in roster.playing.items() if p in others} == others


async def test_a_game_not_begun_counts_for_nothing_and_pauses_the_side_that_did_not_move(
    start_server: StartServer,
) -> None:
    async with (
        start_server(first_move_timeout=0.5) as srv,
        signed_up(srv.ws_url, "host") as host,
        signed_up(srv.ws_url, "ann") as ann,
        signed_up(srv.ws_url, "bob") as bob,
    ):
        tournament = (await create(host, minutes=30, rated=False)).summary.id
        await host.send(WatchTournament(tournament))
        for client in (ann, bob):
            await client.send(JoinTournament(tournament))
        paired = await ann.expect(TournamentGame)
        after = await standings_until(
            host, lambda t: any(s.status == "paused" for s in t.standings)
        )
        status = {s.player: (s.status, s.scores) for s in after.standings}
        assert status == {paired.white: ("paused", []), paired.black: ("waiting", [])}
        roster = await srv.hub.tournaments.tournaments.roster(tournament)
        assert roster.ended == [] and await srv.hub.store.get(paired.game) is not None


async def test_players_are_paired_again_as_their_game_ends_not_at_the_next_tick(
    srv: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The director wakes when a game of a tournament it drives ends here: with its tick set
    to an hour, and the director asleep once the first pairing is made, the two players of
    that game are paired again as soon as it ends."""
    director = srv.hub.director
    idle = asyncio.Event()  # set when a drive ends with nothing left to wake it
    drive_once = director.drive_once

    async def observed() -> None:
        idle.clear()
        await drive_once()
        if not director.woken.is_set():
            idle.set()

    monkeypatch.setattr(director, "drive_once", observed)
    director.tick = 3600
    director.woken.set()  # (the wait under way ends: the next one is an hour)
    async with (
        signed_up(srv.ws_url, "host") as host,
        signed_up(srv.ws_url, "ann") as ann,
        signed_up(srv.ws_url, "bob") as bob,
    ):
        tournament = (await create(host, minutes=30, rated=False)).summary.id
        for client in (ann, bob):
            await client.send(JoinTournament(tournament))  # (a join wakes it too)
        first = await ann.expect(TournamentGame)
        await asyncio.wait_for(idle.wait(), 10)  # asleep, for an hour
        seats = {ann.player: ann, bob.player: bob}
        white, black = seats[first.white], seats[first.black]
        for client in (white, black):  # a move each: a game begun (one not begun pauses)
            await client.send(Watch(first.game))
            while not (update := await client.expect(Update)).state.legal:
                pass
            await client.send(Play(first.game, update.version, update.state.legal[0].move))
        await white.send(Resign(first.game))
        again = await ann.expect(TournamentGame, timeout=10)
        assert again.game != first.game and {again.white, again.black} == set(seats)


async def test_a_tournaments_games_seat_their_players_with_their_ratings_now(
    srv: Running,
) -> None:
    """The ratings of a round's players are read as its games are made (all at once), not
    as they joined: each player's in the game's state is theirs in the speed now, and a
    player without one in it has the start."""
    names = ["ann", "bob", "cy", "dee"]
    async with contextlib.AsyncExitStack() as stack:
        host = await stack.enter_async_context(signed_up(srv.ws_url, "host"))
        clients = [await stack.enter_async_context(signed_up(srv.ws_url, n)) for n in names]
        later = int(time.time() * 1000) + 3_600_000
        tournament = (await create(host, starts=later, minutes=30, rated=False)).summary.id
        await host.send(WatchTournament(tournament))
        for client in clients:
            await client.send(JoinTournament(tournament))
        await standings_until(host, lambda t: len(t.standings) == 4)  # (joined at 1500 each)
        now = int(time.time() * 1000)
        figures = {"ann": (1912.4, 60.0), "bob": (1687.6, 70.0), "cy": (1401.0, 300.0)}
        ids = {n: c.player for n, c in zip(names, clients, strict=True)}
        await insert(
            srv,
            tables.ratings,
            [rating(ids[n], "blitz", v, rd, 20, now) for n, (v, rd) in figures.items()]
            + [rating(ids["dee"], "rapid", 2222.0, 50.0, 20, now)],  # not this speed
        )
        await srv.hub.tournaments.tournaments.start_at(tournament, now)
        want = {ids["ann"]: 1912, ids["bob"]: 1688, ids["cy"]: 1401, ids["dee"]: 1500}
        provisional = {ids["ann"]: False, ids["bob"]: False, ids["cy"]: True, ids["dee"]: True}
        seen = {}
        for client in clients:
            paired = await client.expect(TournamentGame)
            await client.send(Watch(paired.game))
            state = (await client.expect(Update)).state
            assert state.white is not None and state.black is not None
            assert (state.white.player, state.black.player) == (paired.white, paired.black)
            for seat in (state.white, state.black):
                seen[seat.player] = seat
    assert {p: seat.rating for p, seat in seen.items()} == want
    assert {p: seat.provisional for p, seat in seen.items()} == provisional


async def test_a_player_who_leaves_is_not_paired_until_they_join_again(srv: Running) -> None:
    async with (
        signed_up(srv.ws_url, "host") as host,
        signed_up(srv.ws_url, "ann") as ann,
        signed_up(srv.ws_url, "bob") as bob,
    ):
        made = await create(host, minutes=30, rated=False)
        tournament = made.summary.id
        await ann.send(JoinTournament(tournament))
        await ann.expect(Tournament)
        store = srv.hub.tournaments.tournaments

        async def begun() -> bool:
            found = await store.arena(tournament)
            return found is not None and found[1] == "running"

        # Leaving pauses her only once the arena has begun (before, it takes her off the
        # list), and the director begins it on a drive of its own: on a busy machine, after
        # her join.
        await until(begun, "the arena has begun")
        await ann.send(LeaveTournament(tournament))
        # (a Tournament sent before her join may come after it: no standings in it)
        await standings_until(
            ann, lambda t: [(s.name, s.status) for s in t.standings] == [("ann", "paused")]
        )
        await bob.send(JoinTournament(tournament))
        await standings_until(bob, lambda t: len(t.standings) == 2)
        director = srv.hub.director
        for _ in range(3):  # three steps of the director: nobody to pair with bob
            await director.drive_once()
        roster = await srv.hub.tournaments.tournaments.roster(tournament)
        assert roster.playing == {} and roster.paused == {ann.player}
        await ann.send(JoinTournament(tournament))
        paired = await ann.expect(TournamentGame)
        assert {paired.white, paired.black} == {ann.player, bob.player}
        assert await bob.expect(TournamentGame) == paired


async def test_the_limits_are_refused_with_their_codes(srv: Running) -> None:
    async with (
        Client.connect(srv.ws_url, nickname="guest") as guest,
        signed_up(srv.ws_url, "host") as host,
        signed_up(srv.ws_url, "ann") as ann,
        signed_up(srv.ws_url, "bob") as bob,
    ):
        refused = await refusal(guest, CreateTournament("Guests' cup"))
        assert refused.code == ErrorCode.ACCOUNT_REQUIRED
        for bad, words in [
            (CreateTournament(" " * 5), "name"),
            (CreateTournament("x" * 41), "name"),
            (CreateTournament("No clock", time=TimeControl()), "clock"),
            (CreateTournament("Short", minutes=4), "minutes"),
            (CreateTournament("Big", max_players=TOURNAMENT_PLAYERS + 1), "cap"),
            (CreateTournament("Range", rating_min=1800, rating_max=1600), "rating_min"),
            (CreateTournament("Late", starts=int(time.time() * 1000) + 8 * 86_400_000), "7 days"),
        ]:
            refused = await refusal(host, bad)
            assert refused.code == ErrorCode.BAD_MESSAGE and words in refused.message, bad
        made = await create(host, rated=False, max_players=2)
        for _ in range(TOURNAMENTS_PER_DAY - 1):
            await create(host, rated=False)
        refused = await refusal(host, CreateTournament("One too many"))
        assert (
            refused.code == ErrorCode.RATE_LIMITED and "3 tournaments in a day" in refused.message
        )
        await host.send(GetTournaments())
        listed = await host.expect(TournamentList)
        assert len(listed.tournaments) == TOURNAMENTS_PER_DAY
        tournament = made.summary.id
        await guest.send(JoinTournament(tournament))
        assert (await guest.expect(Error)).code == ErrorCode.ACCOUNT_REQUIRED
        for client in (ann, bob):
            await client.send(JoinTournament(tournament))
            await client.expect(Tournament)
        refused = await refusal(host, JoinTournament(tournament))
        assert refused.code == ErrorCode.NOT_ALLOWED and "full (2 players" in refused.message
        assert (await refusal(host, JoinTournament("nosuchid"))).code == (
            ErrorCode.UNKNOWN_TOURNAMENT
        )
        assert (await refusal(host, LeaveTournament(tournament))).code == ErrorCode.NOT_ALLOWED
        ranged = await create(ann, rated=False, rating_min=1600)  # a new account has 1500
        refused = await refusal(bob, JoinTournament(ranged.summary.id))
        assert refused.code == ErrorCode.OUT_OF_RANGE and "yours is 1500" in refused.message


@contextlib.asynccontextmanager
async def two_processes(redis_server: RedisProcess) -> AsyncIterator[list[ServerProcess]]:
    """Two server processes on one Redis and one database, started and stopped
    (``running_all``)."""
    data = str(redis_server.folder.parent / "data")
    servers = [
        ServerProcess(
            *("--port", str(free_port()), "--redis-url", redis_server.url, "--data", data),
            *("--bot-workers", "1"),
            *("--message-rate", str(FAST["message_rate"])),
            *("--message-burst", str(FAST["message_burst"])),
        )
        for _ in range(2)
    ]
    async with running_all(servers):
        yield servers


async def test_another_process_takes_over_a_tournament_whose_director_is_killed(
    redis_server: RedisProcess,
) -> None:
    async with two_processes(redis_server) as servers:
        final = await _take_over(servers, redis_server.url)
    url = f"sqlite+aiosqlite:///{redis_server.folder.parent / 'data' / 'hive.sqlite3'}"
    (_,), lines = await kept(url, final.summary.id)  # kept once, by the survivor
    assert results_of(lines) == as_kept(final)


async def _take_over(servers: list[ServerProcess], redis_url: str) -> Tournament:
    """An arena on ``servers``, its players on the one that does not drive it, which is
    killed while they play; the other takes it over: its final standings."""
    names = ["ann", "bob", "cy", "dee"]
    async with contextlib.AsyncExitStack() as stack:
        host = await stack.enter_async_context(signed_up(servers[0].ws_url, "host"))
        made = await create(host, minutes=30, rated=False)
        tournament = made.summary.id
        driven = f"tournament {tournament}: driven here"
        waits = {asyncio.create_task(s.wait_for(driven)): s for s in servers}
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        director = waits[done.pop()]
        survivor = next(s for s in servers if s is not director)
        clients = [await stack.enter_async_context(signed_up(survivor.ws_url, n)) for n in names]
        watcher = await stack.enter_async_context(signed_up(survivor.ws_url, "watcher"))
        await watcher.send(WatchTournament(tournament))
        await watcher.expect(Tournament)
        by_player, players = await entered(clients, names, tournament)
        async with playing(players, tournament, names, by_player):
            await standings_until(watcher, lambda t: sum(len(s.scores) for s in t.standings) >= 8)
            killed = time.monotonic()
            assert await director.stop(signal.SIGKILL) == -signal.SIGKILL
            await survivor.wait_for(driven, timeout=10)
            assert time.monotonic() - killed < 10
            before = sum(len(p.games) for p in players)
            await standings_until(  # paired again by the survivor
                watcher, lambda t: sum(len(s.scores) for s in t.standings) >= before + 8
            )
            async with tournaments_of(redis_url) as store:
                await store.end_at(tournament, int(time.time() * 1000))
            final = await standings_until(watcher, lambda t: t.summary.status == "over")
    want = expected(players)
    assert {s.player: s.scores for s in final.standings} == want  # no game, no point lost
    assert sum(len(p.games) for p in players) == sum(len(s.scores) for s in final.standings)
    return final


async def test_a_server_restarted_mid_arena_resumes_it(start_server: StartServer) -> None:
    """The only server stops while an arena's game goes on; started again, it scores that
    game and pairs its players again."""
    async with (
        start_server() as srv,
        signed_up(srv.ws_url, "ann") as ann,
        signed_up(srv.ws_url, "bob") as bob,
    ):
        tournament = (await create(ann, minutes=30, rated=False)).summary.id
        for client in (ann, bob):
            await client.send(JoinTournament(tournament))
        first = await ann.expect(TournamentGame)
        tokens = ann.welcome.token, bob.welcome.token
    async with (
        start_server() as srv,
        Client.connect(srv.ws_url, token=tokens[0]) as ann,
        Client.connect(srv.ws_url, token=tokens[1]) as bob,
    ):
        assert first.game in ann.welcome.games
        await ann.send(WatchTournament(tournament))
        await ann.expect(Tournament)
        await ann.send(Resign(first.game))
        again = await bob.expect(TournamentGame)
        assert again.game != first.game and {again.white, again.black} == {ann.player, bob.player}
        shown = await standings_until(ann, lambda t: any(s.scores for s in t.standings))
        assert {s.player: s.scores for s in shown.standings} == {bob.player: [2], ann.player: [0]}


async def test_a_swiss_pairs_its_rounds_with_byes_and_a_no_show_loses_and_is_paused(
    start_server: StartServer,
) -> None:
    """Six players, three rounds: eve never shows, loses her game of round 1 and is paused,
    so rounds 2 and 3 pair the five others: a bye each, to two players; no two meet twice;
    the standings (points, Buchholz, Sonneborn-Berger) are the rules' (``server.game.swiss``)
    over the rounds played, and each player's scores what they saw."""
    names = ["ann", "bob", "cy", "dee", "eve", "fay"]
    # (eve's one game waits it out; a slow machine's players must answer theirs within it:
    # a game aborted by a player's slowness would pause them)
    async with start_server(first_move_timeout=2.0) as srv, contextlib.AsyncExitStack() as stack:
        host = await stack.enter_async_context(signed_up(srv.ws_url, "host"))
        clients = [await stack.enter_async_context(signed_up(srv.ws_url, n)) for n in names]
        later = int(time.time() * 1000) + 3_600_000  # (started by the test once all joined)
        made = await create(host, kind="swiss", rounds=3, rated=False, starts=later)
        tournament = made.summary.id
        assert (made.summary.kind, made.summary.rounds, made.summary.round) == ("swiss", 3, 0)
        await host.send(WatchTournament(tournament))
        await host.expect(Tournament)
        by_player = {c.player: n for c, n in zip(clients, names, strict=True)}
        eve = clients[4].player
        present = [(c, n) for c, n in zip(clients, names, strict=True) if n != "eve"]
        players = [Player(c, n) for c, n in present]
        async with playing(players, tournament, names, by_player, absent=eve):
            for client in clients:
                await client.send(JoinTournament(tournament))
            await standings_until(host, lambda t: len(t.standings) == 6)
            await srv.hub.tournaments.tournaments.start_at(tournament, int(time.time() * 1000))
            final = await standings_until(host, lambda t: t.summary.status == "over", timeout=120)
        stored = await srv.hub.tournaments.tournaments.rounds(tournament)
        await host.send(GetTournaments())
        listed = await host.expect(TournamentList)
        assert [(t.id, t.kind, t.round) for t in listed.tournaments] == [(tournament, "swiss", 3)]
        archived = srv.hub.tournaments.archived
        assert archived is not None and await archived.read(tournament) == final  # kept in SQL
        (row,), lines = await kept(srv.hub.database.url, tournament)
        assert (row["kind"], row["rounds"], row["played"]) == ("swiss", 3, 3)
        assert results_of(lines) == as_kept(final)
    assert final.summary.round == 3 and len(stored) == 3
    byes = [round_.bye for round_ in stored]
    assert byes[0] is None and None not in byes[1:] and len(set(byes)) == 3
    assert eve not in byes
    met = [frozenset((g.white, g.black)) for round_ in stored for g in round_.games]
    assert len(met) == 3 + 2 + 2 and len(set(met)) == len(met)
    for number, round_ in enumerate(stored, 1):
        seated = [p for g in round_.games for p in (g.white, g.black)] + [round_.bye or ""]
        want_seated = [p for p in by_player if number == 1 or p != eve]
        assert sorted(p for p in seated if p) == sorted(want_seated)
        for game in round_.games:
            if eve in (game.white, game.black):
                assert game.score == (0.0 if game.white == eve else 1.0)
    line = next(s for s in final.standings if s.player == eve)
    assert (line.scores, line.status) == ([0.0], "paused")
    entrants = [swiss.Entrant(p, 1500.0) for p in by_player]
    rounds = [
        swiss.Round(tuple(swiss.Pairing(g.white, g.black, g.score) for g in r.games), r.bye)
        for r in stored
    ]
    want = swiss.standings(entrants, rounds)
    shown = [(s.player, s.points, s.buchholz, s.sonneborn_berger) for s in final.standings]
    assert shown == [(w.name, w.points, w.buchholz, w.sonneborn_berger) for w in want]
    assert final.winner == final.standings[0].player
    for player in players:
        me = player.client.player
        line = next(s for s in final.standings if s.player == me)
        seen = [s if white == me else 1 - s for white, _, s in player.games]
        assert sorted(line.scores) == sorted(seen + [1.0] * line.byes)
        assert line.byes == byes.count(me)


async def test_a_late_joiner_to_a_swiss_has_nothing_for_the_rounds_before(
    start_server: StartServer,
) -> None:
    names = ["ann", "bob", "cy"]
    async with start_server() as srv, contextlib.AsyncExitStack() as stack:
        host = await stack.enter_async_context(signed_up(srv.ws_url, "host"))
        clients = [await stack.enter_async_context(signed_up(srv.ws_url, n)) for n in names]
        later = int(time.time() * 1000) + 3_600_000
        tournament = (await create(host, kind="swiss", rounds=3, starts=later)).summary.id
        await host.send(WatchTournament(tournament))
        by_player = {c.player: n for c, n in zip(clients, names, strict=True)}
        players = [Player(c, n) for c, n in zip(clients, names, strict=True)]
        for client in clients[:2]:
            await client.send(JoinTournament(tournament))
        await standings_until(host, lambda t: len(t.standings) == 2)
        # Round 1 waits for ann's and bob's game: cy joins meanwhile.
        await srv.hub.tournaments.tournaments.start_at(tournament, int(time.time() * 1000))
        first = await clients[0].expect(TournamentGame)
        await clients[2].send(JoinTournament(tournament))
        await standings_until(host, lambda t: len(t.standings) == 3)
        players[0].busy = first.game
        await clients[0].send(Watch(first.game))
        async with playing(players, tournament, names, by_player):
            final = await standings_until(host, lambda t: t.summary.status == "over")
        stored = await srv.hub.tournaments.tournaments.rounds(tournament)
    cy = clients[2].player
    assert len(stored) == 3 and cy not in {p for g in stored[0].games for p in (g.white, g.black)}
    assert all(cy in {r.bye, *(p for g in r.games for p in (g.white, g.black))} for r in stored[1:])
    line = next(s for s in final.standings if s.player == cy)
    assert len(line.scores) == 2 and line.points == sum(line.scores)


async def test_a_swiss_goes_on_when_the_process_driving_it_is_killed_mid_round(
    redis_server: RedisProcess,
) -> None:
    async with two_processes(redis_server) as servers:
        await _swiss_taken_over(servers, redis_server.url)


async def _swiss_taken_over(servers: list[ServerProcess], redis_url: str) -> None:
    """Four players join a Swiss of three rounds; once round 1 is paired its director is
    killed before anyone plays; the players come back on the other process, which takes the
    tournament over within 10 s and plays it to its end."""
    names = ["ann", "bob", "cy", "dee"]
    tokens = []
    async with contextlib.AsyncExitStack() as stack:
        host = await stack.enter_async_context(signed_up(servers[0].ws_url, "host"))
        later = int(time.time() * 1000) + 3_600_000
        tournament = (await create(host, kind="swiss", rounds=3, starts=later)).summary.id
        for name in names:
            client = await stack.enter_async_context(signed_up(servers[0].ws_url, name))
            await client.send(JoinTournament(tournament))
            await client.expect(Tournament)
            tokens.append(client.welcome.token)
        driven = f"tournament {tournament}: driven here"
        waits = {asyncio.create_task(s.wait_for(driven)): s for s in servers}
        async with tournaments_of(redis_url) as store:
            await store.start_at(tournament, int(time.time() * 1000))
            done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            director = waits[done.pop()]
            survivor = next(s for s in servers if s is not director)
            await host.send(WatchTournament(tournament))
            await standings_until(host, lambda t: t.summary.round == 1)
            (first,) = await store.rounds(tournament)
    killed = time.monotonic()
    assert await director.stop(signal.SIGKILL) == -signal.SIGKILL
    await survivor.wait_for(driven, timeout=10)
    assert time.monotonic() - killed < 10
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client.connect(survivor.ws_url, token=token))
            for token in tokens
        ]
        watcher = await stack.enter_async_context(signed_up(survivor.ws_url, "watcher"))
        await watcher.send(WatchTournament(tournament))
        await watcher.expect(Tournament)
        by_player = {c.player: n for c, n in zip(clients, names, strict=True)}
        players = [Player(c, n) for c, n in zip(clients, names, strict=True)]
        for player in players:  # each in their game of round 1, made before the kill or after
            game = next(g.game for g in first.games if player.client.player in (g.white, g.black))
            player.busy = game
            player.seen.add(game)
            await player.client.send(Watch(game))
        async with playing(players, tournament, names, by_player):
            final = await standings_until(watcher, lambda t: t.summary.status == "over")
    async with tournaments_of(redis_url) as store:
        stored = await store.rounds(tournament)
    assert len(stored) == 3 and [g.game for g in stored[0].games] == [g.game for g in first.games]
    entrants = [swiss.Entrant(p, 1500.0) for p in by_player]
    rounds = [
        swiss.Round(tuple(swiss.Pairing(g.white, g.black, g.score) for g in r.games), r.bye)
        for r in stored
    ]
    want = swiss.standings(entrants, rounds)
    shown = [(s.player, s.points, s.buchholz, s.sonneborn_berger) for s in final.standings]
    assert shown == [(w.name, w.points, w.buchholz, w.sonneborn_berger) for w in want]
    for player in players:  # no game and no point lost: each game seen is in the standings
        me = player.client.player
        line = next(s for s in final.standings if s.player == me)
        assert line.scores == [s if white == me else 1 - s for white, _, s in player.games]


async def kept(url: str, tournament: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``tournaments`` rows of ``tournament`` in the database at ``url``, and its
    ``tournament_results`` rows by rank."""
    found = [row for row in await rows(url, tables.tournaments) if row["id"] == tournament]
    lines = [r for r in await rows(url, tables.tournament_results) if r["tournament"] == tournament]
    return found, sorted(lines, key=lambda r: int(r["rank"]))


def as_kept(final: Tournament) -> list[tuple[Any, ...]]:
    """What ``tournament_results`` must hold of ``final``'s standings, by rank."""
    return [
        (s.player, n, s.name, s.points, s.scores, len(s.scores) - s.byes, s.byes, s.buchholz)
        for n, s in enumerate(final.standings, start=1)
    ]


def results_of(lines: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    keys = ("player", "rank", "name", "points", "scores", "games", "byes", "buchholz")
    return [tuple(json.loads(r[k]) if k == "scores" else r[k] for k in keys) for r in lines]


NAME = "<b>Arena</b> & co"


async def test_an_ended_arena_is_kept_in_sql_once_on_profiles_and_its_page(srv: Running) -> None:
    """An arena played to its end: its row, its final standings and its games' tournament in
    SQL, written before Redis marks it over (the database failing the first write, it waits
    for the next); a player's profile lists it (rank, points) and its games say it; finished
    again (a kill between the write and Redis's mark, replayed), it is still one row; once its
    keys are gone from Redis, its page comes from SQL; an id known nowhere stays unknown."""
    names = ["ann", "bob", "cy"]
    url = srv.hub.database.url
    director = srv.hub.director
    keep = director.keep
    failed: list[str] = []
    assert keep is not None

    async def away_once(final: Tournament, creator: str, ended: int) -> bool:
        if not failed:
            failed.append(final.summary.status)
            raise OSError("the database is away")
        return await keep(final, creator, ended)

    director.keep = away_once
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(signed_up(srv.ws_url, n)) for n in names]
        host = await stack.enter_async_context(signed_up(srv.ws_url, "host"))
        made = await create(host, minutes=30, rated=False, name=NAME)
        tournament = made.summary.id
        await host.send(WatchTournament(tournament))
        await host.expect(Tournament)
        by_player, players = await entered(clients, names, tournament)
        async with playing(players, tournament, names, by_player):
            await standings_until(host, lambda t: sum(len(s.scores) for s in t.standings) >= 8)
            store = srv.hub.tournaments.tournaments
            await store.end_at(tournament, int(time.time() * 1000))
            final = await standings_until(host, lambda t: t.summary.status == "over")
        assert failed == ["over"]
        made_games = set().union(*(p.seen for p in players))
        assert len(made_games) * 2 == sum(len(s.scores) for s in final.standings)

        async def games_kept() -> dict[str, Any]:
            marks = {r["id"]: r["tournament"] for r in await rows(url)}
            return {g: marks[g] for g in made_games} if made_games <= set(marks) else {}

        marked = await until(games_kept, "every game of the arena archived")
        assert marked == {game: tournament for game in made_games}
        (row,), lines = await kept(url, tournament)
        shown = (row["name"], row["kind"], row["creator_name"], row["winner"], row["players"])
        assert shown == (NAME, "arena", "host", final.winner, 3)
        assert results_of(lines) == as_kept(final)

        ann = clients[0]
        await ann.send(GetProfile("ann"))
        profile = await ann.expect(Profile)
        rank, line = next((n, s) for n, s in enumerate(final.standings, 1) if s.name == "ann")
        assert profile.tournaments == [
            PlayerTournament(tournament, NAME, "arena", rank, 3, line.points, row["ended"])
        ]
        marks = {g.id: (g.tournament, g.tournament_name) for g in profile.games}
        assert profile.total_games == len(players[0].seen)  # (its first page listed)
        assert set(marks) <= players[0].seen and set(marks.values()) == {(tournament, NAME)}

        # Killed after the write, before Redis's mark: the next step finishes it again.
        redis = srv.hub.store.redis
        await redis.hset(tournament_key(tournament), "status", "running")
        await redis.zadd(TOURNAMENTS_KEY, {tournament: made.summary.starts})
        again = await standings_until(host, lambda t: t.summary.status == "over")
        assert again == final
        archived = srv.hub.tournaments.archived
        assert archived is not None and not await archived.write(final, "host", 1)
        assert await kept(url, tournament) == ([row], lines)

        async for key in redis.scan_iter(match=f"*{{{tournament}}}*"):
            await redis.delete(key)
        await host.send(WatchTournament(tournament))
        assert await host.expect(Tournament) == final
        refused = await refusal(host, JoinTournament(tournament))
        assert refused.code == ErrorCode.NOT_OPEN
        await host.send(GetTournaments())  # listed from the database now
        listed = await host.expect(TournamentList)
        assert [t for t in listed.tournaments if t.id == tournament] == [final.summary]
        refused = await refusal(host, WatchTournament("deadbeef"))
        assert refused.code == ErrorCode.UNKNOWN_TOURNAMENT
