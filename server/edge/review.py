"""Positions by HTTP, for the web client's review and its search-tree visualizer.

The browser holds no rules: to step through a finished game, or to show the position of a node
of a search trace, it asks the server for the pieces after each move, in the plain axial
coordinates of ``GameState.pieces`` (``hive.Layout``: a piece keeps its coordinates until it
moves, so the positions of one game line up from move to move). Two routes, both ``GET``:

- ``/games/ID/positions.json``: every position of a stored game (in progress or finished),
  with its players and result.
- ``/positions.json?game=GAMESTRING&moves=M1;M2&from=N``: the positions of a GameString
  followed by ``moves`` (MoveStrings separated by ``;``, optional), from ply ``N`` (default 0)
  to the end. The visualizer asks for a trace's root position plus the moves down to a node,
  from the last ply.

Both answer JSON ``{"game_type", "moves", "frames": [...]}`` where ``moves`` are all the
MoveStrings from the start and each frame is one position::

    {"ply": 3, "move": "wQ -wS1", "piece": "wQ", "from": null, "to": [-1, 0],
     "pieces": [{"piece": "wQ", "q": -1, "r": 0, "height": 0}, ...],
     "hand_white": [...], "hand_black": [...], "turn": "black", "state": "InProgress"}

``move`` is the move that led to the frame (null at ply 0), ``from``/``to`` its hexes (``from``
null for a placement, both null for a pass). The stored game's document also has ``id``,
``status``, ``white`` and ``black`` (the names), ``result`` and ``reason``.
"""

from __future__ import annotations

import asyncio
import enum
import json
import multiprocessing
import urllib.parse
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Final, Protocol, TypeVar

from ai.pool import ignore_interrupts
from hive import Game, HiveError, Layout, Piece
from server.game.record import GAME_ID, Record

JSON: Final = "application/json"
MAX_EXTRA_MOVES: Final = 64
"""Moves ``/positions.json`` plays after its GameString (a trace is never deeper)."""
MAX_MOVES: Final = 1000
"""Moves ``/positions.json`` plays in all."""
POSITION_JOBS: Final = 8
"""Position requests waiting or running at once (past them: 503)."""

Answer = tuple[HTTPStatus, bytes, str]
"""An HTTP answer: status, body, content type."""
T = TypeVar("T")


class Unanswered(enum.Enum):
    """Why ``Positions.call`` has no answer."""

    BUSY = "busy"
    """Too many requests wait or run already."""
    GONE = "gone"
    """The worker died."""


BUSY: Final = Unanswered.BUSY
GONE: Final = Unanswered.GONE


def frames(
    game_type: str, moves: Sequence[str], *, start: int = 0, repetition_draw: bool = False
) -> dict[str, Any]:
    """The positions of a game from ply ``start`` on (see the module's docstring).

    Args:
        game_type: A GameTypeString such as ``"Base+MLP"``.
        moves: The MoveStrings from the start (``pass`` included).
        start: The first ply to return (0: the empty board).
        repetition_draw: Whether a third repetition ends the game (as on the server).

    Raises:
        HiveError: A bad game type, or a move that cannot be read or is not legal.
    """
    game = Game(game_type, repetition_draw=repetition_draw)
    played: list[str] = []
    result: list[dict[str, Any]] = []
    if start <= 0:
        result.append(_frame(game, None, None))
    for text in moves:
        move = game.parse_move(text)
        spelled = game.move_string(move)
        before = Layout(game.moves) if len(game.moves) + 1 >= start else None
        game.push(move)
        played.append(spelled)
        if before is not None:
            result.append(_frame(game, spelled, before.endpoints(move)))
    return {"game_type": str(game.game_type), "moves": played, "frames": result}


def _frame(
    game: Game,
    move: str | None,
    ends: tuple[tuple[int, int] | None, tuple[int, int] | None] | None,
) -> dict[str, Any]:
    source, target = ends if ends is not None else (None, None)
    last = game.moves[-1] if game.moves else None
    layout = game.layout()
    return {
        "ply": len(game.moves),
        "move": move,
        "piece": None if last is None or last.is_pass else Piece(last.piece).name,
        "from": None if source is None else list(source),
        "to": None if target is None else list(target),
        "pieces": [
            {"piece": str(piece), "q": q, "r": r, "height": level}
            for piece, (q, r, level) in layout.positions.items()
        ],
        "hand_white": [str(p) for p in game.hand(0)],
        "hand_black": [str(p) for p in game.hand(1)],
        "turn": "white" if game.ply % 2 == 0 else "black",
        "state": str(game.state),
    }


