"""Alpha-beta search (negamax) with a branching limit, iterative deepening and a table.

Below the root, a node's children are pre-scored with the static evaluation (push, evaluate,
pop), sorted best first, and only the best ``branching`` (K) of them are searched; the rest are
*cut*. Children are searched with principal-variation windows and fail-soft alpha-beta. At a
frontier node (one ply left) every child is a leaf whose score is its pre-score, so all are
scored (until a cutoff) and the limit does not apply; they are tried in a cheap order, led by
the table's move and the killer (the move that last cut off at that ply).

From three plies up, a node's late children (after its first ``FULL_DEPTH_MOVES`` in
pre-score order) are *reduced*: searched a ply shallower with a null window, and again at full
depth only when they beat alpha there (late-move reductions, as chess engines do). Moves onto
the enemy Queen's ring are never reduced, nor any move while the mover's own Queen has at most
``DANGER`` empty neighbours: the threats a shallow look would miss. The fifth ply costs a
median 0.6 of what it did (``bench.depths``). The scores of a search of four plies or more
are then no longer plain minimax under the branching rule, only its close approximation.

A forced result is proved, never guessed from the K: when every searched child of a node wins
for the opponent, its cut children are searched too before the node is scored as lost (a cut
defence is still a defence). So every win or loss score the search gives is a forced result.

At the root the best ``exact_top`` moves (and every move tied with them) get exact scores, so
the bots can pick a good move other than the best and know how much worse it is. The other
root moves are searched with a null window just below the ``exact_top``-th best score so far:
they fail low quickly and keep upper bounds. The randomness of a level rarely looks beyond
its best few moves, and this is what makes a 4- or 5-ply search affordable.

Scores are from the side to move's point of view. A win ``p`` plies into the game scores
``WIN - p`` (``ai.evaluation``), so quicker wins and slower losses score better.

The search is pure: it reads time only through the ``clock`` it is given, and only when it has
a ``deadline``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import count
from operator import itemgetter
from typing import Final, NamedTuple

from ai.evaluation import HAND_SET, MATE_BOUND, WIN, Weights, evaluate, terminal_score
from ai.table import EXACT, LOWER, UPPER, TranspositionTable, from_table, position_key, to_table
from ai.trace import NO_TRACER, UNTRACED, NodeTrace, TraceRecorder
from hive import Game, GameState, Move
from hive.board import EMPTY, HAND
from hive.game import PASS
from hive.hexes import NEIGHBORS
from hive.pieces import QUEENS

INFINITY: Final = WIN + 1
_MAX_PLIES: Final = 128
"""Plies from the root with a killer move kept (deeper ones keep none)."""
_CHECK_EVERY: Final = 256
"""Nodes between two looks at the clock (a few milliseconds: a deadline holds within them)."""
REDUCE_FROM: Final = 3
"""Late-move reductions apply at interior nodes of at least this many plies..."""
FULL_DEPTH_MOVES: Final = 3
"""...to the children after the first this many (in pre-score order)..."""
DANGER: Final = 2
"""...unless the side to move's Queen has at most this many empty neighbours."""
NULL_FROM: Final = 3
"""A null move is tried at interior nodes of at least this many plies..."""
NULL_REDUCTION: Final = 1
"""...searched this many plies shallower than a real move (a ply for the pass, and these)."""
GROWTH: Final = 4.0
"""An iterative search starts a depth only if the last one's time, times this, still fits."""
_IN_PROGRESS: Final = GameState.IN_PROGRESS
_WON: Final[tuple[GameState, ...]] = (GameState.WHITE_WINS, GameState.BLACK_WINS)


