"""An arena tournament (lichess's format): points for each game, and who plays whom next.

Pure: the functions take the games so far and the players waiting, and return values.

- **Points**: a win 2, a draw 1, a loss 0; double (4, 2) for a game played on a streak, that
  is when the player won the two games before it. A streak ends at a game not won.
- **Pairs**, made whenever players wait (a game just ended, a player joined): only players
  waiting (never one in a game, never a player with itself), in one matching of least cost
  (``server.game.pairing``), in this order: no one paired with the opponent of their last
  game while another is free; when the players waiting are odd, the one who began waiting
  last sits out; then the nearest in rank (points, then rating). Above ``GROUP`` players
  waiting, the one who began waiting last sits out (when they are odd) and the others are
  matched in groups of ``GROUP`` neighbours in rank, each group its own matching: the
  matching is cubic in the players (200 waiting at once took a quarter of a second of CPU
  a tick, and the pairing delay of a 200-player arena grew to seconds), the groups cost a
  few milliseconds.
- **Colours**: white to the player with fewer whites than blacks so far, then to the one who
  had black last, then to the higher ranked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from server.game.pairing import Cost, least_cost_pairs
from server.game.pairing import colours as white_first

WIN, DRAW = 2, 1
GROUP: Final = 24
"""The most players waiting matched at once (an even number); more are matched in groups of
this many neighbours in rank."""


@dataclass(frozen=True)
class Game:
    """An ended game of the arena: White's score (1, 0.5, 0)."""

    white: str
    black: str
    score: float


@dataclass(frozen=True)
class Waiting:
    """A player waiting for a game, in the order they began to wait."""

    name: str
    rating: float


def game_points(scores: Sequence[float]) -> list[int]:
    """The points of each of a player's games, in the order played (their scores: 1, 0.5,
    0)."""
    points = []
    for n, score in enumerate(scores):
        streak = n >= 2 and scores[n - 1] == 1 and scores[n - 2] == 1
        points.append(int({1.0: WIN, 0.5: DRAW}.get(score, 0) * (2 if streak else 1)))
    return points


def scores_of(games: Iterable[Game]) -> dict[str, list[float]]:
    """Each player's scores, in the order of ``games`` (the order they ended)."""
    found: dict[str, list[float]] = {}
    for game in games:
        found.setdefault(game.white, []).append(game.score)
        found.setdefault(game.black, []).append(1 - game.score)
    return found


def totals(games: Iterable[Game]) -> dict[str, int]:
    """Each player's points over ``games``."""
    return {name: sum(game_points(s)) for name, s in scores_of(games).items()}


def pair(waiting: Sequence[Waiting], games: Sequence[Game]) -> list[tuple[str, str]]:
    """Pairs (White, Black) of the players ``waiting`` (in the order they began to wait; none
    of them in a game), after the ended ``games``; when they are odd, one waits on.

    Raises:
        ValueError: A player listed twice.
    """
    names = [w.name for w in waiting]
    if len(set(names)) != len(names):
        raise ValueError("a player is waiting twice")
    points = totals(games)
    last: dict[str, str] = {}
    colours: dict[str, list[str]] = {}
    for game in games:
        last[game.white], last[game.black] = game.black, game.white
        colours.setdefault(game.white, []).append("w")
        colours.setdefault(game.black, []).append("b")
    order = {w.name: n for n, w in enumerate(waiting)}
    ranked = sorted(waiting, key=lambda w: (-points.get(w.name, 0), -w.rating, w.name))
    rank = {w.name: n for n, w in enumerate(ranked)}
    seats: list[str | None] = [w.name for w in ranked]
    if len(seats) % 2:
        seats.append(None)  # paired with it: sits out

    def cost(a: str | None, b: str | None) -> Cost:
        if a is None or b is None:
            sitting = b if a is None else a
            assert sitting is not None
            return (0, len(waiting) - 1 - order[sitting], 0)
        return (int(last.get(a) == b or last.get(b) == a), 0, abs(rank[a] - rank[b]))

    if len(waiting) > GROUP:
        out = waiting[-1].name if len(waiting) % 2 else None
        playing: list[str | None] = [w.name for w in ranked if w.name != out]
        groups = [playing[n : n + GROUP] for n in range(0, len(playing), GROUP)]
        if len(groups[-1]) < GROUP // 2:  # too few to avoid their last opponents: merged
            groups[-2:] = [groups[-2] + groups[-1]]
        matched = [pair for group in groups for pair in least_cost_pairs(group, cost)]
    else:
        matched = least_cost_pairs(seats, cost)
    pairs = []
    for a, b in matched:
        if a is None or b is None:
            continue
        pairs.append(white_first(a, b, colours.get(a, []), colours.get(b, [])))
    return pairs
