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

import json
import urllib.parse
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any, Final

from hive import Game, HiveError, Layout, Piece
from server.store import Store

JSON: Final = "application/json"
MAX_EXTRA_MOVES: Final = 64
"""Moves ``/positions.json`` plays after its GameString (a trace is never deeper)."""

Answer = tuple[HTTPStatus, bytes, str]
"""An HTTP answer: status, body, content type."""


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


def position_query(query: str) -> Answer:
    """``/positions.json?game=...&moves=...&from=...``: 400 with the reason when the
    GameString or a move is not valid."""
    fields = urllib.parse.parse_qs(query, keep_blank_values=True)
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
    try:
        document = frames(head[0], [*filter(None, head[3:]), *extra], start=start)
    except HiveError as error:
        return _error(HTTPStatus.BAD_REQUEST, str(error))
    return HTTPStatus.OK, json.dumps(document).encode(), JSON


async def stored_game(store: Store, game_id: str) -> Answer:
    """``/games/ID/positions.json``: 404 when there is no such game."""
    record = await store.get(game_id)
    if record is None:
        return _error(HTTPStatus.NOT_FOUND, f"no game {game_id}")
    document = frames(record.game_type, record.moves, repetition_draw=True)
    document.update(
        id=record.id,
        status=record.status,
        white=None if record.white is None else record.white.name,
        black=None if record.black is None else record.black.name,
        result=record.result,
        reason=record.reason,
    )
    return HTTPStatus.OK, json.dumps(document).encode(), JSON


async def route(store: Store, path: str, query: str = "") -> Answer | None:
    """The answer to a review route, or None when ``path`` is not one of them."""
    if path == "/positions.json":
        return position_query(query)
    if path.startswith("/games/") and path.endswith("/positions.json"):
        game_id = path[len("/games/") : -len("/positions.json")]
        if len(game_id) == 8 and game_id.isalnum() and game_id.islower():
            return await stored_game(store, game_id)
    return None


def _error(status: HTTPStatus, message: str) -> Answer:
    return status, json.dumps({"error": message}).encode(), JSON


__all__ = ["frames", "position_query", "route", "stored_game"]