@dataclass(frozen=True)
class SearchResult:
    """What a search found.

    Attributes:
        ranked: Every root move with its score (side to move's view), best first: exact for the
            first ``exact`` moves, upper bounds for the rest.
        depth: Plies searched (of the last completed depth for an iterative search).
        nodes: Positions visited (every push, pre-scoring included).
        seconds: Time spent, by the clock given (0.0 without one).
        completed: False when the deadline stopped the search before ``depth`` was done.
        prunes: Alpha-beta cutoffs.
        cut: Children left unsearched by the branching limit.
        table_hits: Nodes answered by the transposition table.
        branching: The branching limit K (None: unlimited).
        replies: For the aggressive tie-break, the number of the opponent's replies that hold
            their score, per root move that tied for best.
        exact: How many moves at the head of ``ranked`` have exact scores: at least the
            search's ``exact_top`` (all when there are fewer moves), and every move scoring as
            much as the last of them. The others score less, and hold upper bounds.
        nulls: Nodes cut by a null move (``search``'s ``null_move``).
        deeper: True when the first move comes from the depth the deadline cut short
            (``depth + 1``): that depth proved it better than the last complete depth's best
            before time ran out, so it leads, with its score at that depth (exact), before
            the rest of the last complete ranking.
    """

    ranked: list[tuple[Move, int]]
    depth: int
    nodes: int
    seconds: float
    completed: bool
    prunes: int = 0
    cut: int = 0
    table_hits: int = 0
    branching: int | None = None
    replies: dict[Move, int] = field(default_factory=dict)
    exact: int = 0
    deeper: bool = False
    nulls: int = 0

    @property
    def best(self) -> Move | None:
        """The best move, or None when there is no move (the game is over)."""
        return self.ranked[0][0] if self.ranked else None


class _Timeout(Exception):
    """The deadline passed (internal: caught by the search functions)."""


