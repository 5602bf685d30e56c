"""Puzzles through a real server: loaded once from the generator's file, served without their
solution, each move checked by the rules engine (right, the defender's reply comes; wrong, it
is said at once), the solution shown after a try, ratings changed once per try (sent twice,
from two processes), and the requests bounded per connection."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from ai.puzzles import Puzzle as Proved
from hive import Game
from hive.pieces import NAMES
from protocol import (
    OPEN_PUZZLES,
    PUZZLE_BURST,
    Account,
    Error,
    ErrorCode,
    GetProfile,
    GetPuzzle,
    Message,
    Profile,
    Puzzle,
    PuzzleAnswer,
    PuzzleMove,
    ShowSolution,
    SignUp,
    to_plain,
)
from protocol.client import Client
from server.archive import puzzles
from server.archive.db import tables
from server.archive.db.database import Database
from server.game.clock import now_ms
from tests.puzzled import fixture_puzzles, write
from tests.server.archived import ask
from tests.server.conftest import Running, StartServer
from tests.server.support import rows

PUZZLES = fixture_puzzles()
WIN2 = [p for p in PUZZLES if p.theme == "win2"]


async def loaded(srv: Running) -> dict[str, int]:
    """The fixture puzzles stored in ``srv``'s database: their ids by position."""
    await puzzles.load(srv.hub.database, PUZZLES)
    stored = await rows(srv.hub.database.url, tables.puzzles)
    return {row["game_string"]: row["id"] for row in stored}


async def answer(client: Client, message: Message) -> Puzzle | PuzzleAnswer | Error:
    await client.send(message)
    while True:
        got = await client.recv()
        if isinstance(got, Puzzle | PuzzleAnswer | Error):
            return got


def other_spelling(game_string: str, move: str) -> str:
    """``move`` spelled another way (relative to another piece next to its destination), or
    as it is when it has one spelling only."""
    game = Game.from_game_string(game_string)
    wanted = game.parse_move(move)
    for ref in NAMES:
        for form in ("{} -{}", "{} /{}", "{} \\{}", "{} {}-", "{} {}/", "{} {}\\"):
            text = form.format(move.split()[0], ref)
            if text == move:
                continue
            try:
                found = game.parse_move(text)
            except ValueError:
                continue
            if (found.piece, found.destination) == (wanted.piece, wanted.destination):
                return text
    return move


def by_position(puzzle: Puzzle) -> Proved:
    return next(p for p in PUZZLES if p.game_string == puzzle.position.game_string)


def test_hive_server_puzzles_load_stores_each_puzzle_once(
    database_url: str, tmp_path: Path
) -> None:
    path = write(tmp_path / "puzzles.jsonl", PUZZLES)
    command = [sys.executable, "-m", "server", "puzzles", "load", str(path)]
    for added in (len(PUZZLES), 0):
        done = subprocess.run(
            [*command, "--database-url", database_url], capture_output=True, text=True, check=True
        )
        assert f"{added} puzzles added" in done.stderr
    stored = asyncio.run(rows(database_url, tables.puzzles))
    assert sorted(r["theme"] for r in stored) == ["win1"] * 3 + ["win2"] * 3
    # a line not legal in its position is not a puzzle: the file is refused, nothing stored
    wrong = replace(PUZZLES[0], solution=(PUZZLES[0].solution[1],), source="bad")
    bad = write(tmp_path / "bad.jsonl", (PUZZLES[1], wrong))
    refused = subprocess.run(
        [*command[:-1], str(bad), "--database-url", database_url], capture_output=True, text=True
    )
    assert refused.returncode == 1 and "line 2: not a puzzle" in refused.stderr
    assert len(asyncio.run(rows(database_url, tables.puzzles))) == len(PUZZLES)
    assert all(r["rating"] == puzzles.FIRST_RATING[r["theme"]] and r["tries"] == 0 for r in stored)


