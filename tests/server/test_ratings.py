"""Ratings: Glicko-2 against Glickman's worked example, the speeds of time controls; and on
SQLite and a real PostgreSQL server (``database_url`` is each in turn), through real servers:
a rated game between accounts rates both players once and shows both players and a spectator
the change; casual and aborted games change nothing; who may play rated games and games with
a rating range; each game rated once by two processes, and after a kill between the rating
and its event."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from protocol import (
    Account,
    CreateGame,
    ErrorCode,
    Event,
    JoinGame,
    RatingChange,
    Rematch,
    Resign,
    Seat,
    SignUp,
    TimeControl,
    Update,
    WatchLobby,
)
from protocol.client import Client, ServerError
from server.archive.db import tables
from server.archive.db.database import Database
from server.game import rating
from server.game.record import Record
from tests.server.conftest import Running, StartServer
from tests.server.postgres import PostgresProcess
from tests.server.support import (
    create_bot,
    finished,
    game_keys,
    lobby_until,
    play,
    rows,
    updated,
    watch,
)
from tests.support import until

PASSWORD = "correct horse battery"
RAPID = TimeControl("clock", 600, 0)  # 600 s: rapid
BLITZ = TimeControl("clock", 180, 2)  # 260 s: blitz
WON = rating.game(rating.START, rating.START, "WhiteWins")
"""The ratings after a first game that White wins: (1662.31, 290.32), (1337.69, 290.32)."""
FIRST_WIN = [RatingChange("white", 1500, 1662, True), RatingChange("black", 1500, 1338, True)]


# -- Glicko-2 and the speeds -------------------------------------------------------------------


def test_glicko2_gives_glickmans_worked_example() -> None:
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to
    1550/100 and 1700/300 in one rating period."""
    player = rating.Rating(1500, 200, 0.06)
    results = [
        (rating.Rating(1400, 30), 1.0),
        (rating.Rating(1550, 100), 0.0),
        (rating.Rating(1700, 300), 0.0),
    ]
    after = rating.rated(player, results)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    assert after.games == 3


def test_a_game_is_one_rating_period_for_both_players_on_their_ratings_before_it() -> None:
    white, black = WON
    # lichess's first game between newcomers: +-162, the deviations 350 -> 290.
    assert white.rating == pytest.approx(1662.31, abs=0.01)
    assert black.rating == pytest.approx(3000 - white.rating)
    assert white.rd == black.rd == pytest.approx(290.32, abs=0.01)
    assert (white.games, black.games, white.provisional) == (1, 1, True)
    drawn = rating.game(rating.Rating(1700, 60), rating.Rating(1500, 60), "Draw")
    assert drawn[0].rating < 1700 < drawn[0].rating + 10 and 1500 < drawn[1].rating < 1510
    assert not drawn[0].provisional
    assert (rating.START.rating, rating.START.rd, rating.START.provisional) == (1500, 350, True)


def test_the_docs_state_the_system_constant_tau() -> None:
    root = Path(__file__).resolve().parents[2]
    readme = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    protocol = " ".join((root / "docs" / "protocol.md").read_text(encoding="utf-8").split())
    assert (
        f"system constant τ, which bounds how fast the volatility may change, is {rating.TAU}"
        in readme
    )
    assert f"Glicko-2's system constant τ is {rating.TAU}" in protocol


@pytest.mark.parametrize(
    ("time", "speed"),
    [
        (TimeControl("none"), None),
        (TimeControl("clock", 60, 0), "bullet"),
        (TimeControl("clock", 120, 1), "bullet"),  # 160 s
        (TimeControl("clock", 180, 0), "blitz"),
        (TimeControl("clock", 300, 3), "blitz"),  # 420 s
        (TimeControl("clock", 300, 5), "rapid"),  # 500 s
        (TimeControl("clock", 900, 10), "rapid"),  # 1300 s
        (TimeControl("clock", 900, 15), "classical"),  # 1500 s
        (TimeControl("clock", 1800, 0), "classical"),
        (TimeControl("days", days=1), "correspondence"),
    ],
)
def test_the_speed_of_a_time_control_is_lichess_s(time: TimeControl, speed: str | None) -> None:
    assert rating.speed(time) == speed


