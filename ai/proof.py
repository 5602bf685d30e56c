"""The proof behind puzzles: forced wins and the one saving move, by brute force over the rules.

A **win in n** is a position where the side to move (the solver) surrounds the enemy Queen
within ``n`` of its own moves whatever the other side (the defender) replies: every reply is
tried, a pass included, and none is assumed away. ``forcing_moves`` finds every first move that
forces it; ``solve`` keeps a position only when

- the solver cannot win in fewer moves (a win in two that is also a win in one is a win in one:
  every length from one is searched in full);
- exactly one first move forces the win within ``n``;
- along the solution, after the defender's reply the line follows, exactly one move forces the
  win in what is left. The line follows, of the replies, one that holds out longest (no faster
  win), then one after which the solver's move is unique, then the defender's best by the
  evaluation: the reply a defender would choose, and the one the server plays.

A **defence** (``save the Queen``) is a position where the defender of a win in one or two, to
move, has exactly one move after which the other side no longer forces a win within two.

A position is proved by the search alone, never by a guess: the moves that can end a game
(those that land next to the enemy Queen, or move it) are only tried first, to refute a
candidate sooner, never in place of the others. Two shortcuts stand in for moves the search
would play, each exact by the rules (their docstrings say why, and ``tests/ai/test_puzzles.py``
checks both against playing every move): ``winning_now`` plays only the moves that can fill
the last hole round the Queen, and ``_quiet_reply`` finds a defender's reply that leaves the
Queen two holes without generating all the defender's moves. A table of answers (``Known``,
one a ``find``) keeps what was proved of a position and a length, as transpositions come back.

Compiled with mypyc (``setup.py``): this is the hot part of ``hive-ai puzzles``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from ai.evaluation import evaluate
from hive import Game, GameState, Move
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.movegen import destinations, placement_hexes
from hive.pieces import BUG_AT, BUG_COUNTS, BUG_OF, FIRST_OF, OWNER, PIECES_PER_COLOR, Bug

WINS: Final = (GameState.WHITE_WINS, GameState.BLACK_WINS)
"""The state in which each colour (0 white, 1 black) has won."""
DEEPEST: Final = 3
"""The longest win ``solve`` looks for, in the solver's moves."""


def _ring(game: Game, color: int) -> tuple[int, ...]:
    """The hexes around ``color``'s Queen (none while it is in hand)."""
    where = game.board.hex_of[FIRST_OF[color][Bug.QUEEN]]
    return () if where == HAND else NEIGHBORS[where]


def _enemy_ring(game: Game) -> tuple[int, ...]:
    """The hexes around the enemy Queen of the side to move (none while it is in hand)."""
    return _ring(game, 1 - (game.ply & 1))


def winning_now(game: Game, *, stop_at: int = 0) -> list[Move]:
    """The side to move's moves that win at once (surround the enemy Queen, and not its own
    with it). ``stop_at``: return once that many are found (0: all).

    A move fills one hex at most (a placement, a step, a jump or a throw lands on one), and a
    placement never touches an enemy piece: so only a move of a piece on the board into the
    one hole round the enemy Queen can win, or a throw of the Queen itself, which only a
    Pillbug of the side to move next to it, or a Mosquito there, can. With two holes or more
    and no such thrower, nothing wins; with one hole and no Pillbug or Mosquito of the side to
    move beside the hole or the Queen, only the pieces that the rules' own generation
    (``hive.movegen.destinations``) moves into the hole are played. Otherwise every legal move
    that lands next to the Queen or moves it is played (``tests/ai/test_puzzles.py`` checks
    the shortcuts against that on the positions of games)."""
    if game.state is not GameState.IN_PROGRESS:
        return []
    ring = _enemy_ring(game)
    if not ring:
        return []
    me = game.ply & 1
    top = game.board.top
    holes = [h for h in ring if top[h] == EMPTY]
    if len(holes) > 1:
        return _played(game, ring, stop_at) if _may_throw(game, ring, me) else []
    if _may_throw(game, ring, me) or _may_throw(game, NEIGHBORS[holes[0]], me):
        return _played(game, ring, stop_at)
    return _into(game, holes[0], stop_at)


