"""Ratings: one Glicko-2 rating per account and speed.

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

What lasts is in the archive's database (``ratings``, ``rating_history``, the ``games``
row's figures): ``rate`` runs in the archive's write transaction, so a game is rated once.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from glicko2.math.algorithm import update_rating
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi
from sqlalchemy import bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from server.db import tables
from server.protocol import Color, RatingChange, Result, Speed, TimeControl

SPEEDS: Final[tuple[Speed, ...]] = ("bullet", "blitz", "rapid", "classical", "correspondence")
"""Every speed, fastest first."""
START_RATING: Final = 1500.0
START_RD: Final = 350.0
START_VOLATILITY: Final = 0.06
PROVISIONAL_RD: Final = 110.0
"""A rating with a deviation above this is provisional (lichess's threshold)."""
LEADERBOARD_WEEKS: Final = 4
"""A leaderboard lists players who played a rated game of its speed in this many weeks."""
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


def game(white: Rating, black: Rating, result: Result) -> tuple[Rating, Rating]:
    """White's and Black's ratings after a game of theirs (one rating period for each)."""
    score = _SCORES[result]
    return rated(white, [(black, score)]), rated(black, [(white, 1.0 - score)])


# -- in the database ---------------------------------------------------------------------------


async def of(connection: AsyncConnection, player: str, pool: Speed) -> Rating:
    """``player``'s rating in ``pool`` (``START`` before their first rated game of it)."""
    table = tables.ratings
    found = await connection.execute(
        select(table.c.rating, table.c.rd, table.c.volatility, table.c.games).where(
            table.c.player == player, table.c.speed == pool
        )
    )
    row = found.first()
    return START if row is None else Rating(*row)


async def rate(
    connection: AsyncConnection,
    insert: Any,
    *,
    game_id: str,
    players: tuple[str, str],
    pool: Speed,
    result: Result,
    ended: int,
) -> dict[str, float]:
    """Rate the archived game ``game_id`` between ``players`` (White, Black) in the
    transaction of its archive: their ``ratings`` rows (made at the start if new, then
    locked, in the order of their ids: two games of one player rated at once wait for each
    other), a ``rating_history`` row each; the game's ``games`` row figures, returned
    (none: a player has no account in the database, as a bot account made before the
    database kept them, and the game is not rated). ``insert``: ``Database.insert``."""
    table, accounts = tables.ratings, tables.accounts
    found = await connection.execute(
        select(func.count()).select_from(accounts).where(accounts.c.player.in_(players))
    )
    if found.scalar() != len(set(players)):
        return {}
    start = START._asdict()
    await connection.execute(
        insert(table).on_conflict_do_nothing(),
        [{"player": p, "speed": pool, "updated": ended, **start} for p in sorted(set(players))],
    )
    locked = await connection.execute(_LOCKED, {"pool": pool, "players": list(players)})
    held = {player: Rating(*figures) for player, *figures in locked.all()}
    white, black = (held[player] for player in players)
    after = game(white, black, result)
    figures: dict[str, float] = {}
    updates, history = [], []
    for color, player, before, now in zip(
        ("white", "black"), players, (white, black), after, strict=True
    ):
        updates.append({"p": player, "pool": pool, "at": ended, **now._asdict()})
        history.append(
            {"player": player, "game": game_id, "speed": pool, "at": ended}
            | {"rating": now.rating, "rd": now.rd}
        )
        figures |= {
            f"{color}_rating": before.rating,
            f"{color}_rd": before.rd,
            f"{color}_change": now.rating - before.rating,
        }
    await connection.execute(_UPDATE, updates)
    await connection.execute(tables.rating_history.insert(), history)
    await connection.execute(
        update(tables.games).where(tables.games.c.id == game_id).values(rated=True, **figures)
    )
    return figures


_LOCKED: Final = (
    select(
        tables.ratings.c.player,
        tables.ratings.c.rating,
        tables.ratings.c.rd,
        tables.ratings.c.volatility,
        tables.ratings.c.games,
    )
    .where(
        tables.ratings.c.speed == bindparam("pool"),
        tables.ratings.c.player.in_(bindparam("players", expanding=True)),
    )
    .order_by(tables.ratings.c.player)
    .with_for_update()
)
"""The ratings of a game's players in its speed, locked in the order of their ids (PostgreSQL
locks the rows as it returns them, sorted): two games of one player rated at once wait for
each other, and two games of the same two players cannot lock each other out."""

_UPDATE: Final = (
    update(tables.ratings)
    .where(
        tables.ratings.c.player == bindparam("p"),
        tables.ratings.c.speed == bindparam("pool"),
    )
    .values(
        rating=bindparam("rating"),
        rd=bindparam("rd"),
        volatility=bindparam("volatility"),
        games=bindparam("games"),
        updated=bindparam("at"),
    )
)
"""A rating after a game (executed for both players at once)."""


async def changes(connection: AsyncConnection, game_id: str) -> list[RatingChange]:
    """What the archived game ``game_id`` did to its players' ratings, from the figures
    stored (none: it was not rated)."""
    games, history = tables.games, tables.rating_history
    found = await connection.execute(select(games).where(games.c.id == game_id, games.c.rated))
    row = found.mappings().first()
    if row is None:
        return []
    after = await connection.execute(
        select(history.c.player, history.c.rd).where(history.c.game == game_id)
    )
    rd_after = {player: rd for player, rd in after.all()}
    made = []
    color: Color
    for color in ("white", "black"):
        before, change = row[f"{color}_rating"], row[f"{color}_change"]
        provisional = rd_after.get(row[color], START_RD) > PROVISIONAL_RD
        made.append(RatingChange(color, round(before), round(before + change), provisional))
    return made