# -- helpers -----------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def accounts(srv: Running, *names: str) -> AsyncIterator[list[Client]]:
    """Clients of new accounts (guests who sign up), one a name."""
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for name in names:
            client = await stack.enter_async_context(Client.connect(srv.ws_url, nickname=name))
            await client.send(SignUp(name, PASSWORD))
            await client.expect(Account)
            clients.append(client)
        yield clients


async def create(client: Client, **fields: Any) -> Update:
    """``client`` creates a game (White, Base, rapid unless told): its first update."""
    fields = {"game_type": "Base", "time": RAPID, "color": "white", **fields}
    await client.send(CreateGame(**fields))
    while True:  # not an update of another game of the client's
        update = await client.expect(Update)
        against_a_bot = update.snapshot and fields.get("opponent") == "bot"  # live at once
        if against_a_bot or any(event.kind == "created" for event in update.events):
            return update


async def refused(client: Client, message: Any) -> ErrorCode:
    await client.send(message)
    with pytest.raises(ServerError) as error:
        await client.expect(Update)
    return error.value.error.code


async def start(white: Client, black: Client, **fields: Any) -> tuple[str, Update]:
    """``white`` creates a game, ``black`` joins it: the game and White's first update."""
    created = await create(white, **fields)
    await black.send(JoinGame(created.game))
    started = await updated(white, created.game)
    assert started.state.status == "live"
    await updated(black, created.game)
    return created.game, started


FOUGHT = ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-")
"""Two moves a side: a fought game, which a rated game must be to count."""


async def finish(
    white: Client,
    black: Client,
    game: str,
    update: Update,
    loser: Client,
    moves: tuple[str, ...] = FOUGHT,
) -> None:
    """``moves`` (two a side unless told), then ``loser`` resigns."""
    for move in moves:
        await play(white if update.state.turn == "white" else black, update, move)
        update = await updated(white, game)
    await loser.send(Resign(game))
    while update.state.status != "over":
        update = await updated(white, game)


async def rated_event(client: Client, game: str) -> Update:
    """The update of ``game`` with its ``rated`` event."""
    while True:
        update = await updated(client, game)
        if any(event.kind == "rated" for event in update.events):
            return update


async def told(client: Client, game: str) -> Update:
    """The update of ``game`` with its ``rated`` or ``unrated`` event."""
    while True:
        update = await updated(client, game)
        if any(event.kind in ("rated", "unrated") for event in update.events):
            return update


async def rated_events(srv: Running, game: str, since: int = 0) -> list[Event]:
    """The ``rated`` events of ``game`` (after version ``since``)."""
    events = await srv.hub.store.events_after(game, since)
    assert events is not None
    return [event for event in events if event.kind == "rated"]


def white(update: Update) -> Seat:
    seat = update.state.white
    assert seat is not None
    return seat


def mine(found: list[dict[str, Any]], *keys: str) -> dict[Any, dict[str, Any]]:
    return {tuple(row[key] for key in keys): row for row in found}


# -- rated games -------------------------------------------------------------------------------


