"""Puzzles from games: positions where one move alone wins by force, proved by brute force.

A **win in n** is a position where the side to move (the solver) surrounds the enemy Queen
within ``n`` of its own moves whatever the other side (the defender) replies: every reply is
tried, a pass included, and none is assumed away. ``forcing_moves`` finds every first move that
forces it; ``solve`` keeps a position only when

- the solver cannot win in fewer moves (a win in two that is also a win in one is a win in one);
- exactly one first move forces the win within ``n``;
- along the solution, after the defender's reply the line follows, exactly one move forces the
  win in what is left. The line follows, of the replies, one that holds out longest (no faster
  win), then one after which the solver's move is unique, then the defender's best by the
  evaluation: the reply a defender would choose, and the one the server plays.

A **defence** (``save the Queen``) is a position where the defender of a win in one or two, to
move, has exactly one move after which the other side no longer forces a win within two.

A position is proved by the search alone, never by a table or a guess: the moves that can end a
game (those that land next to the enemy Queen, or move it) are only tried first, to refute a
candidate sooner, never in place of the others. ``find`` scans the positions of games (the
bots' own, ``hive-ai puzzles``), and ``Puzzle`` is what it keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from ai.evaluation import evaluate
from hive import Game, GameState, Move
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.pieces import BUG_OF, FIRST_OF, Bug

WINS: Final = (GameState.WHITE_WINS, GameState.BLACK_WINS)
"""The state in which each colour (0 white, 1 black) has won."""
DEEPEST: Final = 3
"""The longest win ``find`` looks for, in the solver's moves."""


@dataclass(frozen=True)
class Puzzle:
    """A position and its one solution.

    Attributes:
        game_string: The position, as a UHP GameString (its moves lead to it).
        solution: The line as MoveStrings: the solver's move, the defender's reply, ... ending
            with the solver's winning move (a defence: the one saving move alone).
        theme: ``win1``, ``win2``, ``win3`` or ``defend``.
        bugs: The bugs the solver moves in the solution, in order (``Queen``, ``Ant``...).
        source: Where the position came from (a game's id or an arena's game).
    """

    game_string: str
    solution: tuple[str, ...]
    theme: str
    bugs: tuple[str, ...]
    source: str = ""

    @property
    def game_type(self) -> str:
        return self.game_string.split(";", 1)[0]


def _enemy_ring(game: Game) -> tuple[int, ...]:
    """The hexes around the enemy Queen of the side to move (none while it is in hand)."""
    queen = FIRST_OF[1 - (game.ply & 1)][Bug.QUEEN]
    where = game.board.hex_of[queen]
    return () if where == HAND else NEIGHBORS[where]


def winning_now(game: Game, *, stop_at: int = 0) -> list[Move]:
    """The side to move's moves that win at once (surround the enemy Queen, and not its own
    with it); only moves that land next to the enemy Queen or move it can, so only those are
    played. ``stop_at``: return once that many are found (0: all)."""
    if game.state is not GameState.IN_PROGRESS:
        return []
    ring = _enemy_ring(game)
    if not ring:
        return []
    queen = FIRST_OF[1 - (game.ply & 1)][Bug.QUEEN]
    won = WINS[game.ply & 1]
    found = []
    for move in game.legal_moves():
        if move.destination in ring or move.piece == queen:
            game.push(move)
            wins = game.state is won
            game.pop()
            if wins:
                found.append(move)
                if len(found) == stop_at:
                    break
    return found


def _urgent_first(game: Game, moves: list[Move]) -> list[Move]:
    """``moves`` with those that touch either Queen's ring (land on or leave it, or move a
    Queen) first: the replies most likely to refute a candidate, the candidates most likely to
    win."""
    board = game.board
    near: set[int] = set()
    queens = {FIRST_OF[0][Bug.QUEEN], FIRST_OF[1][Bug.QUEEN]}
    for queen in queens:
        where = board.hex_of[queen]
        if where != HAND:
            near.update(NEIGHBORS[where])
    urgent = [m for m in moves if m.piece in queens or m.destination in near or m.source in near]
    return urgent + [
        m for m in moves if not (m.piece in queens or m.destination in near or m.source in near)
    ]