class Positions:
    """The worker process that computes positions for these routes, so that none is computed
    on the event loop (a GameString of a thousand moves takes most of a second). At most
    ``waiting`` requests wait or run at once; past them the answer is 503 at once.

    Args:
        waiting: Requests waiting or running at most.
    """

    def __init__(self, waiting: int = POSITION_JOBS) -> None:
        self.waiting = waiting
        self.busy = 0
        self.submitted = asyncio.Event()
        """Set once a request has gone to the worker (for the tests)."""
        self._executor: ProcessPoolExecutor | None = None

    async def run(self, work: Callable[..., Answer], *args: Any) -> Answer:
        """``work(*args)`` in the worker (started at the first request)."""
        answer = await self.call(work, *args)
        if answer is BUSY:
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "busy computing positions; try again")
        if answer is GONE:
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "the positions worker died; try again")
        assert not isinstance(answer, Unanswered)
        return answer

    async def call(self, work: Callable[..., T], *args: Any) -> T | Unanswered:
        """``work(*args)`` in the worker (started at the first request), or ``BUSY`` at once
        when ``waiting`` requests wait or run, or ``GONE`` when the worker died (a new one
        takes the next request). Also the analysis board's positions
        (``server.requests.analysis``)."""
        if self.busy >= self.waiting:
            return BUSY
        self.busy += 1
        try:
            if self._executor is None:
                context = multiprocessing.get_context("forkserver")
                self._executor = ProcessPoolExecutor(
                    1, mp_context=context, initializer=ignore_interrupts
                )
            executor = self._executor
            try:
                future = executor.submit(work, *args)
                self.submitted.set()
                return await asyncio.wrap_future(future)
            except BrokenProcessPool:  # the worker died (killed, out of memory): a new one
                if self._executor is executor:
                    self._executor = None
                    executor.shutdown(wait=False, cancel_futures=True)
                return GONE
        finally:
            self.busy -= 1

    def pids(self) -> list[int]:
        """The worker's process id (none before the first request)."""
        processes = {} if self._executor is None else self._executor._processes or {}
        return list(processes)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


@dataclass(frozen=True)
class Query:
    """What ``/positions.json`` asks for: the positions of ``moves`` from ply ``start``."""

    game_type: str
    moves: list[str]
    start: int


def position_query(query: str) -> Query | Answer:
    """What ``/positions.json?game=...&moves=...&from=...`` asks for, or the 400 answer
    saying what is wrong with it (checked here, cheaply: the moves are played in the
    worker)."""
    fields = urllib.parse.parse_qs(query, keep_blank_values=True, max_num_fields=8)
    text = (fields.get("game") or [""])[0]
    if not text:
        return _error(HTTPStatus.BAD_REQUEST, "give a GameString as ?game=")
    extra = [m for m in (fields.get("moves") or [""])[0].split(";") if m.strip()]
    if len(extra) > MAX_EXTRA_MOVES:
        return _error(HTTPStatus.BAD_REQUEST, f"at most {MAX_EXTRA_MOVES} moves after the game")
    try:
        start = int((fields.get("from") or ["0"])[0])
    except ValueError:
        return _error(HTTPStatus.BAD_REQUEST, "from= is a ply number")
    head = [part.strip() for part in text.split(";")]
    if len(head) < 3:
        return _error(HTTPStatus.BAD_REQUEST, f"not a GameString: {text[:80]!r}")
    moves = [*filter(None, head[3:]), *extra]
    if len(moves) > MAX_MOVES:
        return _error(HTTPStatus.BAD_REQUEST, f"at most {MAX_MOVES} moves in all")
    return Query(head[0], moves, start)


def _query_answer(query: Query) -> Answer:
    """The answer to a positions query (in the worker)."""
    try:
        document = frames(query.game_type, query.moves, start=query.start)
    except HiveError as error:
        return _error(HTTPStatus.BAD_REQUEST, str(error))
    return HTTPStatus.OK, json.dumps(document).encode(), JSON


def _stored_answer(record: Record) -> Answer:
    """The answer for a stored game (in the worker; its moves are trusted). A game stored
    before the repetition was counted by kind (pieces of a kind alike) may play on past a
    position seen three times by kind: it is replayed without the rule, its stated result
    standing."""
    try:
        document = frames(record.game_type, record.moves, repetition_draw=True)
    except HiveError:
        document = frames(record.game_type, record.moves)
    document.update(
        id=record.id,
        status=record.status,
        white=None if record.white is None else record.white.name,
        black=None if record.black is None else record.black.name,
        result=record.result,
        reason=record.reason,
    )
    return HTTPStatus.OK, json.dumps(document).encode(), JSON


class Games(Protocol):
    """Where stored games are read (``server.archive.games.Archive``: Redis, then the database)."""

    async def get(self, game_id: str) -> Record | None: ...


async def route(games: Games, positions: Positions, path: str, query: str = "") -> Answer | None:
    """The answer to a review route, or None when ``path`` is not one of them."""
    if path == "/positions.json":
        asked = position_query(query)
        if isinstance(asked, Query):
            return await positions.run(_query_answer, asked)
        return asked
    if path.startswith("/games/") and path.endswith("/positions.json"):
        game_id = path[len("/games/") : -len("/positions.json")]
        if GAME_ID.fullmatch(game_id):
            record = await games.get(game_id)
            if record is None:
                return _error(HTTPStatus.NOT_FOUND, f"no game {game_id}")
            return await positions.run(_stored_answer, record)
    return None


def _error(status: HTTPStatus, message: str) -> Answer:
    return status, json.dumps({"error": message}).encode(), JSON


__all__ = ["BUSY", "GONE", "Positions", "Unanswered", "frames", "position_query", "route"]
