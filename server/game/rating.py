"""Ratings' maths: one Glicko-2 rating per account and speed, without any IO.

A game's speed comes from its time control as lichess and hivegame reckon it: the estimated
duration ``base + 40 x increment`` seconds; days per move make ``correspondence``; a game
without a clock has no speed and is never rated. A rating is provisional (shown with a "?")
while its deviation is above ``PROVISIONAL_RD``.

Glicko-2's update is ``glicko2-py``'s (``glicko2.math``: Glickman's paper step by step).
Each rated game is one rating period for both its players, as on lichess: the two are
rated on their ratings before the game, at once. A player's first rating in a speed starts
at Glickman's values for an unrated player: 1500, deviation 350, volatility 0.06. (The
anchors' RD 500 is not used: 350 already spans what a newcomer may be, 1500 +- 700 at 95%,
and with 500 a newcomer's first games would swing their rating by several hundred points.)
There is no decay of the deviation between games.

Against rating farming (two accounts trading results): a game chosen rated counts only when
it was fought, each side having made ``MIN_MOVES`` moves (lichess's rule: a resignation or a
draw before that is no game), and a leaderboard lists a player only once they have rated
games of its speed against ``LEADERBOARD_OPPONENTS`` distinct opponents. The rest, and what
lasts, is in the database: ``server.archive.ratings``.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from glicko2.math.algorithm import update_rating
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi

from protocol import Result, Speed, TimeControl

SPEEDS: Final[tuple[Speed, ...]] = ("bullet", "blitz", "rapid", "classical", "correspondence")
"""Every speed, fastest first."""
START_RATING: Final = 1500.0
START_RD: Final = 350.0
START_VOLATILITY: Final = 0.06
PROVISIONAL_RD: Final = 110.0
"""A rating with a deviation above this is provisional (lichess's threshold)."""
LEADERBOARD_WEEKS: Final = 4
"""A leaderboard lists players who played a rated game of its speed in this many weeks."""
LEADERBOARD_OPPONENTS: Final = 5
"""A leaderboard lists players with rated games of its speed against this many distinct
opponents (two accounts that only play each other are never listed)."""
MIN_MOVES: Final = 2
"""Moves each side must have made for a game chosen rated to change ratings (lichess's)."""
TAU: Final = 0.5
"""Glicko-2's system constant (how much volatility may change): Glickman's example's."""

_LIMITS: Final[tuple[tuple[int, Speed], ...]] = ((180, "bullet"), (480, "blitz"), (1500, "rapid"))
"""Estimated durations (seconds) below which a clock game is of each speed."""

_SCORES: Final[dict[Result, float]] = {"WhiteWins": 1.0, "Draw": 0.5, "BlackWins": 0.0}
"""White's score for each result."""


def speed(time: TimeControl) -> Speed | None:
    """The speed of a game with ``time``: None for a game without a clock."""
    if time.kind == "days":
        return "correspondence"
    if time.kind == "none":
        return None
    duration = time.base + 40 * time.increment
    return next((name for limit, name in _LIMITS if duration < limit), "classical")


class Rating(NamedTuple):
    """A rating on Glicko's scale, its deviation and volatility, and the rated games that
    made it."""

    rating: float = START_RATING
    rd: float = START_RD
    volatility: float = START_VOLATILITY
    games: int = 0

    @property
    def shown(self) -> int:
        """The rating as players see it (rounded)."""
        return round(self.rating)

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


START: Final = Rating()
"""Everyone's rating in a speed before their first rated game of it."""


def rated(player: Rating, results: list[tuple[Rating, float]]) -> Rating:
    """``player``'s rating after one rating period of ``results``: each an opponent's
    rating and ``player``'s score against it (1 a win, 0.5 a draw, 0 a loss)."""
    opponents = [(rating_to_mu(o.rating), rd_to_phi(o.rd), score) for o, score in results]
    after = update_rating(
        rating_to_mu(player.rating), rd_to_phi(player.rd), player.volatility, opponents, TAU
    )
    return Rating(
        mu_to_rating(after.mu), phi_to_rd(after.phi), after.sigma, player.games + len(results)
    )


def fought(plies: int) -> bool:
    """Whether a game of ``plies`` moves (both sides') was fought: each side made
    ``MIN_MOVES``."""
    return plies >= 2 * MIN_MOVES


def game(white: Rating, black: Rating, result: Result) -> tuple[Rating, Rating]:
    """White's and Black's ratings after a game of theirs (one rating period for each)."""
    score = _SCORES[result]
    return rated(white, [(black, score)]), rated(black, [(white, 1.0 - score)])