_KNOWN: dict[tuple[int, int, int], bool] = {}
"""``wins_within``'s answers by position (its hash with the side to move, the piece that may
not move) and length: transpositions are met again and again in one game's positions."""
_KNOWN_MOST: Final = 1_000_000


def forces(game: Game, move: Move, n: int) -> bool:
    """Whether ``move``, by the side to move, wins within ``n`` of its moves (this one
    included) against every reply."""
    me = game.ply & 1
    game.push(move)
    try:
        if game.state is WINS[me]:
            return True
        if game.state is not GameState.IN_PROGRESS or n == 1:
            return False
        for reply in _urgent_first(game, game.legal_moves()):
            game.push(reply)
            try:
                after: GameState = game.state  # (a new state: the reply's)
                if after is WINS[me]:
                    continue  # the defender surrounded its own Queen
                if after is not GameState.IN_PROGRESS or not wins_within(game, n - 1):
                    return False
            finally:
                game.pop()
        return True
    finally:
        game.pop()


def wins_within(game: Game, n: int) -> bool:
    """Whether the side to move forces a win within ``n`` of its moves."""
    if n == 1:
        return bool(winning_now(game, stop_at=1))
    key = (game.hash, game.last_moved, n)
    known = _KNOWN.get(key)
    if known is None:
        known = bool(winning_now(game, stop_at=1)) or any(
            forces(game, move, n) for move in _urgent_first(game, game.legal_moves())
        )
        if len(_KNOWN) >= _KNOWN_MOST:
            _KNOWN.clear()
        _KNOWN[key] = known
    return known


def forcing_moves(game: Game, n: int, *, stop_at: int = 0) -> list[Move]:
    """Every first move that forces a win within ``n`` moves (``stop_at``: once that many are
    found, those)."""
    if n == 1:
        return winning_now(game, stop_at=stop_at)
    found = []
    for move in _urgent_first(game, game.legal_moves()):
        if forces(game, move, n):
            found.append(move)
            if len(found) == stop_at:
                break
    return found


def _hemmed(game: Game, n: int) -> bool:
    """Whether the enemy Queen is close enough to surrounded for a win in ``n`` to be worth
    the search: placed, with at least ``6 - n`` of its neighbours taken (the solver's moves
    fill one hex around it each). A filter on which positions are searched (a defender
    forced to fill its own ring could lose faster), never on what a search proves."""
    ring = _enemy_ring(game)
    if not ring:
        return False
    top = game.board.top
    return sum(top[h] != EMPTY for h in ring) >= 6 - n


def _line(game: Game, n: int) -> list[Move] | None:
    """The solution from here, where no win within ``n - 1`` exists: None when more than one
    first move (or none) forces a win within ``n``, or when the line is not unique on."""
    moves = forcing_moves(game, n, stop_at=2)
    return _line_after(game, moves[0], n) if len(moves) == 1 else None


def _line_after(game: Game, move: Move, n: int) -> list[Move] | None:
    """The solution that begins with ``move`` (the only one forcing a win within ``n``): the
    defender's reply it follows and the rest, or None when no reply that holds out longest
    leaves the solver one way on."""
    if n == 1:
        return [move]
    game.push(move)
    try:
        replies: list[tuple[int, int, Move]] = []  # holding out longest, by evaluation
        for reply in game.legal_moves():
            game.push(reply)
            try:
                if game.state is GameState.IN_PROGRESS and (
                    n == 2 or not wins_within(game, n - 2)  # no faster win after it
                ):
                    replies.append((-evaluate(game), len(replies), reply))
            finally:
                game.pop()
        for _, _, reply in sorted(replies, reverse=True):  # the defender's best first
            game.push(reply)
            try:
                rest = _line(game, n - 1)
            finally:
                game.pop()
            if rest is not None:
                return [move, reply, *rest]
        return None
    finally:
        game.pop()


