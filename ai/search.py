"""Alpha-beta search (negamax) with a branching limit, iterative deepening and a table.

Below the root, a node's children are pre-scored with the static evaluation (push, evaluate,
pop), sorted best first, and only the best ``branching`` (K) of them are searched; the rest are
*cut*. Children are searched with principal-variation windows and fail-soft alpha-beta. At a
frontier node (one ply left) every child is a leaf whose score is its pre-score, so all are
scored (until a cutoff) and the limit does not apply.

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
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Final

from ai.evaluation import MATE_BOUND, WIN, Shapes, evaluate, terminal_score, terms
from ai.trace import Node, TraceRecorder, group_node, move_node
from hive import Game, GameState, Move
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.pieces import FIRST_OF, Bug

INFINITY: Final = WIN + 1
EXACT, LOWER, UPPER = 0, 1, 2
_BOUND_NAMES: Final = ("exact", "lower", "upper")
_FLIP: Final = (0, 2, 1)  # a bound seen from the other side
_CHECK_EVERY: Final = 1024  # nodes between two looks at the clock
GROWTH: Final = 4.0
"""An iterative search starts a depth only if the last one's time, times this, still fits."""
_IN_PROGRESS: Final = GameState.IN_PROGRESS
_QUEENS: Final = (FIRST_OF[0][Bug.QUEEN], FIRST_OF[1][Bug.QUEEN])


def _mix(n: int) -> int:
    z = (n + 0x5EED) * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF
    z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
    return z ^ z >> 31


# The piece moved last is stunned (a Pillbug may not throw it, it may not move): with Pillbugs
# in play it is part of the position, so table keys mix it in. Index -1 (no piece) is the last.
_STUN_KEYS: Final = tuple(_mix(i) for i in range(29))