async def test_a_rated_game_rates_both_accounts_and_both_players_and_a_spectator_see_it(
    start_server: StartServer, database_url: str
) -> None:
    """With a sweep every hour: the game's end wakes it, so the change comes at once."""
    async with (
        start_server(database_url=database_url, archive_interval=3600.0) as srv,
        accounts(srv, "ann", "bob") as (ann, bob),
        Client.connect(srv.ws_url, nickname="cid") as cid,
    ):
        created = await create(ann, rated=True)
        state = created.state
        assert (state.rated, state.speed, state.rating_changes) == (True, "rapid", [])
        assert state.white == Seat(ann.player, "ann", None, True, "account", 1500, True)
        game, started = await start(ann, bob, rated=True)
        assert started.state.black == Seat(bob.player, "bob", None, True, "account", 1500, True)
        await watch(cid, game)
        await finish(ann, bob, game, started, loser=bob)
        for client in (ann, bob, cid):
            update = await rated_event(client, game)
            assert update.state.rating_changes == FIRST_WIN, client.player
        assert len(await rated_events(srv, game)) == 1

        found = mine(await rows(database_url, tables.ratings), "player", "speed")
        assert found.keys() == {(ann.player, "rapid"), (bob.player, "rapid")}
        for player, after in zip((ann.player, bob.player), WON, strict=True):
            row = found[player, "rapid"]
            assert (row["rating"], row["rd"], row["volatility"], row["games"]) == pytest.approx(
                (after.rating, after.rd, after.volatility, 1)
            )
        history = mine(await rows(database_url, tables.rating_history), "player", "game")
        assert history.keys() == {(ann.player, game), (bob.player, game)}
        assert history[ann.player, game]["rating"] == pytest.approx(WON[0].rating)
        assert history[bob.player, game]["rd"] == pytest.approx(WON[1].rd)
        [row] = await rows(database_url)
        assert (row["rated"], row["speed"], row["white_rating"], row["white_rd"]) == (
            True,
            "rapid",
            1500,
            350,
        )
        assert row["white_change"] == pytest.approx(162.31, abs=0.01)
        assert row["black_change"] == pytest.approx(-162.31, abs=0.01)
        kinds = {p["id"]: p["kind"] for p in await rows(database_url, tables.players)}
        assert kinds == {ann.player: "account", bob.player: "account"}

        # A rematch is rated too, its seats with the ratings the game made.
        await bob.send(Rematch(game))
        while (await updated(ann, game)).state.rematch_offer != "black":
            pass
        await ann.send(Rematch(game))
        while (new := (await updated(ann, game)).state.rematch) is None:
            pass
        rematch = (await updated(bob, new)).state
        assert rematch.rated and rematch.status == "live" and rematch.speed == "rapid"
        assert rematch.white == Seat(bob.player, "bob", None, True, "account", 1338, True)
        assert rematch.black == Seat(ann.player, "ann", None, True, "account", 1662, True)

        # The next game's seats carry the new ratings, read from the database.
        again = await create(bob, rated=True)
        assert (white(again).rating, white(again).provisional) == (1338, True)
        # A speed they have not played yet: the start.
        elsewhere = await create(ann, time=BLITZ)
        assert white(elsewhere).rating == 1500 and elsewhere.state.speed == "blitz"


async def test_casual_and_aborted_games_change_no_rating(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(
            database_url=database_url, archive_interval=0.05, first_move_timeout=2.0
        ) as srv,
        accounts(srv, "ann", "bob") as (ann, bob),
    ):
        casual, started = await start(ann, bob)
        assert started.state.rated is False and white(started).rating == 1500
        await finish(ann, bob, casual, started, loser=bob)
        aborted, _ = await start(ann, bob, rated=True)
        while (update := await updated(ann, aborted)).state.status != "over":
            pass
        assert (update.state.reason, update.state.result) == ("aborted", None)
        for game in (casual, aborted):
            await until(functools.partial(_archived, srv, game), f"{game} never archived")
            record = await srv.hub.store.get(game)
            assert record is not None and record.rating_changes == []
            assert await rated_events(srv, game) == []
        games = mine(await rows(database_url), "id")
        assert {game: row["rated"] for game, row in games.items()} == {
            (casual,): False,
            (aborted,): False,
        }
        assert games[casual,]["speed"] == "rapid" and games[casual,]["white_change"] is None
        assert await rows(database_url, tables.ratings) == []
        assert await rows(database_url, tables.rating_history) == []