def _played(game: Game, ring: tuple[int, ...], stop_at: int) -> list[Move]:
    """``winning_now`` by playing every legal move that lands in ``ring`` or moves the Queen
    it surrounds."""
    queen = FIRST_OF[1 - (game.ply & 1)][Bug.QUEEN]
    near = (m for m in game.legal_moves() if m.destination in ring or m.piece == queen)
    return _winning(game, near, stop_at)


def _into(game: Game, hole: int, stop_at: int) -> list[Move]:
    """``winning_now`` when only a step or jump into ``hole`` can win: each piece of the side
    to move whose destinations (``_steps``) hold the hole is played there."""
    me = game.ply & 1
    hex_of = game.board.hex_of
    if hex_of[FIRST_OF[me][Bug.QUEEN]] == HAND:
        return []  # (no piece may move before its Queen is placed)
    pinned = game.board.pinned()
    first = FIRST_OF[me][Bug.QUEEN]
    pieces = range(first, first + PIECES_PER_COLOR)
    into = (Move(p, hex_of[p], hole) for p in pieces if hole in _steps(game, p, pinned))
    return _winning(game, into, stop_at)


def _winning(game: Game, moves: Iterable[Move], stop_at: int) -> list[Move]:
    """Those of ``moves`` after which the side to move has won, each played (``stop_at``: the
    first that many)."""
    won = WINS[game.ply & 1]
    found = []
    for move in moves:
        game.push(move)
        wins = game.state is won
        game.pop()
        if wins:
            found.append(move)
            if len(found) == stop_at:
                break
    return found


def _steps(game: Game, piece: int, pinned: int) -> list[int]:
    """Where ``piece`` of the side to move may move (throws aside), as
    ``hive.movegen.movements`` finds it, lifted while its destinations are found: nowhere when
    it is in hand or covered, was moved last, or stands alone on an articulation point
    (``pinned``: ``Board.pinned``)."""
    board = game.board
    where = board.hex_of[piece]
    if where == HAND or board.top[where] != piece or piece == game.last_moved:
        return []
    if board.height[where] == 1 and pinned >> piece & 1:
        return []
    board.lift(where)
    try:
        return destinations(board, BUG_OF[piece], where)
    finally:
        board.place(piece, where)


def _holes(game: Game, ring: tuple[int, ...]) -> int:
    """How many hexes of ``ring`` are empty."""
    top = game.board.top
    return sum(top[h] == EMPTY for h in ring)


def _may_throw(game: Game, hexes: tuple[int, ...], me: int) -> bool:
    """Whether a piece of ``me`` in ``hexes`` could throw (and so move a piece next to it, or
    into a hole next to it): a Pillbug on the ground, or a Mosquito on the ground beside a
    Pillbug, as ``hive.movegen.movements`` finds its throwers."""
    board = game.board
    top, height = board.top, board.height
    for h in hexes:
        piece = top[h]
        if piece == EMPTY or OWNER[piece] != me or height[h] != 1:
            continue
        bug = BUG_OF[piece]
        if bug == Bug.PILLBUG or (
            bug == Bug.MOSQUITO and any(BUG_AT[top[n]] == Bug.PILLBUG for n in NEIGHBORS[h])
        ):
            return True
    return False


def _quiet_reply(game: Game) -> bool:
    """Whether the side to move (a defender, the solver having just moved) has a reply after
    which the solver surely cannot win at once, found without generating all its moves: while
    two hexes or more round its Queen are empty and no Pillbug or Mosquito of the solver's
    stands in that ring (to throw the Queen), a placement from its hand on a hex away from the
    ring, or a move of a piece other than its Queen to a hex away from the ring. Such a reply
    is legal (the rules' own generation finds it: ``hive.movegen``) and fills no hex round
    the Queen (a placement touches no enemy piece, so never the solver's Queen either; leaving
    the ring only opens it), so ``winning_now`` after it is empty: the answer the search
    would find by playing it."""
    defender = game.ply & 1
    ring = _ring(game, defender)
    if not ring or _holes(game, ring) < 2 or _may_throw(game, ring, 1 - defender):
        return False
    if game.next_in_hand(defender) and any(h not in ring for h in placement_hexes(game)):
        return True
    return _quiet_step(game, ring)