def solve(game: Game) -> tuple[int, list[Move]] | None:
    """The shortest forced win here, as its length in the solver's moves and its line, when
    its solution is unique (see the module's docstring); None otherwise (none within
    ``DEEPEST``, or more than one way)."""
    if game.state is not GameState.IN_PROGRESS:
        return None
    for n in range(1, DEEPEST + 1):
        if not _hemmed(game, n):
            continue  # (no win within n: its ring has too many holes)
        moves = forcing_moves(game, n, stop_at=2)
        if not moves:
            continue
        if len(moves) > 1:
            return None  # two ways to win: not a puzzle
        line = _line_after(game, moves[0], n)
        return None if line is None else (n, line)
    return None


def saving_move(game: Game) -> Move | None:
    """The one move of the side to move after which the other side no longer forces a win
    within two (every other move lets it), when the side to move cannot win at once and has
    more than one move; None otherwise."""
    if game.state is not GameState.IN_PROGRESS or winning_now(game, stop_at=1):
        return None
    moves = game.legal_moves()
    if len(moves) < 2:
        return None
    saving = None
    for move in _urgent_first(game, moves):
        game.push(move)
        try:
            holds = game.state is GameState.IN_PROGRESS and not wins_within(game, 2)
        finally:
            game.pop()
        if holds:
            if saving is not None:
                return None
            saving = move
    return saving


def _queen_hemmed(game: Game) -> bool:
    """Whether the side to move's own Queen has four neighbours taken or more: the filter for a
    defence worth the search (never a part of its proof)."""
    where = game.board.hex_of[FIRST_OF[game.ply & 1][Bug.QUEEN]]
    if where == HAND:
        return False
    top = game.board.top
    return sum(top[h] != EMPTY for h in NEIGHBORS[where]) >= 4


def puzzle_of(game: Game, source: str = "") -> Puzzle | None:
    """The puzzle of this position, if it has one: a win, else a defence."""
    solved = solve(game)
    if solved is not None:
        n, line = solved
        return _puzzle(game, line, f"win{n}", source)
    if _queen_hemmed(game):
        move = saving_move(game)
        if move is not None:
            return _puzzle(game, [move], "defend", source)
    return None


def _puzzle(game: Game, line: list[Move], theme: str, source: str) -> Puzzle:
    spelled = []
    bugs = []
    for ply, move in enumerate(line):
        spelled.append(game.move_string(move))
        if ply % 2 == 0:
            bugs.append(Bug(BUG_OF[move.piece]).name.title())
        game.push(move)
    for _ in line:
        game.pop()
    return Puzzle(game.game_string(), tuple(spelled), theme, tuple(bugs), source)


def find(games: Iterable[tuple[str, Game]]) -> Iterator[Puzzle]:
    """The puzzles of every position of ``games`` (a source name and a finished or stopped
    game each: its positions from the start), one a position at most, each position once."""
    seen: set[int] = set()
    for source, game in games:
        replay = Game(game.game_type)  # (no draw by repetition within a puzzle's few moves)
        for move in game.moves:
            replay.push(move)
            if replay.state is not GameState.IN_PROGRESS:
                break
            if replay.hash in seen or not (replay.queen_placed(0) and replay.queen_placed(1)):
                continue
            seen.add(replay.hash)
            found = puzzle_of(replay, f"{source}@{replay.ply}")
            if found is not None:
                yield found


MINING_LEVELS: Final = ("easy", "medium")
"""The bots whose games ``mine`` plays: quick, and they leave the Queen open often enough."""


def mine(index: int, game_type: str, seed: int, max_plies: int = 120) -> list[Puzzle]:
    """The puzzles of one game the bots play (``MINING_LEVELS``, colours by ``index``):
    a function of a worker process (``hive-ai puzzles``)."""
    from ai.arena import Player, play_game  # (the arena's bots, only where puzzles are mined)
    from hive import GameType

    a, b = (Player.bot(level) for level in MINING_LEVELS)
    record = play_game(
        a, b, index, game_type=GameType.parse(game_type), seed=seed, max_plies=max_plies
    )
    game = Game.from_game_string(record.game_string, repetition_draw=True)
    return list(find([(f"{game_type}#{seed}.{index}", game)]))