async def test_only_fought_games_count_and_so_many_of_a_pair_a_day(
    start_server: StartServer, database_url: str
) -> None:
    """Rating farming: a rated game resigned before each side made two moves (even before
    any), or one past ``rated_pair_games`` of the same two accounts in a day, changes no
    rating; both players are told why (the ``unrated`` event, the state's ``unrated``), and
    the game is archived all the same. Another pair is not held back; each rating counts
    its distinct opponents."""
    async with (
        start_server(database_url=database_url, archive_interval=0.05, rated_pair_games=2) as srv,
        accounts(srv, "ann", "bob", "cat") as (ann, bob, cat),
    ):
        outcomes = []
        plays = [
            (bob, ()),  # resigned before any move
            (bob, FOUGHT[:3]),  # White two moves, Black one
            (bob, FOUGHT),
            (bob, FOUGHT),
            (bob, FOUGHT),  # the pair's third fought game today
            (cat, FOUGHT),  # another pair
        ]
        for other, moves in plays:
            game, started = await start(ann, other, rated=True)
            await finish(ann, other, game, started, loser=other, moves=moves)
            seen = [await told(client, game) for client in (ann, other)]
            assert seen[0].state == replace(seen[1].state, legal=[])
            state = seen[0].state
            [event] = [e for e in seen[0].events if e.kind in ("rated", "unrated")]
            assert (event.kind == "unrated") == (state.unrated is not None)
            assert event.text == state.unrated and state.rated
            outcomes.append((game, state.unrated, len(state.rating_changes)))
        short = "each side must make 2 moves for a rated game to count"
        capped = "these two players have had 2 rated games in 24 hours, the most that count"
        assert [(why, changes) for _, why, changes in outcomes] == [
            (short, 0),
            (short, 0),
            (None, 2),
            (None, 2),
            (capped, 0),
            (None, 2),
        ]
        for game, _, _ in outcomes:
            await until(functools.partial(_archived, srv, game), f"{game} never archived")
        archived = mine(await rows(database_url), "id")
        assert [archived[game,]["rated"] for game, _, _ in outcomes] == [
            False,
            False,
            True,
            True,
            False,
            True,
        ]
        found = mine(await rows(database_url, tables.ratings), "player")
        assert {p: (row["games"], row["opponents"]) for (p,), row in found.items()} == {
            ann.player: (3, 2),
            bob.player: (2, 1),
            cat.player: (1, 1),
        }
        assert len(await rows(database_url, tables.rating_history)) == 6


async def _archived(srv: Running, game: str) -> bool:
    return b"hive:over" not in await game_keys(srv.redis_url, game)


async def test_the_archive_says_account_for_an_account_and_for_a_guest_who_signs_up_later(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(database_url=database_url, archive_interval=0.05) as srv,
        accounts(srv, "ann") as (ann,),
        Client.connect(srv.ws_url, nickname="gus") as gus,
    ):
        game, started = await start(ann, gus)
        assert started.state.black is not None and started.state.black.account == "guest"
        await finish(ann, gus, game, started, loser=gus)
        await until(functools.partial(_archived, srv, game), "never archived")
        kinds = {p["id"]: p["kind"] for p in await rows(database_url, tables.players)}
        assert kinds == {ann.player: "account", gus.player: "guest"}
        await gus.send(SignUp("gus", PASSWORD))
        await gus.expect(Account)
        kinds = {p["id"]: p["kind"] for p in await rows(database_url, tables.players)}
        assert kinds == {ann.player: "account", gus.player: "account"}
        # Its connection is an account's from now on: it may make a rated game.
        assert (await create(gus, rated=True)).state.white == Seat(
            gus.player, "gus", None, True, "account", 1500, True
        )
        # A guest who signs up during a game (seated as a guest): an account in the archive.
        async with Client.connect(srv.ws_url, nickname="hal") as hal:
            game, started = await start(ann, hal)
            await hal.send(SignUp("hal", PASSWORD))
            await hal.expect(Account)
            await finish(ann, hal, game, started, loser=hal)
            await until(functools.partial(_archived, srv, game), "never archived")
        kinds = {p["id"]: p["kind"] for p in await rows(database_url, tables.players)}
        assert kinds[hal.player] == "account"