class _Searcher:
    """One search's state: the game (searched in place), limits, table and counters."""

    def __init__(
        self,
        game: Game,
        *,
        branching: int | None,
        deadline: float | None,
        clock: Callable[[], float] | None,
        table: TranspositionTable | None,
        trace: TraceRecorder | None,
        exact_top: int | None = None,
        weights: Weights = HAND_SET,
        threats: bool = False,
        null_move: bool = False,
    ) -> None:
        if exact_top is not None and exact_top < 1:
            raise ValueError(f"exact_top must be at least 1 or None, not {exact_top!r}")
        if branching is not None and branching < 1:
            raise ValueError(f"branching must be at least 1 or None, not {branching!r}")
        if deadline is not None and clock is None:
            raise ValueError("a deadline needs a clock")
        self.game = game
        self.exact_top = exact_top
        self.branching = branching
        self.weights = weights
        self.threats = threats
        self.null_move = null_move
        self.deadline = deadline
        self.clock = clock
        self.table = table
        if table is not None:
            table.prepare(branching, weights, threats, null_move)
        self.evals: dict[int, int] = table.evals if table is not None else {}
        self.wins: dict[int, bool] = table.wins if table is not None else {}
        self.tracer = trace if trace is not None else NO_TRACER
        self.root_length = len(game.moves)
        # Per ply from the root, the last move that cut off at a frontier node there: tried
        # early at its siblings (a "killer": what refutes one reply often refutes the next).
        self.killers: list[Move | None] = [None] * _MAX_PLIES
        # The root moves searched so far at the depth in progress: (move, score, exact).
        self.searched: list[tuple[Move, int, bool]] = []
        self.nodes = 0
        self.prunes = 0
        self.cut = 0
        self.hits = 0
        self.nulls = 0
        self.next_check = _CHECK_EVERY

    # -- helpers -------------------------------------------------------------------------------

    def now(self) -> float:
        return self.clock() if self.clock is not None else 0.0

    def _check_time(self) -> None:
        self.next_check = self.nodes + _CHECK_EVERY
        if self.deadline is not None and self.clock is not None and self.clock() >= self.deadline:
            raise _Timeout

    def restore(self) -> None:
        """Take back the moves an interrupted search left on the game."""
        game = self.game
        while len(game.moves) > self.root_length:
            game.pop()

    def leaf(self) -> int:
        """The static score of the current position for its side to move (cached); with
        ``threats``, a win when the side to move surrounds the enemy Queen at once."""
        game = self.game
        if game.state is not _IN_PROGRESS and game.state.is_over:  # not NOT_STARTED
            return terminal_score(game)
        if self.threats and self._can_win_at_once():
            return WIN - game.ply - 1
        key = game.hash
        evals = self.evals
        value = evals.get(key)
        if value is None:
            value = evals[key] = evaluate(game, self.weights)
        return value

    def prescore(self, moves: list[Move]) -> list[tuple[int, Move]]:
        """Each move with the static score after it (mover's view), best first (stable)."""
        game = self.game
        scored = []
        for move in moves:
            game.push(move)
            scored.append((-self.leaf(), move))
            game.pop()
        self.nodes += len(moves)
        scored.sort(key=itemgetter(0), reverse=True)
        return scored

    def _queen_free(self, queen: int) -> int:
        """How many empty hexes surround a Queen at ``queen`` (6 for one in hand)."""
        if queen == HAND:
            return 6
        top = self.game.board.top
        free = 0
        for n in NEIGHBORS[queen]:
            if top[n] == EMPTY:
                free += 1
        return free

    def _one_gap(self) -> bool:
        """Whether the side to move's Queen has a single empty neighbour (its own move could
        then surround it)."""
        game = self.game
        return self._queen_free(game.board.hex_of[QUEENS[game.ply & 1]]) == 1

    def _queen_safe(self) -> bool:
        """Whether the side to move's Queen has more than ``DANGER`` empty neighbours (or is in
        hand): no late-move reduction nor null move is tried while it has fewer."""
        game = self.game
        return self._queen_free(game.board.hex_of[QUEENS[game.ply & 1]]) > DANGER

    def _can_win_at_once(self) -> bool:
        """Whether the side to move can surround the enemy Queen with its move: looked for
        only when that Queen has a single empty neighbour (a placement never fills it: the
        hex touches an enemy piece), so the moves are generated in few positions."""
        game = self.game
        if self._queen_free(game.board.hex_of[QUEENS[1 - (game.ply & 1)]]) != 1:
            return False
        key = position_key(game)
        wins = self.wins
        found = wins.get(key)
        if found is None:
            found = wins[key] = self._win_at_once(game.legal_moves()) is not None
        return found

    def _win_at_once(self, moves: list[Move]) -> Move | None:
        """The first of ``moves`` that surrounds the enemy Queen (and not one's own), if any:
        only a move onto the Queen's ring, or of the Queen itself (a Pillbug's throw), can."""
        game = self.game
        me = game.ply & 1
        queen = QUEENS[1 - me]
        board = game.board
        where = board.hex_of[queen]
        if where == HAND:
            return None
        marks = board.marks
        ring = board.mark_ring(where)
        won = _WON[me]
        for move in moves:
            if marks[move.destination] == ring or move.piece == queen:
                game.push(move)
                self.nodes += 1
                state = game.state
                game.pop()
                if state is won:
                    return move
        return None

    # -- alpha-beta ----------------------------------------------------------------------------

    def negamax(self, depth: int, alpha: int, beta: int, trace: NodeTrace) -> int:
        """The position's value for its side to move, searched ``depth`` plies (fail-soft)."""
        if self.nodes >= self.next_check:
            self._check_time()
        game = self.game
        if game.state is not _IN_PROGRESS:
            value = terminal_score(game)
            trace.score(value, EXACT)
            return value
        if depth <= 0:
            value = self.leaf()
            trace.score(value, EXACT)
            return value
        ply = game.ply
        # Mate-distance bounds: nothing beats a win by this move, and nothing loses sooner
        # than by the opponent's reply, unless this move can fill its own Queen's last gap.
        floor = -(WIN - ply - 1) if self._one_gap() else -(WIN - ply - 2)
        if alpha < floor:
            alpha = floor
        ceiling = WIN - ply - 1
        if beta > ceiling:
            beta = ceiling
        if alpha >= beta:
            trace.score(alpha, LOWER if alpha == floor else UPPER)
            return alpha

        table = self.table
        best_known: Move | None = None
        key = 0
        if table is not None:
            key = position_key(game)
            entry = table.entries.get(key)
            if entry is not None:
                e_depth, e_value, e_bound, best_known = entry
                if e_depth >= depth:
                    value = from_table(e_value, ply)
                    if (
                        e_bound == EXACT
                        or (e_bound == LOWER and value >= beta)
                        or (e_bound == UPPER and value <= alpha)
                    ):
                        self.hits += 1
                        trace.table_hit(value, e_bound)
                        return value

        if self.null_move and depth >= NULL_FROM and self._null_cutoff(depth, beta):
            trace.score(beta, LOWER)
            return beta

        start_nodes = self.nodes
        moves = game.legal_moves()
        alpha0 = alpha
        if depth == 1:
            moves = self._frontier_order(moves, best_known)
            best, best_move = self._frontier(moves, alpha, beta, trace)
        else:
            best, best_move = self._interior(moves, depth, alpha, beta, best_known, trace)
        # The value is exact inside the window, and also at a mate-distance bound.
        if best <= alpha0:
            bound = EXACT if best <= floor else UPPER
        elif best >= beta:
            bound = EXACT if best >= ceiling else LOWER
        else:
            bound = EXACT
        if table is not None:
            table.entries[key] = (depth, to_table(best, ply), bound, best_move)
        trace.close(best, bound, self.nodes - start_nodes)
        return best

    def _null_cutoff(self, depth: int, beta: int) -> bool:
        """Whether the side to move holds ``beta`` even when it passes its turn (a null move),
        searched ``NULL_REDUCTION`` plies shallower with a null window: then a real move would
        hold it too, and the node is cut (a heuristic: Hive has few positions where having to
        move hurts). Not after a pass, nor near a forced result, nor while one's own Queen is in
        danger, nor when the position is below beta by its static score."""
        game = self.game
        if (
            game.last_moved < 0
            or not -MATE_BOUND < beta < MATE_BOUND
            or not self._queen_safe()
            or self.leaf() < beta
        ):
            return False
        game.push(PASS)
        self.nodes += 1
        value = -self.negamax(depth - 1 - NULL_REDUCTION, -beta, -beta + 1, UNTRACED)
        game.pop()
        if value >= beta:
            self.prunes += 1
            self.nulls += 1
            return True
        return False

    def _frontier_order(self, moves: list[Move], best_known: Move | None) -> list[Move]:
        """Likely refutations first: the table's move, then the killer (the move that last cut
        off at a frontier node of this ply, when it is legal here), then moves onto the enemy
        Queen's ring, then moves that free a hex around one's own Queen."""
        game = self.game
        board = game.board
        hex_of, marks = board.hex_of, board.marks  # rings marked on the board's scratch list
        me = game.ply & 1
        attack = board.mark_ring(hex_of[QUEENS[1 - me]])
        first = []
        others = []
        for move in moves:
            if marks[move.destination] == attack:
                first.append(move)
            else:
                others.append(move)
        guard = board.mark_ring(hex_of[QUEENS[me]])
        second = []
        rest = []
        for move in others:
            source = move.source
            if source != HAND and marks[source] == guard and marks[move.destination] != guard:
                second.append(move)
            else:
                rest.append(move)
        moves = first + second + rest
        below = len(game.moves) - self.root_length
        killer = self.killers[below] if below < _MAX_PLIES else None
        if killer is not None and killer != best_known:
            _to_front(moves, killer)
        if best_known is not None:
            _to_front(moves, best_known)
        return moves

    def _frontier(
        self, moves: list[Move], alpha: int, beta: int, trace: NodeTrace
    ) -> tuple[int, Move]:
        """One ply left: every child is a leaf scored statically; stop at a cutoff."""
        game = self.game
        best = -INFINITY
        best_move = moves[0]
        count = 0
        for move in moves:
            game.push(move)
            count += 1
            value = -self.leaf()
            game.pop()
            if value > best:
                best = value
                best_move = move
                if value >= beta:
                    self.prunes += 1
                    below = len(game.moves) - self.root_length
                    if below < _MAX_PLIES:
                        self.killers[below] = move
                    break
        self.nodes += count
        trace.leaves(moves, count)
        return best, best_move

    def _interior(
        self,
        moves: list[Move],
        depth: int,
        alpha: int,
        beta: int,
        best_known: Move | None,
        trace: NodeTrace,
    ) -> tuple[int, Move]:
        """Two or more plies left: pre-score, sort, keep the best K, search them (PVS).

        A forced loss is only believed once proved: when every searched child wins for the
        opponent and nothing cut off, the cut children are searched too (a cut defence is not
        no defence). A forced win needs one child whose loss is proved in turn, so every mate
        score the search returns is proved. A move that wins at once is found without
        pre-scoring (it scores best and cuts off), which keeps those proofs cheap.
        """
        game = self.game
        order = moves
        rest: list[Move] = []  # the children cut by the branching limit
        win = self._win_at_once(moves) if len(moves) > 1 else None
        if win is not None:  # it scores best and cuts off: no need to pre-score the others
            order = [win]
        elif len(moves) > 1:
            order = [move for _, move in self.prescore(moves)]
            limit = self.branching
            if limit is not None and len(order) > limit:
                order, rest = order[:limit], order[limit:]
            # The table's best move first, if it is one of the K (a best move found at a
            # frontier node, where every child is scored, may lie beyond them).
            if best_known is not None:
                _to_front(order, best_known)
        # Late-move reductions: past the first FULL_DEPTH_MOVES, a child is searched a ply
        # shallower with a null window, and again at full depth only if it beats alpha; not a
        # move onto the enemy Queen's ring, nor any move while one's own Queen is in danger.
        hex_of = game.board.hex_of
        me = game.ply & 1
        reducing = depth >= REDUCE_FROM and self._queen_safe()
        attack: tuple[int, ...] = ()
        if reducing:
            enemy_queen = hex_of[QUEENS[1 - me]]
            if enemy_queen != HAND:
                attack = NEIGHBORS[enemy_queen]
        best = -INFINITY
        best_move = order[0]
        searched = 0
        considered = len(moves) if win is not None else len(order)
        batch = order
        while True:
            cutoff = False
            for move in batch:
                searched += 1
                reduced = (
                    reducing and searched > FULL_DEPTH_MOVES and move.destination not in attack
                )
                child = trace.child(move, depth - 2 if reduced else depth - 1)
                game.push(move)
                self.nodes += 1
                if searched == 1:
                    value = -self.negamax(depth - 1, -beta, -alpha, child)
                else:
                    if reduced:  # a late, quiet move: a shallower look first
                        value = -self.negamax(depth - 2, -alpha - 1, -alpha, child)
                        if value > alpha:
                            child.reset(depth - 1)
                            value = -self.negamax(depth - 1, -alpha - 1, -alpha, child)
                    else:
                        value = -self.negamax(depth - 1, -alpha - 1, -alpha, child)
                    if alpha < value < beta:
                        child.reset()
                        value = -self.negamax(depth - 1, -beta, -alpha, child)
                game.pop()
                if value > best:
                    best = value
                    best_move = move
                    if value > alpha:
                        alpha = value
                        if value >= beta:
                            self.prunes += 1
                            cutoff = True
                            break
            if cutoff or not rest or best > -MATE_BOUND:
                break
            # Every child searched so far loses by force: search the cut ones before believing it.
            batch, rest = rest, []
            considered += len(batch)
        self.cut += len(rest)
        trace.unsearched(considered - searched, len(rest))
        return best, best_move

    # -- root ----------------------------------------------------------------------------------

    def root(self, depth: int, order: list[Move] | None = None) -> list[tuple[Move, int]]:
        """Every root move with its ``depth``-ply score, best first: exact for the best
        ``exact_top`` (and any that tie with them), upper bounds for the others.

        ``order`` (e.g. the previous iteration's ranking) sets the search order; ties keep it.
        Raises _Timeout (the game restored by the caller) when the deadline passes, except at
        depth 1, which always completes.
        """
        game = self.game
        start_nodes = self.nodes
        trace = self.tracer.begin(game, depth, self.leaf, self.weights)
        moves = game.legal_moves()
        if not moves:
            trace.score(terminal_score(game), EXACT)
            return []
        scored = self.prescore(moves)
        if depth <= 1:
            ranked = [(move, value) for value, move in scored]
            trace.leaves([move for _, move in scored], len(scored))
        else:
            if order is None:
                order = [move for _, move in scored]
            self.searched = []
            top = self.exact_top
            best_exact: list[int] = []  # a min-heap of the best ``top`` exact scores so far
            for move in order:
                child = trace.child(move, depth - 1)
                game.push(move)
                self.nodes += 1
                if top is None or len(best_exact) < top:
                    value = -self.negamax(depth - 1, -INFINITY, INFINITY, child)
                    exact = True
                else:  # a null window first: does it reach the ``top``-th best score?
                    floor = best_exact[0]
                    value = -self.negamax(depth - 1, -floor, -floor + 1, child)
                    exact = value >= floor
                    if exact:
                        child.reset()
                        value = -self.negamax(depth - 1, -INFINITY, -floor + 1, child)
                game.pop()
                if exact and top is not None:
                    if len(best_exact) < top:
                        heapq.heappush(best_exact, value)
                    else:
                        heapq.heappushpop(best_exact, value)
                self.searched.append((move, value, exact))
            ranked = [(move, value) for move, value, _ in self.searched]
            ranked.sort(key=itemgetter(1), reverse=True)
        trace.rank(ranked, self.nodes - start_nodes)
        if self.table is not None:
            self.table.entries[position_key(game)] = (
                depth,
                to_table(ranked[0][1], game.ply),
                EXACT,
                ranked[0][0],
            )
        return ranked

    def holding_replies(self, move: Move, score: int, depth: int) -> int:
        """How many of the opponent's replies to ``move`` keep its score ``score`` (searched to
        ``depth - 2`` plies after the reply; statically at depth 1)."""
        game = self.game
        game.push(move)
        count = 0
        if game.state is _IN_PROGRESS:
            target = -score  # the opponent's value of the position after ``move``
            for reply in game.legal_moves():
                game.push(reply)
                self.nodes += 1
                value = -self.negamax(max(depth - 2, 0), -target, -target + 1, UNTRACED)
                game.pop()
                if value >= target:
                    count += 1
        game.pop()
        return count

    def aggressive(
        self, ranked: list[tuple[Move, int]], depth: int
    ) -> tuple[list[tuple[Move, int]], dict[Move, int]]:
        """Among moves tied with the best score, the ones leaving the opponent the fewest
        replies that hold their score come first."""
        if len(ranked) < 2 or ranked[1][1] != ranked[0][1]:
            return ranked, {}
        top = ranked[0][1]
        tied = [(move, value) for move, value in ranked if value == top]
        replies = {move: self.holding_replies(move, top, depth) for move, _ in tied}
        tied.sort(key=lambda pair: replies[pair[0]])
        return tied + ranked[len(tied) :], replies