async def test_a_puzzle_is_solved_move_by_move_and_rated_once(srv: Running) -> None:
    await loaded(srv)
    async with Client.connect(srv.ws_url, nickname="solver") as client:
        shown = await answer(client, GetPuzzle(theme="win2"))
        assert isinstance(shown, Puzzle) and shown.theme == "win2"
        assert shown.player.rating == 1500 and shown.player.tries == 0
        proved = by_position(shown)
        plain = to_plain(shown)  # no field holds the line: only the game so far, and
        for played in ("moves", "game_string", "last"):  # the solver's legal moves
            del plain["position"][played]
        assert proved.solution[1] not in str(plain) and "solution" not in plain
        # the first move, spelled another way: the same move
        first = other_spelling(proved.game_string, proved.solution[0])
        right = await answer(client, PuzzleMove(shown.id, first))
        assert isinstance(right, PuzzleAnswer)
        assert right.correct and not right.done and not right.rated
        assert right.move == proved.solution[0] and right.solution == []
        assert [f.last and f.last.move for f in right.frames] == list(proved.solution[:2])
        last = await answer(client, PuzzleMove(shown.id, proved.solution[2]))
        assert isinstance(last, PuzzleAnswer)
        assert last.correct and last.done and last.solved and last.rated
        assert last.frames[-1].state in ("WhiteWins", "BlackWins")
        assert last.solution == list(proved.solution)
        assert last.player is not None and last.player.rating > 1500 and last.change > 0
        assert last.player.streak == 1 and last.rating < puzzles.FIRST_RATING["win2"]
        over = await answer(client, PuzzleMove(shown.id, proved.solution[2]))
        assert isinstance(over, Error) and over.code is ErrorCode.GAME_OVER
        # again: the same puzzle is not rated twice
        again = await answer(client, GetPuzzle(id=shown.id))
        assert isinstance(again, Puzzle)
        assert again.player == last.player
        assert [t.puzzle for t in again.tries] == [shown.id]
        shown_again = await answer(client, ShowSolution(shown.id))
        assert isinstance(shown_again, PuzzleAnswer) and not shown_again.rated
        token = client.welcome.token
    # a guest's puzzle rating stays with their session
    async with Client.connect(srv.ws_url, token=token) as back:
        later = await answer(back, GetPuzzle(theme="win2"))
        assert isinstance(later, Puzzle) and later.player == last.player
        assert later.id != shown.id  # not one tried, while others are left
    tried = await rows(srv.hub.database.url, tables.puzzle_tries)
    assert [(r["puzzle"], r["solved"]) for r in tried] == [(shown.id, True)]


async def test_a_wrong_move_fails_at_once_and_the_solution_follows(srv: Running) -> None:
    await loaded(srv)
    async with Client.connect(srv.ws_url, nickname="misser") as client:
        shown = await answer(client, GetPuzzle(theme="win1"))
        assert isinstance(shown, Puzzle)
        proved = by_position(shown)
        wrong = next(m.move for m in shown.position.legal if m.move != proved.solution[0])
        missed = await answer(client, PuzzleMove(shown.id, wrong))
        assert isinstance(missed, PuzzleAnswer)
        assert not missed.correct and not missed.done and missed.frames == []
        assert missed.rated and missed.change < 0 and missed.solution == []
        assert missed.player is not None and missed.player.streak == 0
        illegal = await answer(client, PuzzleMove(shown.id, "wQ -nowhere"))
        assert isinstance(illegal, Error) and illegal.code is ErrorCode.ILLEGAL_MOVE
        solution = await answer(client, ShowSolution(shown.id))
        assert isinstance(solution, PuzzleAnswer)
        assert solution.done and not solution.solved and not solution.rated
        assert solution.solution == list(proved.solution)
        assert [f.last and f.last.move for f in solution.frames] == list(proved.solution)
        # asking for the solution of a puzzle never moved in fails its try
        other = await answer(client, GetPuzzle(theme="win2"))
        assert isinstance(other, Puzzle)
        given = await answer(client, ShowSolution(other.id))
        assert isinstance(given, PuzzleAnswer) and given.rated and given.change < 0
        unknown = await answer(client, GetPuzzle(id=2**53 - 1, after=-(2**53 - 1)))
        assert isinstance(unknown, Error) and unknown.code is ErrorCode.NOT_OPEN
        assert isinstance(await answer(client, GetPuzzle(after=2**53 - 1)), Puzzle)
        closed = await answer(client, PuzzleMove(999_999, "wQ"))
        assert isinstance(closed, Error) and closed.code is ErrorCode.NOT_OPEN
    tried = await rows(srv.hub.database.url, tables.puzzle_tries)
    assert sorted((r["puzzle"], r["solved"]) for r in tried) == sorted(
        [(shown.id, False), (other.id, False)]
    )


