"""Puzzles: ``puzzle`` (one near the player's puzzle rating, a chosen one, or the puzzle of
the day), ``puzzle_move`` and ``puzzle_solution``.

The client never holds a solution before it failed or asked: the line stays on the server,
the player's open try in Redis (``server.storage.tries``: it goes on on any process), and each
move is checked by the rules engine
(``server.game.puzzle.step``, in the positions' worker, as the analysis board's positions
are): right, the defender's reply from the stored line is played and sent; wrong, it is said
at once and the try fails. A try is rated once (``server.archive.puzzles.rate``: the first
try of a player and puzzle, whatever was sent twice or by which process).

Bounded: a connection's puzzle requests take from a bucket (``PUZZLE_BURST`` at once, then
``PUZZLE_RATE`` a second: ``rate_limited``), a player has at most ``OPEN_PUZZLES`` open (the
oldest closed first, all of them an hour after their last request), and a process keeps at
most ``KNOWN_PUZZLES`` puzzles read from the archive (the longest unused forgotten first).
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Final

from protocol import (
    PUZZLE_BURST,
    PUZZLE_RATE,
    ErrorCode,
    GetPuzzle,
    Position,
    ProtocolError,
    Puzzle,
    PuzzleAnswer,
    PuzzleMove,
    PuzzleRating,
    PuzzleTry,
    ShowSolution,
)
from server.archive import puzzles
from server.archive.db.database import Database
from server.archive.games import DATABASE_ERRORS
from server.game import match
from server.game import puzzle as rules
from server.game.clock import now_ms
from server.game.position import Refusal
from server.live.session import Session
from server.requests.analysis import Compute
from server.storage.limits import Bucket
from server.storage.tries import OpenTries, Try

KNOWN_PUZZLES: Final = 1_000
"""Puzzles one process keeps as read from the archive (their lines: a try's moves need them)."""
MAX_ID: Final = 2**31 - 1
"""The largest puzzle id (SQL's integer): a larger one names no puzzle."""


def _is_id(value: int | None) -> bool:
    return value is not None and 0 < value <= MAX_ID


def wire_rating(rating: puzzles.PlayerRating) -> PuzzleRating:
    """A player's puzzle rating as sent."""
    r = rating.rating
    return PuzzleRating(r.shown, r.provisional, rating.tries, rating.solved, rating.streak)


def wire_tries(tries: list[puzzles.Tried]) -> list[PuzzleTry]:
    return [
        PuzzleTry(t.puzzle, t.theme, t.solved, round(t.rating), round(t.change), t.at)
        for t in tries
    ]


class Puzzles:
    """The ``puzzle``, ``puzzle_move`` and ``puzzle_solution`` handlers.

    Args:
        database: Where puzzles, puzzle ratings and tries are.
        tries: The players' open tries.
        compute: Where positions and moves are checked (``Positions.call``).
    """

    def __init__(self, database: Database, tries: OpenTries, compute: Compute) -> None:
        self.database = database
        self.tries = tries
        self.compute = compute
        self.known: OrderedDict[int, puzzles.Stored] = OrderedDict()
        self._buckets: weakref.WeakKeyDictionary[Session, Bucket] = weakref.WeakKeyDictionary()

    def _take(self, session: Session) -> None:
        now = time.monotonic()
        bucket = self._buckets.get(session)
        if bucket is None:
            bucket = self._buckets[session] = Bucket(PUZZLE_RATE, PUZZLE_BURST, now)
        if not bucket.take(now):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {PUZZLE_RATE:g} puzzle requests a second; slow down",
            )

    async def _worked(self, work: Any, *args: Any) -> Any:
        answer = await self.compute(work, *args)
        if isinstance(answer, Refusal):
            raise ProtocolError(answer.code, answer.message)
        if isinstance(answer, Position | rules.Step | list):
            return answer
        raise ProtocolError(ErrorCode.UNAVAILABLE, "busy computing positions; try again")

    # -- the handlers --------------------------------------------------------------------------

    async def puzzle(self, session: Session, message: GetPuzzle) -> None:
        self._take(session)
        player = session.player
        assert player is not None
        game_type = None if message.game_type is None else match.canonical_type(message.game_type)
        after = message.after if _is_id(message.after) else None
        try:
            rating = await puzzles.rating_of(self.database, player)
            if message.daily:
                found = await puzzles.daily(self.database, datetime.now(UTC).date())
            elif message.id is not None:
                found = await puzzles.get(self.database, message.id) if _is_id(message.id) else None
            else:
                found = await puzzles.choose(
                    self.database,
                    player,
                    rating.rating.rating,
                    theme=message.theme,
                    game_type=game_type,
                    avoid=after,
                )
            tries = await puzzles.history(self.database, player)
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        if found is None:
            raise ProtocolError(
                ErrorCode.NOT_OPEN,
                f"no puzzle {message.id}"
                if message.id is not None
                else "no puzzle matches: choose another theme",
            )
        position = await self._worked(rules.shown, found.game_string)
        self._know(found)
        await self.tries.open(player, found.id, now_ms())
        await session.send(
            Puzzle(
                found.id,
                found.game_type,
                found.theme,  # type: ignore[arg-type]  # (checked on load)
                round(found.rating),
                position,
                wire_rating(rating),
                daily=message.daily,
                tries=wire_tries(tries),
            )
        )

    async def move(self, session: Session, message: PuzzleMove) -> None:
        self._take(session)
        stored, attempt = await self._attempt(session, message.puzzle)
        if attempt.done:
            raise ProtocolError(ErrorCode.GAME_OVER, "this puzzle is over: ask for another")
        step: rules.Step = await self._worked(
            rules.step, stored.game_string, list(stored.solution), attempt.played, message.move
        )
        if step.correct:
            attempt = attempt._replace(played=step.played, done=step.done)
        else:
            attempt = attempt._replace(failed=True)
        answer = PuzzleAnswer(
            stored.id,
            step.move,
            step.correct,
            attempt.done,
            attempt.done and not attempt.failed,
            step.frames,
        )
        if attempt.done or attempt.failed:
            answer, attempt = await self._rated(session, stored, attempt, answer)
        await self._keep(session, stored, attempt)
        await session.send(answer)

    async def solution(self, session: Session, message: ShowSolution) -> None:
        self._take(session)
        stored, attempt = await self._attempt(session, message.puzzle)
        frames = await self._worked(rules.line, stored.game_string, list(stored.solution))
        attempt = attempt._replace(failed=attempt.failed or not attempt.done, done=True)
        answer = PuzzleAnswer(stored.id, "", False, True, False, frames)
        answer, attempt = await self._rated(session, stored, attempt, answer)
        await self._keep(session, stored, attempt)
        await session.send(answer)

    # -- tries ---------------------------------------------------------------------------------

    def _know(self, found: puzzles.Stored) -> None:
        self.known.pop(found.id, None)
        self.known[found.id] = found
        while len(self.known) > KNOWN_PUZZLES:
            self.known.popitem(last=False)

    async def _attempt(self, session: Session, puzzle_id: int) -> tuple[puzzles.Stored, Try]:
        """The puzzle ``puzzle_id`` and ``session``'s player's open try of it."""
        assert session.player is not None
        attempt = await self.tries.get(session.player, puzzle_id) if _is_id(puzzle_id) else None
        if attempt is None:
            raise ProtocolError(
                ErrorCode.NOT_OPEN, f"puzzle {puzzle_id} is not open: ask for it (puzzle)"
            )
        stored = self.known.get(puzzle_id)
        if stored is None:  # opened on another process
            try:
                stored = await puzzles.get(self.database, puzzle_id)
            except DATABASE_ERRORS as error:
                raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
            if stored is None:
                raise ProtocolError(ErrorCode.NOT_OPEN, f"no puzzle {puzzle_id}")
        self._know(stored)
        return stored, attempt

    async def _keep(self, session: Session, stored: puzzles.Stored, attempt: Try) -> None:
        assert session.player is not None
        await self.tries.put(session.player, stored.id, attempt)

    async def _rated(
        self, session: Session, stored: puzzles.Stored, attempt: Try, answer: PuzzleAnswer
    ) -> tuple[PuzzleAnswer, Try]:
        """``answer`` with the try rated (when it was not yet), and, once done, the line;
        the try as it then stands."""
        if attempt.done:
            answer = replace(answer, solution=list(stored.solution), bugs=list(stored.bugs))
        if attempt.rated:
            return answer, attempt
        assert session.player is not None
        try:
            done = await puzzles.rate(
                self.database, session.player, stored.id, not attempt.failed, now_ms()
            )
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        attempt = attempt._replace(rated=True)
        if not done.rated:
            return replace(answer, rating=round(done.puzzle)), attempt
        rated = replace(
            answer,
            rated=True,
            player=wire_rating(done.player),
            change=round(done.change),
            rating=round(done.puzzle),
        )
        return rated, attempt