def _to_front(moves: list[Move], move: Move) -> None:
    """Move ``move`` to the front of ``moves`` if it is there (the rest keep their order).

    Moves are compared field by field: ``in`` and ``remove`` compare them as Python tuples,
    several times slower in the compiled build."""
    piece, source, destination = move
    for i, other in enumerate(moves):
        if other.destination == destination and other.piece == piece and other.source == source:
            if i:
                moves.insert(0, moves.pop(i))
            return


def _exact_count(ranked: list[tuple[Move, int]], top: int | None, depth: int) -> int:
    """How many moves at the head of ``ranked`` have exact scores: all at depth 1 or without a
    ``top``, else every move scoring at least the ``top``-th best (the others failed low
    against a window below it)."""
    if top is None or depth <= 1 or len(ranked) <= top:
        return len(ranked)
    floor = ranked[top - 1][1]
    return sum(1 for _, value in ranked if value >= floor)


def search(
    game: Game,
    *,
    depth: int,
    branching: int | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
    table: TranspositionTable | None = None,
    aggressive: bool = False,
    trace: TraceRecorder | None = None,
    exact_top: int | None = None,
    weights: Weights = HAND_SET,
    threats: bool = False,
    null_move: bool = False,
) -> SearchResult:
    """Search ``game`` to ``depth`` plies and score the root moves.

    The game is searched in place with push/pop and left as it was. This is the fixed-depth
    case of ``iterative_search``: depth 1, then ``depth`` at once.

    Args:
        game: The position; not modified.
        depth: Plies to search (at least 1).
        branching: K, how many pre-scored children of a node below the root are searched
            (None: all).
        deadline: A ``clock()`` reading after which the search stops; it then returns the
            1-ply ranking with ``completed=False``.
        clock: The time source (e.g. ``time.monotonic``); required with a deadline.
        table: A transposition table to read and fill (kept between searches by the caller).
        aggressive: Break ties among the best moves by the opponent's holding replies.
        trace: A recorder to fill with the searched tree.
        exact_top: How many of the best root moves get exact scores, and every move that ties
            with them (None: every move; 1: only the best, for randomness off). The others get
            upper bounds from null windows, which is much faster from 3 plies on.
        weights: The static evaluation's weights (``ai.evaluation``).
        threats: Score a leaf whose side to move can surround the enemy Queen at once as
            that win (a ply's quiescence for the one threat that ends the game; looked for
            only when that Queen has a single empty neighbour).
        null_move: Cut an interior node of ``NULL_FROM`` plies or more when passing the turn
            still holds beta (``_Searcher._null_cutoff``); never at the root.

    Returns:
        The ranking of every root move; empty when the game is over.
    """
    if depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth!r}")
    searcher = _Searcher(
        game,
        branching=branching,
        deadline=deadline,
        clock=clock,
        table=table,
        trace=trace,
        exact_top=exact_top,
        weights=weights,
        threats=threats,
        null_move=null_move,
    )
    return _deepening(searcher, [depth] if depth > 1 else [], aggressive=aggressive)