async def test_rated_games_only_between_accounts_with_a_clock_never_against_a_level(
    start_server: StartServer, tmp_path: Any
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'hive.sqlite3'}"
    async with (
        start_server(database_url=url) as srv,
        accounts(srv, "ann") as (ann,),
        Client.connect(srv.ws_url, nickname="gus") as gus,
    ):
        bad = [
            CreateGame("Base", RAPID, opponent="bot", level="beginner", rated=True),
            CreateGame("Base", RAPID, opponent="bot", level="beginner", rating_min=1400),
            CreateGame("Base", TimeControl("none"), rated=True),
            CreateGame("Base", TimeControl("none"), rating_max=1600),
            CreateGame("Base", RAPID, rating_min=1600, rating_max=1400),
        ]
        for message in bad:
            assert await refused(ann, message) == ErrorCode.BAD_MESSAGE, message
        assert await refused(gus, CreateGame("Base", RAPID, rated=True)) == (
            ErrorCode.ACCOUNT_REQUIRED
        )
        game = (await create(ann, rated=True, time=TimeControl("days", days=2))).game
        assert await refused(gus, JoinGame(game)) == ErrorCode.ACCOUNT_REQUIRED
        # A guest may still play casual games, and ann against a level.
        assert white(await create(gus)).account == "guest"
        level = await create(ann, opponent="bot", level="beginner")
        assert level.state.black is not None and level.state.black.rating is None
        assert white(level).rating == 1500
        # A bot account is an account: it may join a rated game.
        status, token, err = await create_bot(srv.redis_url, "robo", "--database-url", url)
        assert status == 0, err
        async with Client.connect(srv.ws_url, token=token.strip()) as robo:
            await robo.send(JoinGame(game))
            joined = await updated(robo, game)
        assert joined.state.status == "live" and joined.state.speed == "correspondence"
        assert joined.state.black == Seat(robo.player, "robo", None, True, "bot", 1500, True)


async def test_a_rating_range_admits_only_accounts_rated_within_it(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(database_url=database_url) as srv,
        accounts(srv, "ann", "bob", "cat") as (ann, bob, cat),
        Client.connect(srv.ws_url, nickname="gus") as gus,
    ):
        database = Database(database_url)
        try:
            async with database.engine.begin() as connection:
                await connection.execute(
                    tables.ratings.insert().values(
                        player=cat.player,
                        speed="blitz",
                        rating=1712.4,
                        rd=60.0,
                        volatility=0.06,
                        games=30,
                        updated=0,
                    )
                )
        finally:
            await database.close()
        await gus.send(WatchLobby())
        game = (await create(ann, time=BLITZ, rated=True, rating_min=1600, rating_max=1800)).game
        lobby = await lobby_until(gus, lambda lobby: any(g.id == game for g in lobby.open))
        [summary] = [g for g in lobby.open if g.id == game]
        assert (summary.rated, summary.rating_min, summary.rating_max) == (True, 1600, 1800)
        assert await refused(bob, JoinGame(game)) == ErrorCode.OUT_OF_RANGE  # 1500
        assert await refused(gus, JoinGame(game)) == ErrorCode.ACCOUNT_REQUIRED
        casual = (await create(ann, time=BLITZ, rating_max=1499)).game
        assert await refused(bob, JoinGame(casual)) == ErrorCode.OUT_OF_RANGE
        assert await refused(gus, JoinGame(casual)) == ErrorCode.ACCOUNT_REQUIRED
        await cat.send(JoinGame(game))
        joined = await updated(cat, game)
        assert joined.state.black == Seat(cat.player, "cat", None, True, "account", 1712, False)
        low = (await create(ann, time=BLITZ, rating_min=1500)).game
        await bob.send(JoinGame(low))  # 1500 itself is in the range
        assert (await updated(bob, low)).state.status == "live"


async def test_while_the_database_is_down_rated_games_are_refused_and_ended_ones_wait(
    start_server: StartServer, postgres_server: PostgresProcess
) -> None:
    """PostgreSQL stopped: a rated game cannot be made (its seat needs the rating), a casual
    one is made without the rating shown; a rated game that ends meanwhile is rated, and its
    players told, once the database is back."""
    url = postgres_server.create()
    async with (
        start_server(database_url=url, archive_interval=0.05) as srv,
        accounts(srv, "ann", "bob") as (ann, bob),
    ):
        game, started = await start(ann, bob, rated=True)
        postgres_server.stop()
        try:
            refusal = await refused(ann, CreateGame("Base", RAPID, rated=True))
            assert refusal == ErrorCode.UNAVAILABLE
            casual = white(await create(ann))
            assert (casual.account, casual.rating) == ("account", None)
            await finish(ann, bob, game, started, loser=bob)
            await until(_archive_down(srv), "the archive never found the database down")
        finally:
            postgres_server.restart()
        assert (await rated_event(bob, game)).state.rating_changes == FIRST_WIN
        assert len(await rows(url, tables.rating_history)) == 2


