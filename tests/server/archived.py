"""Games and ratings as the archive holds them, for the tests of profiles and leaderboards
(tests/server/test_profiles.py, and in the browser tests/client/test_profile.py): finished
``Record``s written by the archive (``Archive.write``, as its sweep does), ratings and rating
history put in the database directly (the ratings' own work writes them when a rated game is
archived), the answer to a profile's or leaderboard's request, and Ann's profile seeded with
all of these (``seed``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import update

from protocol import (
    PROFILE_PAGE,
    Account,
    Error,
    GetLeaderboard,
    GetProfile,
    Leaderboard,
    Profile,
    Result,
    Seat,
    SignUp,
    TimeControl,
)
from protocol.client import Client
from server.archive.db import tables
from server.game.clock import now_ms
from server.game.rating import LEADERBOARD_OPPONENTS
from server.game.record import Record
from tests.server.conftest import Running
from tests.server.support import finished as finished_record

CLOCK: Final = TimeControl("clock", 180, 2)
HARD: Final = Seat("bot:hard", "hard bot", "hard", account="bot")
BEGINNER: Final = Seat("bot:beginner", "beginner bot", "beginner", account="bot")
DAY_MS: Final = 24 * 3600 * 1000
MOVES: Final = ("wS1", "bS1 wS1-", "wQ -wS1")
PASSWORD: Final = "correct horse battery"
GAMES: Final = PROFILE_PAGE + 5
"""Ann's games in ``seed``: two pages."""


def finished(
    game: str,
    white: Seat,
    black: Seat,
    result: Result | None,
    reason: str,
    ended: int,
    *,
    time: TimeControl = CLOCK,
    moves: tuple[str, ...] = MOVES,
) -> Record:
    """A finished Base game as the archive is given it (a blitz clock, three moves unless
    told otherwise)."""
    return finished_record(game, white, black, result, reason, ended, time=time, moves=moves)


async def archive(srv: Running, *records: Record) -> None:
    for record in records:
        assert await srv.hub.archive.write(record)


async def rate(srv: Running, game: str, **columns: Any) -> None:
    """Give an archived game what a rated game has (its speed, ratings before, changes)."""
    async with srv.hub.database.engine.begin() as connection:
        await connection.execute(
            update(tables.games)
            .where(tables.games.c.id == game)
            .values(rated=True, speed="blitz", **columns)
        )


async def insert(srv: Running, table: Any, rows: list[dict[str, Any]]) -> None:
    async with srv.hub.database.engine.begin() as connection:
        await connection.execute(table.insert(), rows)


def rating(
    player: str,
    speed: str,
    value: float,
    rd: float,
    games: int,
    updated: int,
    opponents: int = LEADERBOARD_OPPONENTS,
) -> dict[str, Any]:
    return {
        "player": player,
        "speed": speed,
        "rating": value,
        "rd": rd,
        "volatility": 0.06,
        "games": games,
        "updated": updated,
        "opponents": opponents,
    }


def point(player: str, game: str, at: int, value: float) -> dict[str, Any]:
    """A row of rating history: a blitz rating after a game."""
    return {"player": player, "game": game, "speed": "blitz", "at": at, "rating": value, "rd": 99.0}


async def ask(client: Client, message: GetProfile | GetLeaderboard) -> Any:
    """The answer to ``message``: the profile or leaderboard, or the error."""
    await client.send(message)
    while True:
        answer = await client.recv()
        if isinstance(answer, Profile | Leaderboard | Error):
            return answer


@dataclass
class Seeded:
    """Ann's profile as ``seed`` made it: her and Bob's ids, her token, her newest game and
    when her first one ended."""

    ann: str
    bob: str
    token: str
    newest: str
    t0: int


async def seed(srv: Running) -> Seeded:
    """Ann and Bob, accounts; Ann's GAMES games against Bob and the hard and beginner bots (the
    first two rated), her blitz rating established and her rapid one provisional, a blitz
    history of four points; Bob's blitz rating established (below Ann's)."""
    players = {}
    for name in ("Ann", "Bob"):
        async with Client.connect(srv.ws_url, nickname=name.lower()) as client:
            await client.send(SignUp(name, PASSWORD))
            await client.expect(Account)
            players[name] = (client.player, client.welcome.token)
    ann, bob = players["Ann"][0], players["Bob"][0]
    a = Seat(ann, "Ann", account="account")
    b = Seat(bob, "Bob", account="account")
    t0 = now_ms() - 10 * DAY_MS
    records = []
    for n in range(GAMES):
        game = f"b{n:07d}"
        if n % 5 == 3:
            records.append(finished(game, a, HARD, "BlackWins", "queen", t0 + n))
        elif n % 5 == 4:
            records.append(finished(game, BEGINNER, a, "BlackWins", "queen", t0 + n))
        elif n % 2 == 0:
            records.append(finished(game, a, b, "WhiteWins", "resign", t0 + n))
        else:
            records.append(finished(game, b, a, "Draw", "agreement", t0 + n))
    await archive(srv, *records)
    await rate(srv, "b0000000", white_rating=1500.0, white_rd=300.0, white_change=120.4,
               black_rating=1510.2, black_rd=280.0, black_change=-119.6)  # fmt: skip
    await rate(srv, "b0000001", white_rating=1390.6, white_rd=200.0, white_change=-6.6,
               black_rating=1620.4, black_rd=150.0, black_change=3.2)  # fmt: skip
    await insert(
        srv,
        tables.ratings,
        [
            rating(ann, "blitz", 1612.4, 95.2, 4, t0 + 3),
            rating(ann, "rapid", 1450.0, 200.7, 1, t0),
            rating(bob, "blitz", 1488.0, 90.0, 4, t0 + 3),
        ],
    )
    await insert(
        srv,
        tables.rating_history,
        [
            point(ann, "b0000000", t0 + 0, 1620.4),
            point(ann, "b0000001", t0 + 1 * DAY_MS, 1623.6),
            point(ann, "b0000002", t0 + 2 * DAY_MS, 1600.0),
            point(ann, "b0000004", t0 + 3 * DAY_MS, 1612.4),
        ],
    )
    newest = f"b{GAMES - 1:07d}"
    return Seeded(ann, bob, players["Ann"][1], newest, t0)