def iterative_search(
    game: Game,
    *,
    max_depth: int | None = None,
    min_depth: int = 1,
    branching: int | None = None,
    deadline: float,
    clock: Callable[[], float],
    table: TranspositionTable | None = None,
    aggressive: bool = False,
    trace: TraceRecorder | None = None,
    exact_top: int | None = None,
    weights: Weights = HAND_SET,
    threats: bool = False,
    null_move: bool = False,
) -> SearchResult:
    """Search 1, 2, 3... plies until ``max_depth`` or the deadline; the last completed depth.

    Depth 1 always completes. A depth is not started when the previous one's time, times
    ``GROWTH``, would overrun the deadline (it would likely not finish, wasting the time), nor
    once the best move wins or every move loses by force.
    Each depth searches the root moves in the previous depth's order, and the table carries
    best moves from one depth to the next.

    Depths up to ``min_depth`` are always started, whatever the last one's time predicts (a
    level does not give up its usual depth on a guess), but the deadline ends every depth
    past the first: a budget is a wall-clock promise, kept on a slow or busy machine too,
    where the move then comes from the last depth completed, unless the depth cut short had
    already proved another move better than that depth's best (``SearchResult.deeper``).

    Args: as ``search``, with ``max_depth`` (None: no limit but time) instead of ``depth``,
    and ``min_depth``, the floor.
    """
    searcher = _Searcher(
        game,
        branching=branching,
        deadline=deadline,
        clock=clock,
        table=table,
        trace=trace,
        exact_top=exact_top,
        weights=weights,
        threats=threats,
        null_move=null_move,
    )
    depths = count(2) if max_depth is None else range(2, max_depth + 1)
    return _deepening(searcher, depths, aggressive=aggressive, pace=_Pace(deadline, min_depth))