class TranspositionTable:
    """Search results by position: ``key -> (depth, value, bound, best move)``.

    Keys are ``game.hash`` (mixed with the stunned piece when Pillbugs are in play). Mate scores
    are stored relative to the position, so they stay right wherever it recurs. A table serves
    searches of one branching limit: a search with another limit clears it first. It also
    caches static evaluations. When full it is cleared (cheap, and good enough between moves).

    Args:
        capacity: Most entries kept in the table and in the evaluation cache (a few hundred
            bytes each); the articulation-point cache keeps a quarter as many.
    """

    def __init__(self, capacity: int = 1 << 18) -> None:
        self.capacity = capacity
        self.entries: dict[int, tuple[int, int, int, Move | None]] = {}
        self.evals: dict[int, int] = {}
        self.shapes: Shapes = {}
        self.branching: int | None = None

    def __len__(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        """Forget everything."""
        self.entries.clear()
        self.evals.clear()
        self.shapes.clear()

    def prepare(self, branching: int | None) -> None:
        """Get ready for a search with branching limit ``branching`` (clears on a change)."""
        if branching != self.branching:
            self.clear()
            self.branching = branching
        if len(self.entries) > self.capacity:
            self.entries.clear()
        if len(self.evals) > self.capacity:
            self.evals.clear()
        if len(self.shapes) > self.capacity // 4:
            self.shapes.clear()


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
        self.deadline = deadline
        self.clock = clock
        self.table = table
        if table is not None:
            table.prepare(branching)
        self.evals: dict[int, int] = table.evals if table is not None else {}
        self.shapes: Shapes = table.shapes if table is not None else {}
        self.stun = game.game_type.pillbug
        self.trace = trace
        self.cap = trace.max_depth if trace is not None else -1
        self.root_color = game.ply & 1
        self.root_length = len(game.moves)
        self.nodes = 0
        self.prunes = 0
        self.cut = 0
        self.hits = 0
        self.next_check = _CHECK_EVERY
        self.timed_out = False

    # -- helpers -------------------------------------------------------------------------------

    def now(self) -> float:
        return self.clock() if self.clock is not None else 0.0

    def _check_time(self) -> None:
        self.next_check = self.nodes + _CHECK_EVERY
        if self.deadline is not None and self.clock is not None and self.clock() >= self.deadline:
            self.timed_out = True
            raise _Timeout

    def restore(self) -> None:
        """Take back the moves an interrupted search left on the game."""
        game = self.game
        while len(game.moves) > self.root_length:
            game.pop()

    def leaf(self) -> int:
        """The static score of the current position for its side to move (cached)."""
        game = self.game
        if game.state is not _IN_PROGRESS and game.state.is_over:  # not NOT_STARTED
            return terminal_score(game)
        key = game.hash
        evals = self.evals
        value = evals.get(key)
        if value is None:
            value = evals[key] = evaluate(game, shapes=self.shapes)
        return value

    def key(self) -> int:
        game = self.game
        return game.hash ^ _STUN_KEYS[game.last_moved] if self.stun else game.hash

    def prescore(self, moves: list[Move]) -> list[tuple[int, Move]]:
        """Each move with the static score after it (mover's view), best first (stable)."""
        game = self.game
        push, pop, leaf = game.push, game.pop, self.leaf
        scored = []
        for move in moves:
            push(move)
            scored.append((-leaf(), move))
            pop()
        self.nodes += len(moves)
        scored.sort(key=itemgetter(0), reverse=True)
        return scored

    # -- trace ---------------------------------------------------------------------------------

    def _trace_child(self, parent: Node, move: Move, depth: int) -> Node:
        """A trace node for ``move`` (not yet played) below ``parent``."""
        game = self.game
        text = game.move_string(move)
        player = str(game.turn)
        maximizing = (game.ply + 1) & 1 == self.root_color
        node = move_node(parent["ply"] + 1, text, player, maximizing, depth)
        parent["children"].append(node)
        return node

    def _trace_scores(self, node: Node, value: int, bound: int) -> None:
        """Fill ``node``'s score from ``value`` (its side to move's view)."""
        maximizing = node["maximizing"]
        node["score"] = value if maximizing else -value
        node["bound"] = _BOUND_NAMES[bound if maximizing else _FLIP[bound]]

    def _trace_prescore(self, node: Node) -> None:
        """Fill ``node``'s pre-score and its terms; the node's move is on the board."""
        game = self.game
        sign = 1 if node["maximizing"] else -1
        node["prescore"] = sign * self.leaf()
        node["terms"] = {name: sign * v for name, v in terms(game).items()}
        if game.state is not _IN_PROGRESS:
            node["terminal"] = str(game.state)

    def _one_gap(self) -> bool:
        """Whether the side to move's Queen has a single empty neighbour (its own move could
        then surround it)."""
        board = self.game.board
        queen = board.hex_of[_QUEENS[self.game.ply & 1]]
        if queen == HAND:
            return False
        top = board.top
        return sum(1 for n in NEIGHBORS[queen] if top[n] == EMPTY) == 1

    # -- alpha-beta ----------------------------------------------------------------------------

    def negamax(self, depth: int, alpha: int, beta: int, tnode: Node | None) -> int:
        """The position's value for its side to move, searched ``depth`` plies (fail-soft)."""
        if self.nodes >= self.next_check:
            self._check_time()
        game = self.game
        if game.state is not _IN_PROGRESS:
            value = terminal_score(game)
            if tnode is not None:
                self._trace_scores(tnode, value, EXACT)
            return value
        if depth <= 0:
            value = self.leaf()
            if tnode is not None:
                self._trace_scores(tnode, value, EXACT)
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
            if tnode is not None:
                self._trace_scores(tnode, alpha, LOWER if alpha == floor else UPPER)
            return alpha

        table = self.table
        best_known: Move | None = None
        key = 0
        if table is not None:
            key = self.key()
            entry = table.entries.get(key)
            if entry is not None:
                e_depth, e_value, e_bound, best_known = entry
                if e_depth >= depth:
                    value = _from_table(e_value, ply)
                    if (
                        e_bound == EXACT
                        or (e_bound == LOWER and value >= beta)
                        or (e_bound == UPPER and value <= alpha)
                    ):
                        self.hits += 1
                        if tnode is not None:
                            tnode["table"] = True
                            self._trace_scores(tnode, value, e_bound)
                        return value

        expand = tnode is not None and tnode["ply"] < self.cap
        start_nodes = self.nodes
        moves = game.legal_moves()
        alpha0 = alpha
        if depth == 1:
            moves = self._frontier_order(moves, best_known)
            best, best_move = self._frontier(moves, alpha, beta, tnode if expand else None)
        else:
            best, best_move = self._interior(
                moves, depth, alpha, beta, best_known, tnode if expand else None
            )
        # The value is exact inside the window, and also at a mate-distance bound.
        if best <= alpha0:
            bound = EXACT if best <= floor else UPPER
        elif best >= beta:
            bound = EXACT if best >= ceiling else LOWER
        else:
            bound = EXACT
        if table is not None:
            table.entries[key] = (depth, _to_table(best, ply), bound, best_move)
        if tnode is not None:
            self._trace_scores(tnode, best, bound)
            if not expand:
                tnode["hidden"] = self.nodes - start_nodes
        return best

    def _frontier_order(self, moves: list[Move], best_known: Move | None) -> list[Move]:
        """Likely refutations first: the table's move, then moves onto the enemy Queen's ring,
        then moves that free a hex around one's own Queen."""
        game = self.game
        hex_of = game.board.hex_of
        me = game.ply & 1
        theirs = hex_of[_QUEENS[1 - me]]
        mine = hex_of[_QUEENS[me]]
        attack = NEIGHBORS[theirs] if theirs != HAND else ()
        guard = NEIGHBORS[mine] if mine != HAND else ()
        first = []
        second = []
        rest = []
        for move in moves:
            if move.destination in attack:
                first.append(move)
            elif move.source in guard and move.destination not in guard:
                second.append(move)
            else:
                rest.append(move)
        moves = first + second + rest
        if best_known is not None and moves[0] != best_known and best_known in moves:
            moves.remove(best_known)
            moves.insert(0, best_known)
        return moves

    def _frontier(
        self, moves: list[Move], alpha: int, beta: int, tnode: Node | None
    ) -> tuple[int, Move]:
        """One ply left: every child is a leaf scored statically; stop at a cutoff."""
        game = self.game
        push, pop, leaf = game.push, game.pop, self.leaf
        best = -INFINITY
        best_move = moves[0]
        count = 0
        for move in moves:
            child = self._trace_child(tnode, move, 0) if tnode is not None else None
            push(move)
            count += 1
            value = -leaf()
            if child is not None:
                self._trace_prescore(child)
                child["score"] = child["prescore"]
            pop()
            if value > best:
                best = value
                best_move = move
                if value >= beta:
                    self.prunes += 1
                    if tnode is not None and count < len(moves):
                        tnode["children"].append(
                            group_node("pruned", tnode["ply"] + 1, len(moves) - count)
                        )
                    break
        self.nodes += count
        return best, best_move

    def _interior(
        self,
        moves: list[Move],
        depth: int,
        alpha: int,
        beta: int,
        best_known: Move | None,
        tnode: Node | None,
    ) -> tuple[int, Move]:
        """Two or more plies left: pre-score, sort, keep the best K, search them (PVS)."""
        game = self.game
        order = moves
        cut = 0
        if len(moves) > 1:
            order = [move for _, move in self.prescore(moves)]
            limit = self.branching
            if limit is not None and len(order) > limit:
                cut = len(order) - limit
                self.cut += cut
                order = order[:limit]
            # The table's best move first, if it is one of the K (a best move found at a
            # frontier node, where every child is scored, may lie beyond them).
            if best_known is not None and order[0] != best_known and best_known in order:
                order.remove(best_known)
                order.insert(0, best_known)
        best = -INFINITY
        best_move = order[0]
        searched = 0
        child: Node | None = None
        for move in order:
            if tnode is not None:
                child = self._trace_child(tnode, move, depth - 1)
            game.push(move)
            self.nodes += 1
            searched += 1
            if child is not None:
                self._trace_prescore(child)
            if searched == 1:
                value = -self.negamax(depth - 1, -beta, -alpha, child)
            else:
                value = -self.negamax(depth - 1, -alpha - 1, -alpha, child)
                if alpha < value < beta:
                    if child is not None:
                        child["children"].clear()
                        child.pop("table", None)
                        child.pop("hidden", None)
                    value = -self.negamax(depth - 1, -beta, -alpha, child)
            game.pop()
            if value > best:
                best = value
                best_move = move
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        self.prunes += 1
                        break
        if tnode is not None:
            ply = tnode["ply"] + 1
            if searched < len(order):
                tnode["children"].append(group_node("pruned", ply, len(order) - searched))
            if cut:
                tnode["children"].append(group_node("cut", ply, cut))
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
        trace = self.trace
        start_nodes = self.nodes
        tnode: Node | None = None
        if trace is not None:
            tnode = trace.begin(game.game_string(), str(game.turn), depth)
            tnode["prescore"] = self.leaf()
            tnode["terms"] = dict(terms(game))
        moves = game.legal_moves()
        if not moves:
            if tnode is not None:
                tnode["score"] = terminal_score(game)
                tnode["terminal"] = str(game.state)
            return []
        scored = self.prescore(moves)
        if depth <= 1:
            ranked = [(move, value) for value, move in scored]
            if tnode is not None and tnode["ply"] < self.cap:
                for move, value in ranked:
                    child = self._trace_child(tnode, move, 0)
                    game.push(move)
                    self._trace_prescore(child)
                    child["score"] = value
                    game.pop()
        else:
            if order is None:
                order = [move for _, move in scored]
            ranked = []
            top = self.exact_top
            best_exact: list[int] = []  # a min-heap of the best ``top`` exact scores so far
            for move in order:
                child = None
                if tnode is not None and tnode["ply"] < self.cap:
                    child = self._trace_child(tnode, move, depth - 1)
                game.push(move)
                self.nodes += 1
                if child is not None:
                    self._trace_prescore(child)
                if top is None or len(best_exact) < top:
                    value = -self.negamax(depth - 1, -INFINITY, INFINITY, child)
                    exact = True
                else:  # a null window first: does it reach the ``top``-th best score?
                    floor = best_exact[0]
                    value = -self.negamax(depth - 1, -floor, -floor + 1, child)
                    exact = value >= floor
                    if exact:
                        if child is not None:
                            child["children"].clear()
                            child.pop("table", None)
                            child.pop("hidden", None)
                        value = -self.negamax(depth - 1, -INFINITY, -floor + 1, child)
                game.pop()
                if exact and top is not None:
                    if len(best_exact) < top:
                        heapq.heappush(best_exact, value)
                    else:
                        heapq.heappushpop(best_exact, value)
                ranked.append((move, value))
            ranked.sort(key=itemgetter(1), reverse=True)
        if tnode is not None:
            tnode["score"] = ranked[0][1]
            if self.cap == 0:
                tnode["hidden"] = self.nodes - start_nodes
            if ranked and tnode["children"]:
                index = {child["move"]: child for child in tnode["children"]}
                names = [game.move_string(move) for move, _ in ranked]
                tnode["children"] = [index[name] for name in names if name in index]
        if self.table is not None and ranked:
            self.table.entries[self.key()] = (
                depth,
                _to_table(ranked[0][1], game.ply),
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
                value = -self.negamax(max(depth - 2, 0), -target, -target + 1, None)
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


def _to_table(value: int, ply: int) -> int:
    """A score as stored: wins and losses counted from the position, not the game's start."""
    if value >= MATE_BOUND:
        return value + ply
    if value <= -MATE_BOUND:
        return value - ply
    return value


def _from_table(value: int, ply: int) -> int:
    if value >= MATE_BOUND:
        return value - ply
    if value <= -MATE_BOUND:
        return value + ply
    return value


def _exact_count(ranked: list[tuple[Move, int]], top: int | None, depth: int) -> int:
    """How many moves at the head of ``ranked`` have exact scores: all at depth 1 or without a
    ``top``, else every move scoring at least the ``top``-th best (the others failed low
    against a window below it)."""
    if top is None or depth <= 1 or len(ranked) <= top:
        return len(ranked)
    floor = ranked[top - 1][1]
    return sum(1 for _, value in ranked if value >= floor)


def _finish(
    searcher: _Searcher,
    ranked: list[tuple[Move, int]],
    depth: int,
    started: float,
    completed: bool,
    replies: dict[Move, int] | None = None,
) -> SearchResult:
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
        replies=replies or {},
        exact=_exact_count(ranked, searcher.exact_top, depth),
    )
    if searcher.trace is not None:
        searcher.trace.note(
            nodes=result.nodes,
            depth=result.depth,
            branching=result.branching,
            seconds=round(result.seconds, 6),
            completed=result.completed,
            prunes=result.prunes,
            cut=result.cut,
            table_hits=result.table_hits,
        )
    return result


def _tie_break(
    searcher: _Searcher, ranked: list[tuple[Move, int]], depth: int
) -> tuple[list[tuple[Move, int]], dict[Move, int]]:
    """The aggressive reordering of ``ranked``, or ``ranked`` unchanged when time runs out."""
    try:
        return searcher.aggressive(ranked, depth)
    except _Timeout:
        searcher.restore()
        return ranked, {}


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
) -> SearchResult:
    """Search ``game`` to ``depth`` plies and score the root moves.

    The game is searched in place with push/pop and left as it was.

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
    )
    started = searcher.now()
    ranked = _deepen(searcher, None, 1)
    assert ranked is not None  # depth 1 always completes
    reached, completed = 1, True
    if depth > 1:
        deeper = _deepen(searcher, ranked, depth)
        if deeper is None:
            completed = False
        else:
            ranked, reached = deeper, depth
    replies: dict[Move, int] = {}
    if aggressive and completed:
        ranked, replies = _tie_break(searcher, ranked, reached)
    return _finish(searcher, ranked, reached, started, completed, replies)


def _deepen(
    searcher: _Searcher, previous: list[tuple[Move, int]] | None, depth: int
) -> list[tuple[Move, int]] | None:
    """The root ranking at ``depth``, searching the moves in ``previous``'s order; None when the
    deadline passed (the game restored, the half-built trace dropped; the last complete tree
    stands in)."""
    trace = searcher.trace
    try:
        ranked = searcher.root(depth, None if previous is None else [m for m, _ in previous])
    except _Timeout:
        searcher.restore()
        if trace is not None:
            trace.abandon()
        return None
    if trace is not None:
        trace.complete()
    return ranked


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
) -> SearchResult:
    """Search 1, 2, 3... plies until ``max_depth`` or the deadline; the last completed depth.

    Depth 1 always completes. A depth is not started when the previous one's time, times
    ``GROWTH``, would overrun the deadline (it would likely not finish, wasting the time), nor
    once the best move wins or every move loses by force.
    Each depth searches the root moves in the previous depth's order, and the table carries
    best moves from one depth to the next.

    Depths up to ``min_depth`` are always completed, whatever the clock says: a level that
    searches by time never plays shallower than its floor on a slow or busy machine.

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
    )
    started = searcher.now()
    ranked = _deepen(searcher, None, 1)
    assert ranked is not None  # depth 1 always completes
    depth = 1
    completed = True
    last_time = searcher.now() - started
    while ranked and (max_depth is None or depth < max_depth):
        if abs(ranked[0][1]) >= MATE_BOUND:  # forced: deeper finds no quicker win or escape
            break
        begun = searcher.now()
        floor = depth < min_depth
        if not floor and begun + last_time * GROWTH > deadline:
            break
        searcher.deadline = None if floor else deadline
        deeper = _deepen(searcher, ranked, depth + 1)
        if deeper is None:
            completed = False
            break
        last_time = searcher.now() - begun
        ranked = deeper
        depth += 1
    replies: dict[Move, int] = {}
    if aggressive and ranked:
        ranked, replies = _tie_break(searcher, ranked, depth)
    return _finish(searcher, ranked, depth, started, completed, replies)


__all__ = [
    "INFINITY",
    "SearchResult",
    "TranspositionTable",
    "iterative_search",
    "search",
]
