"""Profiles, leaderboards and the download of a player's games, on SQLite and on a real
PostgreSQL server (``database_url`` is each in turn), through a real server.

The games are finished ``Record``s written by the archive (``Archive.write``, as the sweep
does) and one game played through the server; ratings, rating history and each rated game's
ratings are rows put in the database directly (the ratings' own work writes them when a
rated game is archived)."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Final

import pytest

from protocol import (
    LEADERBOARD_SHOWN,
    PROFILE_PAGE,
    Account,
    ArchivedGame,
    CreateGame,
    Error,
    ErrorCode,
    GetLeaderboard,
    GetProfile,
    Leaderboard,
    LeaderboardEntry,
    LevelRecord,
    Ping,
    Pong,
    Profile,
    RatingPoint,
    Resign,
    Seat,
    SignUp,
    SpeedRating,
    TimeControl,
    Update,
)
from protocol.client import Client
from server.archive import analyses
from server.archive.db import tables
from server.edge import http
from server.game.clock import now_ms
from server.game.rating import LEADERBOARD_OPPONENTS, LEADERBOARD_WEEKS, PROVISIONAL_RD
from server.live.session import LOOKUP_BURST
from server.requests import profiles
from tests.server.archived import (
    BEGINNER,
    CLOCK,
    DAY_MS,
    HARD,
    MOVES,
    PASSWORD,
    archive,
    ask,
    finished,
    insert,
    point,
    rate,
    rating,
)
from tests.server.conftest import Running, StartServer
from tests.server.postgres import PostgresProcess
from tests.server.support import play, start_game, updated
from tests.support import until

DAYS: Final = TimeControl("days", days=3)


@contextlib.asynccontextmanager
async def account(srv: Running, nickname: str, name: str) -> AsyncIterator[Client]:
    """A guest that signs up as ``name`` (a real signup), connected in the block."""
    async with Client.connect(srv.ws_url, nickname=nickname) as client:
        await client.send(SignUp(name, PASSWORD))
        assert await client.expect(Account) == Account(client.player, name)
        yield client


async def lives(client: Client) -> None:
    await client.send(Ping(7.0))
    assert (await client.expect(Pong)).t == 7.0


@dataclass
class Headers:
    status: int
    headers: dict[str, str]
    body: bytes


def _get(url: str) -> Headers:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return Headers(answer.status, dict(answer.headers.items()), answer.read())
    except urllib.error.HTTPError as error:
        return Headers(error.code, dict(error.headers.items()), error.read())


async def get(url: str) -> Headers:
    return await asyncio.to_thread(_get, url)


# -- a profile -----------------------------------------------------------------------------------


async def test_a_profile_says_everything_of_an_account(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(database_url=database_url) as srv,
        Client.connect(srv.ws_url, nickname="ann") as ann,
        Client.connect(srv.ws_url, nickname="bob") as bob,
        Client.connect(srv.ws_url, nickname="gus") as gus,
    ):
        # One game played here, and archived by the sweep: Ann resigns.
        played, w, _ = await start_game(ann, bob, time=CLOCK)
        await play(ann, w, "wS1")
        await updated(ann, played)
        await ann.send(Resign(played))
        assert (await updated(ann, played)).state.reason == "resign"
        await ann.send(SignUp("Ann_L", PASSWORD))
        await ann.expect(Account)
        await bob.send(SignUp("bob", PASSWORD))
        await bob.expect(Account)
        a = Seat(ann.player, "ann", account="account")
        b = Seat(bob.player, "bobby", account="account")  # the name Bob had then
        g = Seat(gus.player, "gus")
        t0 = now_ms() - 10 * DAY_MS
        await archive(
            srv,
            finished("a0000001", a, b, "WhiteWins", "queen", t0 + 1),
            finished("a0000002", b, a, "BlackWins", "resign", t0 + 2),
            finished("a0000003", g, a, "Draw", "agreement", t0 + 3, time=DAYS),
            finished("a0000004", a, HARD, "BlackWins", "queen", t0 + 4),
            finished("a0000005", HARD, a, "BlackWins", "timeout", t0 + 5),
            finished("a0000006", a, BEGINNER, "WhiteWins", "queen", t0 + 6, moves=MOVES[:1]),
            finished("a0000007", a, b, None, "aborted", t0 + 7, moves=()),  # not counted
            finished("a0000008", b, g, "WhiteWins", "resign", t0 + 8),  # not Ann's
        )
        await rate(
            srv,
            "a0000001",
            white_rating=1500.0,
            white_rd=300.0,
            white_change=120.4,
            black_rating=1510.2,
            black_rd=280.0,
            black_change=-119.6,
        )
        await rate(
            srv,
            "a0000002",
            white_rating=1390.6,
            white_rd=200.0,
            white_change=6.6,
            black_rating=1620.4,
            black_rd=150.0,
            black_change=-8.49,
        )
        await insert(
            srv,
            tables.ratings,
            [
                rating(ann.player, "rapid", 1450.0, 200.7, 1, t0),
                rating(ann.player, "blitz", 1612.4, 95.2, 2, t0 + 2),
                rating(bob.player, "blitz", 1397.1, 190.0, 2, t0 + 2),
            ],
        )
        await insert(
            srv,
            tables.rating_history,
            [
                point(ann.player, "a0000002", t0 + 2, 1611.91),
                point(ann.player, "a0000001", t0 + 1, 1620.4),
                point(bob.player, "a0000001", t0 + 1, 1390.6),
            ],
        )
        created = (await srv.hub.accounts.book.of(ann.player)).created
        await srv.hub.archive.sweep_once(3600)  # (the sweep's round: the game played, which
        # the server's own sweep may hold at that moment: archived once it lets go)
        await until(lambda: analyses.archived(srv.hub.database, played), "the game archived")

        found = await ask(gus, GetProfile("ANN_l"))
        assert isinstance(found, Profile), found
        head = replace(found, games=[])
        assert head == Profile(
            name="Ann_L",
            player=ann.player,
            bot=False,
            created=created,
            ratings=[
                SpeedRating("blitz", 1612, 95, False, 2),
                SpeedRating("rapid", 1450, 201, True, 1),
            ],
            wins=4,
            draws=1,
            losses=2,
            levels=[LevelRecord("beginner", 1, 0, 0), LevelRecord("hard", 1, 0, 1)],
            history=[RatingPoint("blitz", t0 + 1, 1620), RatingPoint("blitz", t0 + 2, 1612)],
            games=[],
            page=0,
            total_games=7,
        )
        record = await srv.hub.archive.get(played)
        assert record is not None
        ended = record.ended
        assert ended is not None
        assert found.games[0] == ArchivedGame(
            played, "Base", CLOCK, False, "white", "bob", None,
            None, "loss", "resign", None, 1, ended,
        )  # fmt: skip
        assert found.games[1:] == [
            ArchivedGame(
                "a0000006", "Base", CLOCK, False, "white", "beginner bot", "beginner",
                None, "win", "queen", None, 1, t0 + 6,
            ),
            ArchivedGame(
                "a0000005", "Base", CLOCK, False, "black", "hard bot", "hard",
                None, "win", "timeout", None, 3, t0 + 5,
            ),
            ArchivedGame(
                "a0000004", "Base", CLOCK, False, "white", "hard bot", "hard",
                None, "loss", "queen", None, 3, t0 + 4,
            ),
            ArchivedGame(
                "a0000003", "Base", DAYS, False, "black", "gus", None,
                None, "draw", "agreement", None, 3, t0 + 3,
            ),
            ArchivedGame(
                "a0000002", "Base", CLOCK, True, "black", "bobby", None,
                1391, "win", "resign", -8, 3, t0 + 2,
            ),
            ArchivedGame(
                "a0000001", "Base", CLOCK, True, "white", "bobby", None,
                1510, "win", "queen", 120, 3, t0 + 1,
            ),
        ]  # fmt: skip

        # Bob's, seen from his side.
        bobs = await ask(ann, GetProfile("bob"))
        assert (bobs.wins, bobs.draws, bobs.losses, bobs.total_games) == (2, 0, 2, 4)
        assert [game.outcome for game in bobs.games] == ["win", "win", "loss", "loss"]
        assert bobs.games[2].rating_change == 7 and bobs.games[2].opponent == "ann"
        assert bobs.history == [RatingPoint("blitz", t0 + 1, 1391)]
        assert bobs.levels == []


async def test_a_bot_account_has_a_profile(start_server: StartServer, database_url: str) -> None:
    async with start_server(database_url=database_url) as srv:
        player, _ = await srv.hub.store.new_bot("Robo One", 0)
        await srv.hub.accounts.book.add_bot(player, "Robo One", 1_700_000_000_000)
        async with Client.connect(srv.ws_url, nickname="ann") as ann:
            found = await ask(ann, GetProfile("robo one"))
            assert found == Profile(
                "Robo One", player, True, 1_700_000_000_000, [], 0, 0, 0, [], [], [], 0, 0
            )


async def test_a_guest_an_unknown_name_or_an_odd_one_is_unknown_player(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(database_url=database_url) as srv,
        Client.connect(srv.ws_url, nickname="ann") as ann,
        Client.connect(srv.ws_url, nickname="gus") as gus,
    ):
        await start_game(ann, gus)  # the guest has a game: still no profile
        for name in ["gus", "nobody", "hard bot", "bot:hard", "", "x" * 2000, "ann%", "a'b"]:
            refused = await ask(ann, GetProfile(name))
            assert isinstance(refused, Error), name
            assert (refused.code, refused.request) == (ErrorCode.UNKNOWN_PLAYER, "profile")
            assert "no account is named" in refused.message
            assert len(refused.message) < 100
        await lives(ann)
        refused = await ask(ann, GetProfile("gus", page=-1))
        assert (refused.code, refused.message) == (
            ErrorCode.BAD_MESSAGE,
            "profile.page: pages count from 0",
        )
        await lives(ann)


async def test_the_games_come_a_page_at_a_time_newest_first(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(database_url=database_url) as srv,
        account(srv, "ann", "ann") as ann,
    ):
        a = Seat(ann.player, "ann", account="account")
        b = Seat("0123456789abcdef", "bob")
        t0 = now_ms() - DAY_MS
        total = 2 * PROFILE_PAGE + 5
        boundary = total - PROFILE_PAGE  # the oldest game of the first page
        records = []
        for n in range(total):
            # five games end in the same millisecond, across the end of the first page
            ended = t0 + (boundary if abs(n - boundary) <= 2 else n)
            white, black = (a, b) if n % 2 else (b, a)
            records.append(finished(f"p{n:07d}", white, black, "Draw", "agreement", ended))
        await archive(srv, *records)
        expected = [r.id for r in sorted(records, key=lambda r: (r.ended, r.id), reverse=True)]
        pages = []
        for page in range(4):
            found = await ask(ann, GetProfile("ann", page))
            assert (found.page, found.total_games, found.draws) == (page, total, total)
            pages.append([game.id for game in found.games])
        assert [len(page) for page in pages] == [PROFILE_PAGE, PROFILE_PAGE, 5, 0]
        assert [game for page in pages for game in page] == expected
        far = await ask(ann, GetProfile("ann", 2**53 - 1))
        assert (far.games, far.page, far.total_games) == ([], 2**53 - 1, total)


async def test_profiles_and_leaderboards_are_limited_per_connection(srv: Running) -> None:
    async with Client.connect(srv.ws_url, nickname="ann") as ann:
        for _ in range(LOOKUP_BURST + 3):
            await ann.send(GetLeaderboard("blitz"))
        answers = [await ann.recv() for _ in range(LOOKUP_BURST + 3)]
        refused = [a for a in answers if isinstance(a, Error)]
        assert len(answers) - len(refused) >= LOOKUP_BURST
        assert refused and {a.code for a in refused} == {ErrorCode.RATE_LIMITED}
        await lives(ann)


async def test_profiles_and_leaderboards_are_limited_per_address(
    start_server: StartServer,
) -> None:
    """Many connections of one address, each within its own rate, share the address's
    ``lookups_per_address`` a minute; another address still gets its answers."""
    async with contextlib.AsyncExitStack() as stack:
        srv = await stack.enter_async_context(
            start_server(lookups_per_address=12, trusted_proxies="127.0.0.1")
        )
        clients = [
            await stack.enter_async_context(
                Client.connect(srv.ws_url, nickname=f"m{n}", headers={"X-Forwarded-For": ip})
            )
            for n, ip in enumerate(["2001:db8::1", "2001:db8::2", "2001:db8::3", "10.0.0.9"])
        ]
        answered = refused = 0
        for client in clients[:3]:  # one /64: one address
            for n in range(5):  # within a connection's burst
                await client.send(GetProfile("nobody") if n % 2 else GetLeaderboard("blitz"))
                answer = await client.recv()
                if isinstance(answer, Error) and answer.code == ErrorCode.RATE_LIMITED:
                    assert "from one address" in answer.message
                    refused += 1
                else:
                    answered += 1
        assert (answered, refused) == (12, 3)
        other = clients[3]
        await other.send(GetLeaderboard("blitz"))
        assert isinstance(await other.recv(), Leaderboard)


async def test_reads_past_those_the_database_is_given_wait_then_are_unavailable(
    srv: Running,
) -> None:
    reads = srv.hub.profiles.reads
    async with account(srv, "ann", "ann") as ann:
        for _ in range(profiles.READS_AT_ONCE):  # as many reads as a process runs at once
            await reads.acquire()
        try:
            started = asyncio.get_running_loop().time()
            busy = await ask(ann, GetProfile("ann"))
            waited = asyncio.get_running_loop().time() - started
            assert (busy.code, busy.message) == (
                ErrorCode.UNAVAILABLE,
                "the server is busy with profiles; try again",
            )
            assert profiles.READ_WAIT <= waited < profiles.READ_WAIT + 5
            reads.release()  # one read ends: the next request is answered
            assert isinstance(await ask(ann, GetProfile("ann")), Profile)
        finally:
            for _ in range(profiles.READS_AT_ONCE - 1):
                reads.release()


# -- the leaderboard -----------------------------------------------------------------------------


async def test_the_leaderboard_lists_the_best_recent_established_players(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url) as srv:
        now = now_ms()
        fresh, stale = now - DAY_MS, now - LEADERBOARD_WEEKS * 7 * DAY_MS - DAY_MS
        players = [(f"p{n:03d}", f"P{n:03d}") for n in range(LEADERBOARD_SHOWN + 3)]
        players += [
            (p, p.title())
            for p in ("prov", "edge", "stale", "robo", "rapid", "tie", "pair", "late", "newb")
        ]
        await insert(
            srv,
            tables.accounts,
            [
                {
                    "player": player,
                    "name": name,
                    "name_key": name.lower(),
                    "password": None if player == "robo" else "not a hash",
                    "bot": player == "robo",
                    "created": now,
                    "password_changed": now,
                }
                for player, name in players
            ],
        )
        await insert(
            srv,
            tables.ratings,
            [
                rating(f"p{n:03d}", "blitz", 1000.0 + 3 * n + 0.4, 60.0, 10 + n, fresh)
                for n in range(LEADERBOARD_SHOWN + 3)
            ]
            + [
                rating("prov", "blitz", 2500.0, PROVISIONAL_RD + 0.5, 3, fresh),
                # provisional: listed apart, while they played lately (one game is enough)
                rating("newb", "blitz", 1580.2, 290.0, 1, fresh, 1),
                rating("late", "blitz", 2550.0, 200.0, 2, stale),
                rating("edge", "blitz", 2400.0, PROVISIONAL_RD, 9, fresh),
                rating("stale", "blitz", 2450.0, 50.0, 90, stale),
                rating("robo", "blitz", 2300.0, 70.4, 300, now - 60_000),
                rating("tie", "blitz", 2300.0, 70.6, 30, fresh),
                rating("rapid", "rapid", 2600.0, 50.0, 40, fresh),
                # established and fresh, but rated against too few opponents: a farm
                rating("pair", "blitz", 2900.0, 50.0, 287, fresh, LEADERBOARD_OPPONENTS - 1),
                rating("edge", "rapid", 2000.0, 40.0, 40, stale),
            ],
        )
        async with Client.connect(srv.ws_url, nickname="ann") as ann:
            blitz = await ask(ann, GetLeaderboard("blitz"))
            assert (blitz.speed, blitz.weeks, blitz.opponents) == (
                "blitz",
                LEADERBOARD_WEEKS,
                LEADERBOARD_OPPONENTS,
            )
            assert len(blitz.players) == LEADERBOARD_SHOWN
            assert blitz.players[:4] == [
                LeaderboardEntry("Edge", 2400, round(PROVISIONAL_RD), 9),
                LeaderboardEntry("Robo", 2300, 70, 300, bot=True),
                LeaderboardEntry("Tie", 2300, 71, 30),
                LeaderboardEntry("P102", 1306, 60, 112),
            ]
            assert [p.name for p in blitz.players[3:]] == [
                f"P{n:03d}" for n in range(LEADERBOARD_SHOWN + 2, 5, -1)
            ]
            assert blitz.players[-1] == LeaderboardEntry("P006", 1018, 60, 16)
            assert blitz.provisional == [
                LeaderboardEntry("Prov", 2500, round(PROVISIONAL_RD + 0.5), 3),
                LeaderboardEntry("Newb", 1580, 290, 1),
            ]
            assert await ask(ann, GetLeaderboard("rapid")) == Leaderboard(
                "rapid",
                LEADERBOARD_WEEKS,
                [LeaderboardEntry("Rapid", 2600, 50, 40)],
                LEADERBOARD_OPPONENTS,
            )
            assert await ask(ann, GetLeaderboard("bullet")) == Leaderboard(
                "bullet", LEADERBOARD_WEEKS, [], LEADERBOARD_OPPONENTS
            )

            # Kept a few seconds: a new rating shows once it is read again.
            await insert(srv, tables.ratings, [rating("prov", "rapid", 2700.0, 50.0, 9, now)])
            assert (await ask(ann, GetLeaderboard("rapid"))).players[0].name == "Rapid"
            srv.hub.profiles.leaderboard_seconds = 0
            assert (await ask(ann, GetLeaderboard("rapid"))).players[0].name == "Prov"


# -- the download --------------------------------------------------------------------------------


async def test_a_players_games_download_as_gamestrings_newest_first(
    start_server: StartServer, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with (
        start_server(database_url=database_url) as srv,
        account(srv, "ann", "Ann_L") as ann,
    ):
        a = Seat(ann.player, "ann", account="account")
        t0 = now_ms() - DAY_MS
        moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wA1 wQ-", "bA1 bQ-", "wA1 bA1/"]
        records = [
            finished(f"d{n:07d}", *((a, HARD) if n % 2 else (BEGINNER, a)),
                     "Draw" if n % 3 else "WhiteWins", "queen" if n % 3 == 0 else "agreement",
                     t0 + n, moves=tuple(moves[: n % 8]))
            for n in range(7)
        ]  # fmt: skip
        records.append(finished("d0000099", a, HARD, None, "aborted", t0 + 99, moves=()))
        await archive(srv, *records)
        newest_first = records[6::-1]
        one_by_one = [
            (await get(f"{srv.http_url}/games/{record.id}.txt")).body for record in newest_first
        ]
        assert one_by_one == [f"{r.game_string()}\n".encode() for r in newest_first]

        got = await get(f"{srv.http_url}/@/ann_l/games.txt")
        assert got.status == 200
        assert got.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert got.headers["Content-Disposition"] == (
            "attachment; filename=\"Ann_L-games.txt\"; filename*=UTF-8''Ann_L-games.txt"
        )
        assert got.headers["Hive-Games"] == "7" and "Link" not in got.headers
        assert got.body == b"".join(one_by_one)

        # Several files of at most DOWNLOAD_GAMES, read a few at a time, one after the other.
        monkeypatch.setattr(profiles, "DOWNLOAD_GAMES", 3)
        monkeypatch.setattr(profiles, "DOWNLOAD_BATCH", 2)
        url, parts, links = f"{srv.http_url}/@/ANN_L/games.txt", [], []
        while url:
            got = await get(url)
            assert got.status == 200
            parts.append(got.body)
            link = got.headers.get("Link")
            links.append(link)
            url = f"{srv.http_url}{link[1 : link.index('>')]}" if link else ""
        assert b"".join(parts) == b"".join(one_by_one)
        assert [part.count(b"\n") for part in parts] == [3, 3, 1]
        assert links == [
            '</@/Ann_L/games.txt?before=d0000004>; rel="next"',
            '</@/Ann_L/games.txt?before=d0000001>; rel="next"',
            None,
        ]

        for path, status in [
            ("/@/nobody/games.txt", 404),
            ("/@/hard%20bot/games.txt", 404),
            (f"/@/{ann.player}/games.txt", 404),
            ("/@/ann_l/games.txt?before=00000000", 404),
            ("/@/ann_l/games.txt?before=zz", 400),
            ("/@/ann_l/games.txt?page=2", 400),
            ("/@/ann_l/games.txt?before=d0000004&before=d0000001", 400),
            ("/@/%ff/games.txt", 400),
            (f"/@/{'x' * 300}/games.txt", 404),
        ]:
            got = await get(srv.http_url + path)
            assert got.status == status, (path, got.body)
        async with Client.connect(srv.ws_url, nickname="gus") as gus:
            assert (await get(f"{srv.http_url}/@/gus/games.txt")).status == 404
            await lives(gus)


async def test_downloads_are_limited_per_address(
    srv: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "DOWNLOADS_PER_ADDRESS", 2)
    async with account(srv, "ann", "ann"):
        url = f"{srv.http_url}/@/ann/games.txt"
        assert [(await get(url)).status for _ in range(2)] == [200, 200]
        refused = await get(url)
        assert refused.status == 429 and refused.headers["Retry-After"] == "3600"
        assert refused.body == b"at most 2 downloads an hour from one address\n"
        assert (await get(f"{srv.http_url}/games/00000000.txt")).status == 404  # (not limited)


# -- the database down -------------------------------------------------------------------------


async def test_the_database_down_answers_unavailable_and_nothing_else_breaks(
    start_server: StartServer, postgres_server: PostgresProcess
) -> None:
    url = postgres_server.create()
    async with (
        start_server(database_url=url) as srv,
        account(srv, "ann", "ann") as ann,
    ):
        assert isinstance(await ask(ann, GetProfile("ann")), Profile)
        postgres_server.stop()
        try:
            for message in (GetProfile("ann"), GetLeaderboard("blitz")):
                refused = await ask(ann, message)
                assert isinstance(refused, Error), refused
                assert refused.code == ErrorCode.UNAVAILABLE
                assert refused.message == "the database is unavailable"
            got = await get(f"{srv.http_url}/@/ann/games.txt")
            assert got.status == 503 and got.body == b"storage unavailable; try again\n"
            await lives(ann)
            # Games go on.
            async with Client.connect(srv.ws_url, nickname="bob") as bob:
                game, w, _ = await start_game(ann, bob)
                await play(ann, w, "wS1")
                assert (await updated(bob, game)).state.moves == ["wS1"]
                await bob.send(CreateGame("Base"))
                assert (await bob.expect(Update)).state.status == "open"
        finally:
            postgres_server.restart()
        assert isinstance(await ask(ann, GetProfile("ann")), Profile)
        assert isinstance(await ask(ann, GetLeaderboard("blitz")), Leaderboard)