class _Pace(NamedTuple):
    """How an iterative search spends its time."""

    deadline: float
    min_depth: int


def _deepening(
    searcher: _Searcher,
    depths: Iterable[int],
    *,
    aggressive: bool,
    pace: _Pace | None = None,
) -> SearchResult:
    """Both searches: depth 1, then each of ``depths`` in turn, searching the root moves in the
    last ranking's order, until the deadline interrupts one (the last complete ranking stands,
    for an iterative search led by a move the interrupted depth proved better than its best:
    ``_led_by_deeper_best``); then the aggressive tie-break (not after such a lead).

    With a ``pace`` (``iterative_search``), a depth is not started once the ranking is proved,
    nor after ``min_depth`` when the last depth's time says it would not finish; the deadline
    ends any depth but the first, and the tie-break; a search cut short still breaks ties
    (within the deadline). Without one
    (``search``), each of ``depths`` is searched under the deadline, and a search cut short
    keeps its 1-ply ranking as it is.
    """
    started = searcher.now()
    ranked = _deepen(searcher, None, 1)
    assert ranked is not None  # depth 1 always completes
    depth, completed, partial = 1, True, False
    last_time = searcher.now() - started if pace is not None else 0.0
    for next_depth in depths:
        if pace is not None:
            if not ranked or abs(ranked[0][1]) >= MATE_BOUND:  # no move, or proved
                break
            begun = searcher.now()
            if depth >= pace.min_depth and begun + last_time * GROWTH > pace.deadline:
                break
        deeper = _deepen(searcher, ranked, next_depth)
        if deeper is None:
            completed = False
            if pace is not None:
                led = _led_by_deeper_best(ranked, searcher.searched, searcher.exact_top)
                if led is not None:
                    ranked, partial = led, True
            break
        if pace is not None:
            last_time = searcher.now() - begun
        ranked, depth = deeper, next_depth
    replies: dict[Move, int] = {}
    if aggressive and (completed or pace is not None) and not partial:
        try:
            ranked, replies = searcher.aggressive(ranked, depth)
        except _Timeout:
            searcher.restore()
    result = SearchResult(
        ranked=ranked,
        depth=depth,
        nodes=searcher.nodes,
        seconds=searcher.now() - started,
        completed=completed,
        prunes=searcher.prunes,
        cut=searcher.cut,
        table_hits=searcher.hits,
        branching=searcher.branching,
        replies=replies,
        exact=1 if partial else _exact_count(ranked, searcher.exact_top, depth),
        deeper=partial,
        nulls=searcher.nulls,
    )
    searcher.tracer.note(
        nodes=result.nodes,
        depth=result.depth,
        branching=result.branching,
        seconds=round(result.seconds, 6),
        completed=result.completed,
        deeper=result.deeper,
        prunes=result.prunes,
        cut=result.cut,
        table_hits=result.table_hits,
    )
    return result