async def test_a_try_is_rated_once_whoever_sends_it_twice(database_url: str) -> None:
    """Two engines (two processes' pools) rate one player's try of one puzzle at once, twice
    each: one rating changes it; and two tries of one player at once both count."""
    first, second = Database(database_url), Database(database_url)
    try:
        await first.migrate()
        await puzzles.load(first, PUZZLES)
        ids = [row["id"] for row in await rows(database_url, tables.puzzles)]
        done = await asyncio.gather(
            *(puzzles.rate(db, "p1", ids[0], True, now_ms()) for db in (first, second) * 2)
        )
        assert sorted(d.rated for d in done) == [False, False, False, True]
        both = await asyncio.gather(
            puzzles.rate(first, "p1", ids[1], False, now_ms()),
            puzzles.rate(second, "p1", ids[2], True, now_ms()),
        )
        assert all(d.rated for d in both)
        mine = await puzzles.rating_of(first, "p1")
        assert (mine.tries, mine.solved) == (3, 2)
        stored = {r["id"]: r["tries"] for r in await rows(database_url, tables.puzzles)}
        assert [stored[i] for i in ids[:3]] == [1, 1, 1]
        assert len(await puzzles.history(first, "p1")) == 3
    finally:
        await first.close()
        await second.close()


async def test_the_puzzle_of_the_day_is_everyone_s_and_requests_and_open_tries_are_bounded(
    srv: Running,
) -> None:
    stored = await loaded(srv)
    async with (
        Client.connect(srv.ws_url, nickname="ann") as ann,
        Client.connect(srv.ws_url, nickname="bob") as bob,
    ):
        mine = await answer(ann, GetPuzzle(daily=True))
        theirs = await answer(bob, GetPuzzle(daily=True))
        assert isinstance(mine, Puzzle) and isinstance(theirs, Puzzle) and mine.daily
        assert mine.id == theirs.id
        # 8 past the burst: unrefused only if the server took 4 s over them (its refill); fewer
        # than the strikes that close a connection
        for _ in range(PUZZLE_BURST + 8):
            await bob.send(GetPuzzle(after=theirs.id))
        refused = None
        for _ in range(PUZZLE_BURST + 8):
            got = await bob.recv()
            if isinstance(got, Error):
                refused = got
                break
        assert refused is not None and refused.code is ErrorCode.RATE_LIMITED
        assert "puzzle requests" in refused.message
        # the other connection is not limited; a player has OPEN_PUZZLES open at most: the
        # oldest is closed first
        ids = sorted(set(stored.values()) - {mine.id})
        for puzzle_id in ids[:OPEN_PUZZLES]:
            assert isinstance(await answer(ann, GetPuzzle(id=puzzle_id)), Puzzle)
        closed = await answer(ann, ShowSolution(mine.id))
        assert isinstance(closed, Error) and closed.code is ErrorCode.NOT_OPEN
        still = await answer(ann, ShowSolution(ids[0]))
        assert isinstance(still, PuzzleAnswer) and still.done


async def test_an_account_s_profile_shows_its_puzzle_rating_and_tries(srv: Running) -> None:
    await loaded(srv)
    async with Client.connect(srv.ws_url, nickname="ada") as ada:
        await ada.send(SignUp("ada_p", "correct horse"))
        await ada.expect(Account)
        empty = await ask(ada, GetProfile("ada_p"))
        assert isinstance(empty, Profile) and empty.puzzles is None and empty.puzzle_tries == []
        shown = await answer(ada, GetPuzzle(theme="win1"))
        assert isinstance(shown, Puzzle)
        given = await answer(ada, ShowSolution(shown.id))
        assert isinstance(given, PuzzleAnswer) and given.player is not None
        profile = await ask(ada, GetProfile("ada_p"))
    assert isinstance(profile, Profile)
    assert profile.puzzles == given.player
    assert [(t.puzzle, t.solved, t.rating, t.change) for t in profile.puzzle_tries] == [
        (shown.id, False, given.player.rating, given.change)
    ]


