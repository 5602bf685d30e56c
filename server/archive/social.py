"""Follows, blocks and whose challenges an account takes, in the database (tables ``follows``,
``blocks``, ``social_settings``), between accounts only; and the accounts among the players
online, with the rating each is best known by. ``server.requests.friends`` and
``server.requests.challenges`` ask these; each is one or two indexed queries."""

from __future__ import annotations

from collections.abc import Collection
from typing import Final, NamedTuple

from sqlalchemy import Table, and_, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from protocol import MAX_FOLLOWS, ChallengeAllow, Speed
from server.archive.db import tables
from server.game.rating import SPEEDS

ALLOWS: Final[tuple[ChallengeAllow, ...]] = ("everyone", "followed", "nobody")


class Lists(NamedTuple):
    """An account's own: the names it follows and blocked (by name), whose challenges it
    takes."""

    following: list[str]
    blocked: list[str]
    allow: ChallengeAllow


class Known(NamedTuple):
    """An account online, with its rating in the speed it played most rated games in."""

    player: str
    name: str
    rating: int | None
    speed: Speed | None


def _table(kind: str) -> tuple[Table, str, str]:
    """The table of ``follow`` or ``block``, its owner's column and its target's."""
    if kind == "follow":
        return tables.follows, "follower", "followed"
    return tables.blocks, "blocker", "blocked"


async def count(connection: AsyncConnection, kind: str, player: str) -> int:
    """How many players ``player`` follows (``kind`` ``follow``) or blocked (``block``)."""
    table, owner, _ = _table(kind)
    found = await connection.execute(
        select(func.count()).select_from(table).where(table.c[owner] == player)
    )
    return int(found.scalar_one())


async def holds(connection: AsyncConnection, kind: str, player: str, target: str) -> bool:
    """Whether ``player`` follows (``block``: blocked) ``target``."""
    table, owner, other = _table(kind)
    found = await connection.execute(
        select(table.c[owner]).where(table.c[owner] == player, table.c[other] == target)
    )
    return found.first() is not None


async def put(
    connection: AsyncConnection, kind: str, player: str, target: str, on: bool, now: int
) -> None:
    """``player`` follows (``block``: blocks) ``target`` from now (``on``), or no longer."""
    table, owner, other = _table(kind)
    if not on:
        await connection.execute(
            delete(table).where(table.c[owner] == player, table.c[other] == target)
        )
    elif not await holds(connection, kind, player, target):
        await connection.execute(
            insert(table).values({owner: player, other: target, "created": now})
        )


async def lists(connection: AsyncConnection, player: str) -> Lists:
    """``player``'s follows, blocks (names, in alphabetical order) and whose challenges it
    takes."""
    accounts = tables.accounts
    found = []
    for kind in ("follow", "block"):
        table, owner, other = _table(kind)
        rows = await connection.execute(
            select(accounts.c.name)
            .join(table, table.c[other] == accounts.c.player)
            .where(table.c[owner] == player)
            .order_by(accounts.c.name_key)
        )
        found.append([row.name for row in rows])
    return Lists(found[0], found[1], await allowed(connection, player))


async def allowed(connection: AsyncConnection, player: str) -> ChallengeAllow:
    """Whose challenges ``player`` takes."""
    settings = tables.social_settings
    found = await connection.execute(
        select(settings.c.challenges).where(settings.c.player == player)
    )
    value = found.scalar_one_or_none()
    for allow in ALLOWS:
        if value == allow:
            return allow
    return "everyone"


async def allow(connection: AsyncConnection, player: str, challenges: ChallengeAllow) -> None:
    """``player`` takes the challenges of ``challenges`` from now."""
    settings = tables.social_settings
    changed = await connection.execute(
        update(settings).where(settings.c.player == player).values(challenges=challenges)
    )
    if not changed.rowcount:
        await connection.execute(insert(settings).values(player=player, challenges=challenges))


async def blocked_by_any(connection: AsyncConnection, player: str, others: Collection[str]) -> bool:
    """Whether one of ``others`` blocked ``player``."""
    if not others:
        return False
    blocks = tables.blocks
    found = await connection.execute(
        select(blocks.c.blocker).where(
            and_(blocks.c.blocked == player, blocks.c.blocker.in_(list(others)))
        )
    )
    return found.first() is not None


async def online(connection: AsyncConnection, players: list[str], limit: int) -> list[Known]:
    """The persons' accounts among ``players`` (at most ``limit``, by name), each with its
    rating in the speed it played most rated games in (None: none yet; a provisional one
    too)."""
    if not players:
        return []
    accounts, ratings = tables.accounts, tables.ratings
    rows = await connection.execute(
        select(accounts.c.player, accounts.c.name)
        .where(accounts.c.player.in_(players), accounts.c.bot.is_(False))
        .order_by(accounts.c.name_key)
        .limit(limit)
    )
    found = [(row.player, row.name) for row in rows]
    if not found:
        return []
    best: dict[str, tuple[int, float, str]] = {}
    rated = await connection.execute(
        select(ratings.c.player, ratings.c.speed, ratings.c.rating, ratings.c.games).where(
            ratings.c.player.in_([player for player, _ in found])
        )
    )
    for row in rated:
        kept = best.get(row.player)
        if kept is None or row.games > kept[0]:
            best[row.player] = (row.games, row.rating, row.speed)
    known = []
    for player, name in found:
        kept = best.get(player)
        if kept is None:
            known.append(Known(player, name, None, None))
        else:
            speed = kept[2] if kept[2] in SPEEDS else None
            known.append(Known(player, name, round(kept[1]), speed))
    return known


async def followed(connection: AsyncConnection, player: str) -> set[str]:
    """The ids of the players ``player`` follows."""
    follows = tables.follows
    rows = await connection.execute(
        select(follows.c.followed).where(follows.c.follower == player).limit(MAX_FOLLOWS)
    )
    return {row.followed for row in rows}