def _archive_down(srv: Running) -> Any:
    async def check() -> bool:
        return not srv.hub.archive.up

    return check


# -- exactly once ------------------------------------------------------------------------------


async def test_two_processes_rate_each_game_once(
    start_server: StartServer, database_url: str
) -> None:
    """Two servers on one Redis and one database, sweeping together besides their own loops
    and wakes: every game rated once, one ``rated`` event each, no rating update lost."""
    settings = {"database_url": database_url, "archive_interval": 0.01}
    async with (
        start_server(**settings) as one,
        start_server(**settings) as two,
        accounts(one, "ann") as (ann,),
        accounts(two, "bob") as (bob,),
    ):
        games = []
        for n in range(3):
            white, black = (ann, bob) if n % 2 == 0 else (bob, ann)
            game, started = await start(white, black, rated=True)
            await finish(white, black, game, started, loser=black if n < 2 else white)
            await asyncio.gather(one.hub.archive.sweep_once(60), two.hub.archive.sweep_once(60))
            for client in (ann, bob):  # each on its process, whichever rated the game
                assert len((await rated_event(client, game)).state.rating_changes) == 2
            games.append(game)
        for game in games:
            await until(functools.partial(_archived, one, game), f"{game} never archived")
            assert len(await rated_events(one, game)) == 1
        found = mine(await rows(database_url, tables.ratings), "player")
        assert [found[p,]["games"] for p in (ann.player, bob.player)] == [3, 3]
        history = await rows(database_url, tables.rating_history)
        assert len(history) == 6
        archived = await rows(database_url)
        assert all(row["rated"] for row in archived)
        for player in (ann.player, bob.player):
            assert_chained(archived, player, found[player,]["rating"])


def assert_chained(archived: list[dict[str, Any]], player: str, now: float) -> None:
    """Each of ``player``'s games started from the rating the one rated before it left: a
    chain from the start to the rating ``now``, whatever order they were rated in (a lost
    update shows as two games rated from one rating)."""
    steps = {}
    played = [row for row in archived if player in (row["white"], row["black"])]
    for row in played:
        color = "white" if row["white"] == player else "black"
        before = row[f"{color}_rating"]
        assert round(before, 6) not in steps, "two games rated from one rating"
        steps[round(before, 6)] = before + row[f"{color}_change"]
    current = rating.START_RATING
    for _ in played:
        current = steps.pop(round(current, 6))
    assert current == pytest.approx(now) and not steps


async def test_games_of_one_player_rated_at_once_lose_no_update(
    start_server: StartServer, database_url: str
) -> None:
    """Two processes write four games of ann's at once, ann's rating row already there: the
    second to rate waits for the first (its row locked), and rates from what it left."""
    settings = {"database_url": database_url, "archive_interval": 3600.0}
    async with (
        start_server(**settings) as one,
        start_server(**settings) as two,
        accounts(one, "ann", "bob", "cat", "dan", "eve") as (ann, *others),
    ):
        first = _finished(ann, others[0], "00000000")
        assert await one.hub.archive.write(first)
        games = [_finished(ann, other, f"0000000{n + 1}") for n, other in enumerate(others)]
        written = await asyncio.gather(
            *[(one, two)[n % 2].hub.archive.write(game) for n, game in enumerate(games)]
        )
        assert written == [True] * len(games)
        archived = await rows(database_url)
        [row] = [r for r in await rows(database_url, tables.ratings) if r["player"] == ann.player]
        assert row["games"] == 5
        assert_chained(archived, ann.player, row["rating"])