async def test_a_puzzle_never_tried_is_chosen_while_one_is_left(database_url: str) -> None:
    database = Database(database_url)
    try:
        await database.migrate()
        await puzzles.load(database, PUZZLES)
        ones = sorted(
            row["id"] for row in await rows(database_url, tables.puzzles) if row["theme"] == "win1"
        )
        for puzzle_id in ones[:2]:
            await puzzles.rate(database, "p2", puzzle_id, True, now_ms())
        for seed in range(5):
            rng = random.Random(seed)
            found = await puzzles.choose(database, "p2", 1500.0, theme="win1", rng=rng)
            assert found is not None and found.id == ones[2]
        await puzzles.rate(database, "p2", ones[2], False, now_ms())
        again = await puzzles.choose(database, "p2", 1500.0, theme="win1", avoid=ones[2])
        assert again is not None and again.id in ones[:2]  # all tried: one again, not the last
        assert await puzzles.choose(database, "p2", 1500.0, theme="defend") is None
    finally:
        await database.close()


async def test_one_try_sent_to_two_server_processes_at_once_is_rated_once(
    start_server: StartServer,
) -> None:
    async with start_server() as one, start_server() as two:
        ids = await loaded(one)
        puzzle_id = ids[WIN2[0].game_string]
        async with Client.connect(one.ws_url, nickname="twice") as first:
            token = first.welcome.token
            async with Client.connect(two.ws_url, token=token) as second:
                for client in (first, second):
                    assert isinstance(await answer(client, GetPuzzle(id=puzzle_id)), Puzzle)
                wrong = other_move(WIN2[0])
                done = await asyncio.gather(
                    answer(first, PuzzleMove(puzzle_id, wrong)),
                    answer(second, PuzzleMove(puzzle_id, wrong)),
                )
    assert all(isinstance(d, PuzzleAnswer) and not d.correct for d in done)
    assert sorted(d.rated for d in done if isinstance(d, PuzzleAnswer)) == [False, True]
    url = one.hub.database.url  # (the servers' engines are closed now: read afresh)
    mine = await rows(url, tables.puzzle_ratings)
    assert [(r["player"], r["tries"], r["solved"]) for r in mine] == [(first.welcome.player, 1, 0)]
    stored = {r["id"]: r["tries"] for r in await rows(url, tables.puzzles)}
    assert stored[puzzle_id] == 1


async def test_a_try_begun_on_one_process_goes_on_on_another(start_server: StartServer) -> None:
    """A player whose connection comes back on another process (behind a balancer) goes on
    with the try they began: its moves so far count, and it is rated once."""
    async with start_server() as one, start_server() as two:
        ids = await loaded(one)
        proved = WIN2[0]
        puzzle_id = ids[proved.game_string]
        async with Client.connect(one.ws_url, nickname="mover") as first:
            assert isinstance(await answer(first, GetPuzzle(id=puzzle_id)), Puzzle)
            right = await answer(first, PuzzleMove(puzzle_id, proved.solution[0]))
            assert isinstance(right, PuzzleAnswer) and right.correct and not right.done
            token = first.welcome.token
        async with Client.connect(two.ws_url, token=token) as again:
            last = await answer(again, PuzzleMove(puzzle_id, proved.solution[2]))
            assert isinstance(last, PuzzleAnswer), last
            assert last.correct and last.done and last.solved and last.rated
            over = await answer(again, PuzzleMove(puzzle_id, proved.solution[2]))
            assert isinstance(over, Error) and over.code is ErrorCode.GAME_OVER


def other_move(puzzle: Proved) -> str:
    """A legal move of the puzzle's position that is not its first."""
    game = Game.from_game_string(puzzle.game_string)
    return next(m for m in game.move_strings(game.legal_moves()) if m != puzzle.solution[0])