def _led_by_deeper_best(
    ranked: list[tuple[Move, int]], searched: list[tuple[Move, int, bool]], exact_top: int | None
) -> list[tuple[Move, int]] | None:
    """The last complete ``ranked``, led by the best move of the depth the deadline cut short
    when that depth proved it better than the move it searched first (``ranked``'s best,
    searched with a full window), with its score there; None when none was.

    Only when the search wants the best move alone (``exact_top`` 1 or None): a move found
    better is then a better choice, whatever the moves not yet searched at that depth hold,
    while a level that may pick the second or third best needs a ranking of one depth.
    """
    if exact_top not in (None, 1) or len(searched) < 2 or not searched[0][2]:
        return None
    first = searched[0][1]
    best: tuple[Move, int] | None = None
    for move, value, exact in searched[1:]:
        if exact and value > first and (best is None or value > best[1]):
            best = (move, value)
    if best is None:
        return None
    return [best, *(pair for pair in ranked if pair[0] != best[0])]


def _deepen(
    searcher: _Searcher, previous: list[tuple[Move, int]] | None, depth: int
) -> list[tuple[Move, int]] | None:
    """The root ranking at ``depth``, searching the moves in ``previous``'s order; None when the
    deadline passed (the game restored, the half-built trace dropped; the last complete tree
    stands in)."""
    try:
        ranked = searcher.root(depth, None if previous is None else [m for m, _ in previous])
    except _Timeout:
        searcher.restore()
        searcher.tracer.abandon()
        return None
    searcher.tracer.complete()
    return ranked


__all__ = [
    "INFINITY",
    "SearchResult",
    "TranspositionTable",
    "iterative_search",
    "search",
]