async def test_a_kill_between_the_rating_and_its_event_still_tells_once(
    start_server: StartServer, database_url: str
) -> None:
    """A process that rated a game in the database and died before committing its event:
    the game is still in ``hive:over``; the next sweep finds it rated and commits the event
    from the figures stored, once, and rates nothing again."""
    async with (
        start_server(database_url=database_url, archive_interval=3600.0) as srv,
        accounts(srv, "ann", "bob") as (ann, bob),
        Client.connect(srv.ws_url, nickname="cid") as cid,
    ):
        archive = srv.hub.archive
        await until(_first_round(srv), "the sweep never went round")
        # The game, ended by a process that then died: committed to Redis, not archived.
        record = _finished(ann, bob)
        end = Event(record.version, "over", record.ended or 0, "WhiteWins", "resign")
        assert await srv.hub.store.commit(record, end, expected=0, deadline=None)
        await watch(cid, record.id)
        assert await archive.write(record)  # its database part, committed
        assert await rows(database_url, tables.ratings) != []
        assert await rated_events(srv, record.id, record.version - 1) == []
        assert not await _archived(srv, record.id)

        await archive.sweep_once(60)  # the next sweep
        update = await rated_event(cid, record.id)
        assert update.state.rating_changes == FIRST_WIN
        assert await _archived(srv, record.id)
        await archive.sweep_once(60)
        assert not await archive.write(record)
        await srv.hub.changes.rated(record.id, FIRST_WIN)  # an event committed twice: once
        assert len(await rated_events(srv, record.id, record.version - 1)) == 1
        stored = await srv.hub.store.get(record.id)
        assert stored is not None and stored.rating_changes == FIRST_WIN
        found = await rows(database_url, tables.ratings)
        assert sorted(row["games"] for row in found) == [1, 1]
        assert sorted(row["rating"] for row in found) == pytest.approx(
            [WON[1].rating, WON[0].rating]
        )
        assert len(await rows(database_url, tables.rating_history)) == 2


async def test_a_kill_before_an_unrated_event_still_tells_once(
    start_server: StartServer, database_url: str
) -> None:
    """A game chosen rated but not fought, archived by a process that died before its
    ``unrated`` event: the next sweep finds it unrated in the database, says why, once."""
    async with (
        start_server(database_url=database_url, archive_interval=3600.0) as srv,
        accounts(srv, "ann", "bob") as (ann, bob),
    ):
        archive = srv.hub.archive
        await until(_first_round(srv), "the sweep never went round")
        record = replace(_finished(ann, bob), moves=list(FOUGHT[:3]))
        end = Event(record.version, "over", record.ended or 0, "WhiteWins", "resign")
        assert await srv.hub.store.commit(record, end, expected=0, deadline=None)
        assert await archive.write(record)
        assert await rows(database_url, tables.ratings) == []
        await archive.sweep_once(60)  # the next sweep
        why = "each side must make 2 moves for a rated game to count"
        told = await srv.hub.store.events_after(record.id, record.version)
        assert told is not None and [(e.kind, e.text) for e in told] == [("unrated", why)]
        await archive.sweep_once(60)
        await srv.hub.changes.rated(record.id, [], why)  # an event committed twice: once
        assert await srv.hub.store.events_after(record.id, record.version) == told
        stored = await srv.hub.store.get(record.id)
        assert stored is not None and (stored.unrated, stored.rating_changes) == (why, [])
        [row] = await rows(database_url)
        assert row["rated"] is False and row["white_change"] is None


def _first_round(srv: Running) -> Any:
    async def check() -> bool:
        return srv.hub.archive.rounds > 0

    return check


def _finished(white: Client, black: Client, game_id: str = "0feedbee") -> Record:
    """A rated rapid game between two accounts that White won on resignation."""
    return finished(
        game_id,
        Seat(white.player, "white", account="account", rating=1500, provisional=True),
        Seat(black.player, "black", account="account", rating=1500, provisional=True),
        "WhiteWins",
        "resign",
        1_795_446_241_400,
        time=RAPID,
        moves=list(FOUGHT),
        rated=True,
        seed=0,
        version=5,
    )