_CHEAP_FIRST: Final = (
    Bug.BEETLE,
    Bug.GRASSHOPPER,
    Bug.PILLBUG,
    Bug.LADYBUG,
    Bug.SPIDER,
    Bug.MOSQUITO,
    Bug.ANT,
)
"""The bugs other than the Queen, those whose moves are cheapest to find first."""


def _quiet_step(game: Game, ring: tuple[int, ...]) -> bool:
    """Whether a piece of the side to move other than its Queen may move (``_steps``) to a hex
    away from ``ring``, its pieces tried cheapest to move first."""
    pinned = game.board.pinned()
    me = game.ply & 1
    for bug in _CHEAP_FIRST:
        first = FIRST_OF[me][bug]
        for piece in range(first, first + BUG_COUNTS[bug]):  # (those not in the game: in hand)
            if any(h not in ring for h in _steps(game, piece, pinned)):
                return True
    return False


def _urgent_first(game: Game, moves: list[Move]) -> list[Move]:
    """``moves`` with those that touch either Queen's ring (land on or leave it, or move a
    Queen) first: the candidates most likely to win, and the replies most likely to refute
    one when the ring is one move from full."""
    board = game.board
    hex_of = board.hex_of
    near: set[int] = set()
    queens = (FIRST_OF[0][Bug.QUEEN], FIRST_OF[1][Bug.QUEEN])
    for queen in queens:
        where = hex_of[queen]
        if where != HAND:
            near.update(NEIGHBORS[where])
    first: list[Move] = []
    last: list[Move] = []
    for m in moves:
        if m.piece in queens or m.destination in near or m.source in near:
            first.append(m)
        else:
            last.append(m)
    first.extend(last)
    return first


Known = dict[tuple[int, int, int], bool]
"""``wins_within``'s answers by position (its hash with the side to move, the piece that may
not move) and length: transpositions are met again and again in one game's positions. Each
``find`` (and each top-level call) owns one."""
_KNOWN_MOST: Final = 1_000_000


def forces(game: Game, move: Move, n: int, known: Known | None = None) -> bool:
    """Whether ``move``, by the side to move, wins within ``n`` of its moves (this one
    included) against every reply."""
    known = {} if known is None else known
    me = game.ply & 1
    game.push(move)
    try:
        if game.state is WINS[me]:
            return True
        if game.state is not GameState.IN_PROGRESS or n == 1:
            return False
        if n == 2 and _quiet_reply(game):
            return False
        replies = game.legal_moves()  # (placements first: quiet ones, while the ring has holes)
        if _holes(game, _ring(game, 1 - me)) < 2:
            replies = _urgent_first(game, replies)
        for reply in replies:
            game.push(reply)
            try:
                after: GameState = game.state  # (a new state: the reply's)
                # (the defender surrounded its own Queen: a win too)
                held = after is not WINS[me] and (
                    after is not GameState.IN_PROGRESS or not wins_within(game, n - 1, known)
                )
            finally:
                game.pop()
            if held:
                return False
        return True
    finally:
        game.pop()


def wins_within(game: Game, n: int, known: Known | None = None) -> bool:
    """Whether the side to move forces a win within ``n`` of its moves."""
    if n == 1:
        return bool(winning_now(game, stop_at=1))
    known = {} if known is None else known
    key = (game.hash, game.last_moved, n)
    answer = known.get(key)
    if answer is None:
        answer = bool(winning_now(game, stop_at=1)) or any(
            forces(game, move, n, known) for move in game.legal_moves()
        )
        if len(known) >= _KNOWN_MOST:
            known.clear()
        known[key] = answer
    return answer


