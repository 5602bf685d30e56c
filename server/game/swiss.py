"""A Swiss tournament's rounds: who plays whom and with which colour, and the standings.

Pure: a tournament is its entrants and its rounds so far, and each function a value of them.

- **Points**: a win 1, a draw 0.5, a loss 0; a bye 1 (as lichess's Swiss). A player who joins
  late has 0 for the rounds before (no bye), and one who does not show loses the game (the
  server records it so after the first-move timeout, and pauses them: not paired again until
  they join again).
- **The bye**, when the players of a round are odd: of those with the fewest byes so far, the
  lowest ranked (fewest points, then lowest rating, then the name last in order), as FIDE's
  and lichess's: never a second bye to one player while another has had none.
- **Pairs**: every other player paired, the round's cost the least it can be
  (``server.game.pairing``), in this order: first no two players who met already (while it
  can be avoided), then colours (a player's whites less blacks kept within one while it can
  be), then the smallest differences of points (squared: two pairs one point apart rather
  than one two apart), then of rank within a score.
- **Colours**: white to the player with fewer whites than blacks so far; when even, to the one
  who had black last; then to the higher ranked.
- **Standings**: by points, then Buchholz (the sum of the points of the opponents met; a bye
  adds none), then Sonneborn-Berger (the points of each opponent times the score against
  them), then rating, then name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from server.game.pairing import Cost, colours, least_cost_pairs

BYE_POINTS = 1.0


@dataclass(frozen=True)
class Entrant:
    """A player of the tournament."""

    name: str
    rating: float


@dataclass(frozen=True)
class Pairing:
    """A game of a round: ``white`` against ``black``; ``score``, White's (1, 0.5, 0), once
    it has ended."""

    white: str
    black: str
    score: float | None = None


@dataclass(frozen=True)
class Round:
    """A round: its games, and the player with a bye (if any)."""

    games: tuple[Pairing, ...]
    bye: str | None = None

    def players(self) -> list[str]:
        return [n for g in self.games for n in (g.white, g.black)] + (
            [self.bye] if self.bye else []
        )


@dataclass
class Record:
    """What the rounds so far say of one player."""

    points: float = 0.0
    opponents: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    """The score against each of ``opponents`` (ended games only)."""
    colours: list[str] = field(default_factory=list)
    """``w`` or ``b`` for each game played."""
    byes: int = 0

    @property
    def balance(self) -> int:
        """Whites less blacks."""
        return self.colours.count("w") - self.colours.count("b")


def records(rounds: Iterable[Round]) -> dict[str, Record]:
    """Each player's record over ``rounds`` (only those who played or had a bye)."""
    found: dict[str, Record] = {}
    for round_ in rounds:
        if round_.bye is not None:
            bye = found.setdefault(round_.bye, Record())
            bye.byes += 1
            bye.points += BYE_POINTS
        for game in round_.games:
            white = found.setdefault(game.white, Record())
            black = found.setdefault(game.black, Record())
            white.opponents.append(game.black)
            black.opponents.append(game.white)
            white.colours.append("w")
            black.colours.append("b")
            if game.score is not None:
                white.points += game.score
                black.points += 1 - game.score
                white.scores.append(game.score)
                black.scores.append(1 - game.score)
    return found


def pair_round(entrants: Sequence[Entrant], rounds: Sequence[Round]) -> Round:
    """The next round for ``entrants`` (those playing it: late joiners in, those who left
    out), after ``rounds`` (every game of which has ended).

    Raises:
        ValueError: A game of ``rounds`` has not ended, or two entrants share a name.
    """
    if any(game.score is None for round_ in rounds for game in round_.games):
        raise ValueError("a round is paired once every game of the last one has ended")
    if len({e.name for e in entrants}) != len(entrants):
        raise ValueError("two entrants share a name")
    past = records(rounds)

    def record(name: str) -> Record:
        return past.get(name) or Record()

    ranked = sorted(entrants, key=lambda e: (-record(e.name).points, -e.rating, e.name))
    bye = None
    if len(ranked) % 2:
        fewest = min(record(e.name).byes for e in ranked)
        bye = [e.name for e in ranked if record(e.name).byes == fewest][-1]  # the lowest ranked
    playing = [e.name for e in ranked if e.name != bye]
    rank = {name: n for n, name in enumerate(playing)}

    def cost(a: str, b: str) -> Cost:
        ra, rb = record(a), record(b)
        white, black = colours(a, b, ra.colours, rb.colours)
        balances = (record(white).balance + 1, record(black).balance - 1)
        return (
            int(b in ra.opponents),
            sum(abs(balance) > 1 for balance in balances),
            int((2 * (ra.points - rb.points)) ** 2),
            abs(rank[a] - rank[b]),
        )

    games = []
    for a, b in least_cost_pairs(playing, cost):
        white, black = colours(a, b, record(a).colours, record(b).colours)
        games.append(Pairing(white, black))
    return Round(tuple(games), bye)


@dataclass(frozen=True)
class Standing:
    """A player's place: points and the tie-breaks that order equal points."""

    name: str
    points: float
    buchholz: float
    sonneborn_berger: float


def standings(entrants: Sequence[Entrant], rounds: Sequence[Round]) -> list[Standing]:
    """Every entrant's standing, best first (see the module's docstring for the order)."""
    past = records(rounds)
    points = {e.name: (past.get(e.name) or Record()).points for e in entrants}
    rating = {e.name: e.rating for e in entrants}
    rows = []
    for entrant in entrants:
        record = past.get(entrant.name) or Record()
        met = record.opponents[: len(record.scores)]  # ended games (all, once a round ends)
        rows.append(
            Standing(
                entrant.name,
                record.points,
                sum(points.get(o, 0.0) for o in met),
                sum(points.get(o, 0.0) * s for o, s in zip(met, record.scores, strict=True)),
            )
        )
    rows.sort(key=lambda s: (-s.points, -s.buchholz, -s.sonneborn_berger, -rating[s.name], s.name))
    return rows
