"""Ratings in the database: what lasts of them, and the rules against farming that read it.
The maths (speeds, Glicko-2's update, ``Rating``) is ``server.game.rating``.

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

from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import and_, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from protocol import Color, RatingChange, Result, Speed
from server.archive.db import tables
from server.game.rating import MIN_MOVES, PROVISIONAL_RD, START, START_RD, Rating, fought, game

DAY_MS: Final = 24 * 3600 * 1000


async def of(connection: AsyncConnection, player: str, pool: Speed) -> Rating:
    """``player``'s rating in ``pool`` (``START`` before their first rated game of it)."""
    return (await of_many(connection, [player], pool)).get(player, START)


async def of_many(
    connection: AsyncConnection, players: Sequence[str], pool: Speed
) -> dict[str, Rating]:
    """The ratings in ``pool`` of those of ``players`` who have one, in one query (a
    tournament's round: hundreds of players)."""
    table = tables.ratings
    found = await connection.execute(
        select(table.c.player, table.c.rating, table.c.rd, table.c.volatility, table.c.games).where(
            table.c.player.in_(set(players)), table.c.speed == pool
        )
    )
    return {player: Rating(*figures) for player, *figures in found}


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