def forcing_moves(
    game: Game, n: int, *, stop_at: int = 0, known: Known | None = None
) -> list[Move]:
    """Every first move that forces a win within ``n`` moves (``stop_at``: once that many are
    found, those)."""
    if n == 1:
        return winning_now(game, stop_at=stop_at)
    known = {} if known is None else known
    found = []
    for move in _urgent_first(game, game.legal_moves()):
        if forces(game, move, n, known):
            found.append(move)
            if len(found) == stop_at:
                break
    return found


def _hemmed(game: Game, n: int) -> bool:
    """Whether the enemy Queen is close enough to surrounded for a win in ``n`` to be worth
    the search: placed, with at least ``6 - n`` of its neighbours taken (the solver's moves
    fill one hex around it each). A filter on which positions are searched (a defender
    forced to fill its own ring could lose faster), never on what a search proves: a
    position that passes is searched at every length from one."""
    ring = _enemy_ring(game)
    if not ring:
        return False
    top = game.board.top
    return sum(top[h] != EMPTY for h in ring) >= 6 - n


def _line(game: Game, n: int, known: Known) -> list[Move] | None:
    """The solution from here, where no win within ``n - 1`` exists: None when more than one
    first move (or none) forces a win within ``n``, or when the line is not unique on."""
    moves = forcing_moves(game, n, stop_at=2, known=known)
    return _line_after(game, moves[0], n, known) if len(moves) == 1 else None


def _line_after(game: Game, move: Move, n: int, known: Known) -> list[Move] | None:
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
                    n == 2 or not wins_within(game, n - 2, known)  # no faster win after it
                ):
                    replies.append((-evaluate(game), len(replies), reply))
            finally:
                game.pop()
        for _, _, reply in sorted(replies, reverse=True):  # the defender's best first
            game.push(reply)
            try:
                rest = _line(game, n - 1, known)
            finally:
                game.pop()
            if rest is not None:
                return [move, reply, *rest]
        return None
    finally:
        game.pop()


def solve(game: Game, known: Known | None = None) -> tuple[int, list[Move]] | None:
    """The shortest forced win here, as its length in the solver's moves and its line, when
    its solution is unique (see the module's docstring); None otherwise (none within
    ``DEEPEST``, or more than one way, or the enemy Queen too free for the search to be
    tried: ``_hemmed``)."""
    if game.state is not GameState.IN_PROGRESS or not _hemmed(game, DEEPEST):
        return None
    known = {} if known is None else known
    for n in range(1, DEEPEST + 1):  # each length searched in full: the shortest is the theme
        moves = forcing_moves(game, n, stop_at=2, known=known)
        if not moves:
            continue
        if len(moves) > 1:
            return None  # two ways to win: not a puzzle
        line = _line_after(game, moves[0], n, known)
        return None if line is None else (n, line)
    return None


def saving_move(game: Game, known: Known | None = None) -> Move | None:
    """The one move of the side to move after which the other side no longer forces a win
    within two (every other move lets it), when the side to move cannot win at once and has
    more than one move; None otherwise."""
    if game.state is not GameState.IN_PROGRESS or winning_now(game, stop_at=1):
        return None
    moves = game.legal_moves()
    if len(moves) < 2:
        return None
    known = {} if known is None else known
    saving = None
    for move in _urgent_first(game, moves):
        game.push(move)
        try:
            holds = game.state is GameState.IN_PROGRESS and not wins_within(game, 2, known)
        finally:
            game.pop()
        if holds:
            if saving is not None:
                return None
            saving = move
    return saving


def is_queen_hemmed(game: Game) -> bool:
    """Whether the side to move's own Queen has four neighbours taken or more: the filter for a
    defence worth the search (never a part of its proof)."""
    where = game.board.hex_of[FIRST_OF[game.ply & 1][Bug.QUEEN]]
    if where == HAND:
        return False
    top = game.board.top
    return sum(top[h] != EMPTY for h in NEIGHBORS[where]) >= 4
