"""Pairings as a matching: every player of a round with one other, the whole round's cost the
least it can be, by Edmonds' blossom algorithm (``networkx.max_weight_matching``), as
tournament software does rather than pairing top-down and backtracking.

A pair's cost is a tuple compared in order (a repeated opponent first, then colours, then how
far apart the two stand), made one integer per pair whose sums keep that order: the matching
of least total cost then has the fewest repeats it can, then among those the fewest colour
faults, and so on. ``server.game.swiss`` and ``server.game.arena`` say what each place of the
tuple counts.

The blossom algorithm is cubic in the players, in pure Python: a Swiss round of 50 players
takes about 0.13 s here, of 200 about 2 s, and an arena's 200 players waiting at once 0.24 s.
The server pairs off its event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import TypeVar

P = TypeVar("P")

Cost = tuple[int, ...]
"""A pair's cost, compared place by place (each place a count, 0 or more)."""


def least_cost_pairs(players: Sequence[P], cost: Callable[[P, P], Cost]) -> list[tuple[P, P]]:
    """Every player of ``players`` (an even number, each distinct) in one pair, the total cost
    the least it can be, place by place: pairs in ``players``' order (each pair's first
    player the one listed first).

    Raises:
        ValueError: An odd number of players.
    """
    if len(players) % 2:
        raise ValueError(f"an odd number of players ({len(players)}) cannot all be paired")
    if not players:
        return []
    import networkx  # (imported when a tournament first pairs: the server starts without it)

    costs = {(a, b): cost(players[a], players[b]) for a, b in combinations(range(len(players)), 2)}
    weights = _weights(costs, len(players) // 2)
    top = max(weights.values()) + 1
    graph: networkx.Graph[int] = networkx.Graph()
    for (a, b), weight in weights.items():
        graph.add_edge(a, b, weight=top - weight)  # most weight: least cost
    matched = networkx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted(tuple(sorted(pair)) for pair in matched)
    assert len(pairs) == len(players) // 2
    return [(players[a], players[b]) for a, b in pairs]


def _weights(costs: dict[tuple[int, int], Cost], pairs: int) -> dict[tuple[int, int], int]:
    """Each pair's cost as one integer, with a base per place larger than the most any
    matching of ``pairs`` pairs can sum in the places after it."""
    places = max((len(c) for c in costs.values()), default=0)
    weights = dict.fromkeys(costs, 0)
    base = 1
    for place in reversed(range(places)):
        for key, cost in costs.items():
            weights[key] += cost[place] * base
        base = pairs * max(weights.values()) + 1  # more than the places so far can sum
    return weights


def colours(a: P, b: P, of_a: Sequence[str], of_b: Sequence[str]) -> tuple[P, P]:
    """White and Black of ``a`` (the higher ranked) and ``b``, given the colours each had so
    far (``w``, ``b``, in order): white to the one with fewer whites than blacks, then to the
    one who had black last, then to ``a``."""
    balance_a = of_a.count("w") - of_a.count("b")
    balance_b = of_b.count("w") - of_b.count("b")
    if balance_a != balance_b:
        return (a, b) if balance_a < balance_b else (b, a)
    last_a, last_b = list(of_a[-1:]), list(of_b[-1:])
    if last_a != last_b:
        return (a, b) if last_a == ["b"] or last_b == ["w"] else (b, a)
    return a, b
