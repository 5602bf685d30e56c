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

Against rating farming (two accounts trading results): a game chosen rated counts only when
it was fought, each side having made ``MIN_MOVES`` moves (lichess's rule: a resignation or a
draw before that is no game); only so many rated games of one pair of accounts count in 24
hours (``Settings.rated_pair_games``); and a leaderboard lists a player only once they have
rated games of its speed against ``LEADERBOARD_OPPONENTS`` distinct opponents (``opponents``
of the ``ratings`` row). Such a game stays archived, as casual; ``why_unrated`` says why, and
its players are told (the game's ``unrated`` event).
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from glicko2.math.algorithm import update_rating
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi
from sqlalchemy import and_, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from protocol import Color, RatingChange, Result, Speed, TimeControl
from server.archive.db import tables

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
DAY_MS: Final = 24 * 3600 * 1000
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


def _pair(players: tuple[str, str]) -> Any:
    """The condition on ``games`` of the games between ``players``, either one White."""
    games = tables.games
    a, b = players
    return or_(
        and_(games.c.white == a, games.c.black == b),
        and_(games.c.white == b, games.c.black == a),
    )


async def rated_together(
    connection: AsyncConnection, players: tuple[str, str], game_id: str, ended: int
) -> int:
    """How many rated games of ``players`` (other than ``game_id``) ended in the 24 hours up
    to ``ended`` (through the index games(white, black, ended))."""
    games = tables.games
    found = await connection.execute(
        select(func.count())
        .select_from(games)
        .where(
            _pair(players),
            games.c.rated,
            games.c.ended > ended - DAY_MS,
            games.c.ended <= ended,
            games.c.id != game_id,
        )
    )
    return int(found.scalar() or 0)


async def _met_before(
    connection: AsyncConnection, players: tuple[str, str], pool: Speed, game_id: str
) -> bool:
    """Whether ``players`` had a rated game of ``pool`` before ``game_id``."""
    games = tables.games
    found = await connection.execute(
        select(games.c.id)
        .where(_pair(players), games.c.rated, games.c.speed == pool, games.c.id != game_id)
        .limit(1)
    )
    return found.first() is not None


async def _have_accounts(connection: AsyncConnection, players: tuple[str, str]) -> bool:
    """Whether both ``players`` have an account in the database."""
    accounts = tables.accounts
    found = await connection.execute(
        select(func.count()).select_from(accounts).where(accounts.c.player.in_(players))
    )
    return found.scalar() == len(set(players))


async def why_unrated(
    connection: AsyncConnection,
    *,
    game_id: str,
    players: tuple[str, str],
    plies: int,
    ended: int,
    pair_games: int,
) -> str | None:
    """Why the game ``game_id`` between the accounts ``players``, chosen rated, with a
    result, of ``plies`` moves, changes no rating (None: it does): it was not fought (each
    side's ``MIN_MOVES``), or the pair has had ``pair_games`` rated games in the 24 hours
    up to its end already, or a player has no account in the database (a bot account made
    before the database kept them). Asked again of an archived game, it says the same
    (its own row is not counted)."""
    if not fought(plies):
        return f"each side must make {MIN_MOVES} moves for a rated game to count"
    if not await _have_accounts(connection, players):
        return "a player has no account here"
    if await rated_together(connection, players, game_id, ended) >= pair_games:
        return (
            f"these two players have had {pair_games} rated games in 24 hours, the most that count"
        )
    return None


async def rate(
    connection: AsyncConnection,
    insert: Any,
    *,
    game_id: str,
    players: tuple[str, str],
    pool: Speed,
    result: Result,
    ended: int,
    plies: int,
    pair_games: int,
) -> dict[str, float]:
    """Rate the archived game ``game_id`` between ``players`` (White, Black) in the
    transaction of its archive: their ``ratings`` rows (made at the start if new, then
    locked, in the order of their ids: two games of one player rated at once wait for each
    other, and two games of one pair count each other against ``pair_games``), a
    ``rating_history`` row each; the game's ``games`` row figures, returned (none: the game
    changes no rating, for the reason ``why_unrated`` gives). ``insert``:
    ``Database.insert``."""
    table = tables.ratings
    if not fought(plies) or not await _have_accounts(connection, players):
        return {}  # (before the rows are made: no rating row for a game that rates nothing)
    start = START._asdict()
    await connection.execute(
        insert(table).on_conflict_do_nothing(),
        [{"player": p, "speed": pool, "updated": ended, **start} for p in sorted(set(players))],
    )
    locked = await connection.execute(_LOCKED, {"pool": pool, "players": list(players)})
    held = {player: Rating(*figures) for player, *figures in locked.all()}
    why = await why_unrated(
        connection,
        game_id=game_id,
        players=players,
        plies=plies,
        ended=ended,
        pair_games=pair_games,
    )  # once the rows are locked: a game of the pair rated meanwhile is counted
    if why is not None:
        return {}
    new = 0 if await _met_before(connection, players, pool, game_id) else 1
    white, black = (held[player] for player in players)
    after = game(white, black, result)
    figures: dict[str, float] = {}
    updates, history = [], []
    for color, player, before, now in zip(
        ("white", "black"), players, (white, black), after, strict=True
    ):
        updates.append({"p": player, "pool": pool, "at": ended, "new": new, **now._asdict()})
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
        opponents=tables.ratings.c.opponents + bindparam("new"),
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
