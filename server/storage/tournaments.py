"""Arena tournaments in Redis: their settings, players, games and who waits, changed by Lua
scripts so that every process sees one truth and a player is never paired twice.

A tournament ``ID``'s keys share the hash tag ``{ID}`` (``server.storage.keys``):
``hive:t:{ID}`` (``s`` its settings, msgpack; ``status``; ``winner``), ``:players`` (player
id -> name, account kind, rating at joining), ``:waiting`` (the players waiting for a game,
by when they began to wait), ``:paused`` (those who left while it runs), ``:in`` (player ->
the game they play now), ``:playing`` (game -> its two players and when they were paired),
``:ended`` (the games ended, in order: game, White, Black, White's score), ``:watchers``
(players who watch it, by when that lapses), a Swiss's ``:rounds`` (each round's games,
their scores as they end, and its bye) and ``:driving`` (the lease of the process that
drives it, ``server.storage.leases``). ``hive:tournaments`` lists those upcoming and running
by start time; ``hive:tournaments:over`` the ended ones by end time (kept ``KEPT_MS``).

``pair`` moves players from ``waiting`` into games only if every one of them still waits
(one script: all or nothing), and ``end_game`` takes a game out of ``playing`` once (the
first caller records its score and returns its players to ``waiting``, unless paused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import msgpack

from protocol import AccountKind, TimeControl, TournamentKind
from server.game.arena import Game
from server.storage.keys import (
    LIVE_KEY,
    TOURNAMENTS_KEY,
    TOURNAMENTS_OVER_KEY,
    tournament_key,
)

if TYPE_CHECKING:
    from server.storage.store import Store

KEPT_MS: Final = 24 * 3600 * 1000
"""How long an ended tournament's keys last."""
WATCH_MS: Final = 3600 * 1000
"""How long a ``tournament_watch`` lasts unless sent again."""

_JOIN: Final = """
if redis.call('HGET', KEYS[1], 'status') == 'over' then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('SREM', KEYS[4], ARGV[1])
  if redis.call('HEXISTS', KEYS[5], ARGV[1]) == 0 then
    redis.call('ZADD', KEYS[3], 'NX', ARGV[4], ARGV[1])
  end
  return 2
end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 1
"""
"""KEYS: tournament, players, waiting, paused, in. ARGV: player, packed player, cap, now.
Returns 1 joined, 2 back (or already in), 0 full, -1 over."""

_LEAVE: Final = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('HGET', KEYS[1], 'status') == 'upcoming' then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('SREM', KEYS[4], ARGV[1])
  return 2
end
redis.call('SADD', KEYS[4], ARGV[1])
return 1
"""
"""KEYS: tournament, players, waiting, paused. ARGV: player. Returns 0 not in it, 1 paused,
2 taken off the list (before the start)."""

_PAIR: Final = """
for i = 1, #ARGV, 4 do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) or not redis.call('ZSCORE', KEYS[1], ARGV[i + 1])
  then return 0 end
end
for i = 1, #ARGV, 4 do
  redis.call('ZREM', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2], ARGV[i + 1], ARGV[i + 2])
  redis.call('HSET', KEYS[3], ARGV[i + 2], ARGV[i + 3])
end
return 1
"""
"""KEYS: waiting, in, playing. ARGV: (white, black, game, packed pair) for each pair. All or
nothing: 0 when a player no longer waits."""

_END: Final = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[2] ~= '' then redis.call('RPUSH', KEYS[2], ARGV[2]) end
for i = 4, #ARGV do
  redis.call('HDEL', KEYS[3], ARGV[i])
  if redis.call('SISMEMBER', KEYS[5], ARGV[i]) == 0 then
    redis.call('ZADD', KEYS[4], ARGV[3], ARGV[i])
  end
end
return 1
"""
"""KEYS: playing, ended, in, waiting, paused. ARGV: game, packed ended game ('' for none),
now, then the players to free. Returns 1 for the one caller that ended it."""

_ADD_ROUND: Final = """
if redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
"""
"""KEYS: rounds, in. ARGV: the rounds there must be, the packed round, then (player, game)
pairs. Returns 1 for the one caller that added it."""


@dataclass(frozen=True)
class Arena:
    """An arena's settings, as stored."""

    id: str
    name: str
    creator: str
    creator_name: str
    game_type: str
    time: TimeControl
    rated: bool
    starts: int
    ends: int
    max_players: int
    rating_min: int | None = None
    rating_max: int | None = None
    kind: TournamentKind = "arena"
    rounds: int = 0
    """A Swiss's rounds."""


class Entrant(NamedTuple):
    """A player of a tournament: name, account kind and rating when they joined."""

    name: str
    account: AccountKind
    rating: int | None


class Pairing(NamedTuple):
    """A game in progress of a tournament."""

    game: str
    white: str
    black: str
    paired: int


class Roster(NamedTuple):
    """What the standings are made of, read at once."""

    status: str
    winner: str | None
    players: dict[str, Entrant]
    ended: list[Game]
    playing: dict[str, str]
    """Player -> the game they play now."""
    paused: set[str]


def _pack_arena(arena: Arena) -> bytes:
    time = arena.time
    fields = [getattr(arena, name) for name in Arena.__dataclass_fields__]
    fields[5] = [time.kind, time.base, time.increment, time.days]
    packed: bytes = msgpack.packb(fields)
    return packed


def _unpack_arena(data: bytes) -> Arena:
    fields = msgpack.unpackb(data)
    fields[5] = TimeControl(*fields[5])
    return Arena(*fields)


class SwissGame(NamedTuple):
    """A game of a Swiss round: White's score once it ended."""

    white: str
    black: str
    game: str
    score: float | None = None


class SwissRound(NamedTuple):
    games: list[SwissGame]
    bye: str | None = None


def _pack_round(round_: SwissRound) -> bytes:
    packed: bytes = msgpack.packb([round_.bye, [list(game) for game in round_.games]])
    return packed


def _unpack_round(data: bytes) -> SwissRound:
    bye, games = msgpack.unpackb(data)
    return SwissRound([SwissGame(*game) for game in games], bye)


class TournamentStore:
    """The tournaments in Redis (``store``'s connection)."""

    def __init__(self, store: Store) -> None:
        self.redis: Any = store.redis
        self.store = store
        self._join = self.redis.register_script(_JOIN)
        self._leave = self.redis.register_script(_LEAVE)
        self._pair = self.redis.register_script(_PAIR)
        self._end = self.redis.register_script(_END)
        self._add_round = self.redis.register_script(_ADD_ROUND)

    async def create(self, arena: Arena) -> None:
        key = tournament_key(arena.id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={"s": _pack_arena(arena), "status": "upcoming"})
            pipe.zadd(TOURNAMENTS_KEY, {arena.id: arena.starts})
            await pipe.execute()

    async def arena(self, tournament: str) -> tuple[Arena, str] | None:
        """The settings and status of ``tournament`` (None: no such tournament)."""
        if len(tournament) > 40:
            return None
        data, status = await self.redis.hmget(tournament_key(tournament), ["s", "status"])
        return None if data is None else (_unpack_arena(data), status.decode())

    async def listed(self, count: int) -> tuple[list[str], list[str]]:
        """The ids of at most ``count`` tournaments upcoming or running (soonest first), and of
        as many ended (newest first)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(TOURNAMENTS_KEY, 0, count - 1)
            pipe.zrevrange(TOURNAMENTS_OVER_KEY, 0, count - 1)
            current, over = await pipe.execute()
        return [t.decode() for t in current], [t.decode() for t in over]

    async def due(self, now: int) -> list[str]:
        """The tournaments upcoming or running whose start has come."""
        found = await self.redis.zrangebyscore(TOURNAMENTS_KEY, "-inf", now)
        return [t.decode() for t in found]

    async def count_players(self, tournaments: Sequence[str]) -> list[int]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for tournament in tournaments:
                pipe.hlen(tournament_key(tournament, "players"))
            return [int(n) for n in await pipe.execute()]

    async def join(self, arena: Arena, player: str, entrant: Entrant, now: int) -> int:
        """``player`` joins, or comes back: 1 joined, 2 back, 0 full, -1 over."""
        t = arena.id
        packed = msgpack.packb(list(entrant))
        keys = [tournament_key(t, part) for part in ("", "players", "waiting", "paused", "in")]
        return int(await self._join(keys=keys, args=[player, packed, arena.max_players, now]))

    async def leave(self, tournament: str, player: str) -> int:
        """``player`` leaves: 0 not in it, 1 paused, 2 off the list."""
        keys = [tournament_key(tournament, part) for part in ("", "players", "waiting", "paused")]
        return int(await self._leave(keys=keys, args=[player]))

    async def end_at(self, tournament: str, ends: int) -> None:
        """Move the end of ``tournament`` to ``ends`` (ms): an operator's tool, and the
        tests'."""
        found = await self.arena(tournament)
        if found is not None:
            arena = replace(found[0], ends=ends)
            await self.redis.hset(tournament_key(tournament), "s", _pack_arena(arena))

    async def start_at(self, tournament: str, starts: int) -> None:
        """Move the start of ``tournament`` to ``starts`` (ms), before it began: an
        operator's tool, and the tests'."""
        found = await self.arena(tournament)
        if found is not None and found[1] == "upcoming":
            arena = replace(found[0], starts=starts)
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hset(tournament_key(tournament), "s", _pack_arena(arena))
                pipe.zadd(TOURNAMENTS_KEY, {tournament: starts}, xx=True)
                await pipe.execute()

    async def start(self, tournament: str) -> None:
        await self.redis.hset(tournament_key(tournament), "status", "running")

    async def finish(self, tournament: str, winner: str | None, now: int) -> None:
        """Mark it over (``winner``: the first of its standings) and let its keys lapse."""
        t = tournament
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(tournament_key(t), mapping={"status": "over", "winner": winner or ""})
            pipe.zrem(TOURNAMENTS_KEY, t)
            pipe.zadd(TOURNAMENTS_OVER_KEY, {t: now})
            pipe.zremrangebyscore(TOURNAMENTS_OVER_KEY, "-inf", now - KEPT_MS)
            for part in (
                "",
                "players",
                "waiting",
                "paused",
                "in",
                "playing",
                "ended",
                "watchers",
                "rounds",
            ):
                pipe.pexpire(tournament_key(t, part), KEPT_MS)
            await pipe.execute()

    async def waiting(self, tournament: str) -> list[str]:
        """The players waiting, in the order they began to wait."""
        found = await self.redis.zrange(tournament_key(tournament, "waiting"), 0, -1)
        return [p.decode() for p in found]

    async def pair(self, tournament: str, pairs: Sequence[tuple[str, str, str]], now: int) -> bool:
        """Put each pair (White, Black, game) in its game, all or none: False when one of
        them no longer waits."""
        args: list[Any] = []
        for white, black, game in pairs:
            args += [white, black, game, msgpack.packb([white, black, now])]
        keys = [tournament_key(tournament, part) for part in ("waiting", "in", "playing")]
        return bool(await self._pair(keys=keys, args=args))

    async def pairings(self, tournament: str) -> list[Pairing]:
        """The games in progress of the tournament."""
        found = await self.redis.hgetall(tournament_key(tournament, "playing"))
        return [Pairing(g.decode(), *msgpack.unpackb(v)) for g, v in found.items()]

    async def unsettled(self, game_ids: Sequence[str]) -> list[str]:
        """Those of the games ``game_ids`` not in progress (not in ``hive:live``, which
        ``Store`` keeps): ended, not made yet, or made a moment ago and not yet indexed; those
        a director's step reads the records of (not the hundred games in progress of a
        200-player arena at every step)."""
        if not game_ids:
            return []
        scores = await self.redis.zmscore(LIVE_KEY, list(game_ids))
        return [game for game, score in zip(game_ids, scores, strict=True) if score is None]

    async def end_game(
        self, tournament: str, pairing: Pairing, score: float | None, now: int
    ) -> bool:
        """Record ``pairing``'s game as ended with White's ``score`` (None: it counts for
        nothing, as an aborted game) and let its players wait again (unless paused): True
        for the one caller that did."""
        keys = [
            tournament_key(tournament, part)
            for part in ("playing", "ended", "in", "waiting", "paused")
        ]
        entry = b"" if score is None else msgpack.packb([pairing.white, pairing.black, score])
        args = [pairing.game, entry, now, pairing.white, pairing.black]
        return bool(await self._end(keys=keys, args=args))

    async def pause(self, tournament: str, player: str) -> None:
        """Pause ``player`` (one who did not play their game)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.sadd(tournament_key(tournament, "paused"), player)
            pipe.zrem(tournament_key(tournament, "waiting"), player)
            await pipe.execute()

    async def roster(self, tournament: str) -> Roster:
        """Everything the standings are made of, read at once."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(tournament_key(tournament), ["status", "winner"])
            pipe.hgetall(tournament_key(tournament, "players"))
            pipe.lrange(tournament_key(tournament, "ended"), 0, -1)
            pipe.hgetall(tournament_key(tournament, "in"))
            pipe.smembers(tournament_key(tournament, "paused"))
            (status, winner), players, ended, playing, paused = await pipe.execute()
        return Roster(
            status=(status or b"upcoming").decode(),
            winner=winner.decode() or None if winner else None,
            players={p.decode(): Entrant(*msgpack.unpackb(v)) for p, v in players.items()},
            ended=[Game(*msgpack.unpackb(entry)) for entry in ended],
            playing={p.decode(): g.decode() for p, g in playing.items()},
            paused={p.decode() for p in paused},
        )

    async def rounds(self, tournament: str) -> list[SwissRound]:
        """A Swiss's rounds so far (its games' scores as far as they ended)."""
        found = await self.redis.lrange(tournament_key(tournament, "rounds"), 0, -1)
        return [_unpack_round(entry) for entry in found]

    async def add_round(self, tournament: str, number: int, round_: SwissRound) -> bool:
        """Add round ``number`` (from 1) unless it is there already: True for the one caller
        that added it (its players then in their games)."""
        keys = [tournament_key(tournament, part) for part in ("rounds", "in")]
        args: list[Any] = [number - 1, _pack_round(round_)]
        for game in round_.games:
            args += [game.white, game.game, game.black, game.game]
        return bool(await self._add_round(keys=keys, args=args))

    async def score_round(self, tournament: str, number: int, round_: SwissRound) -> None:
        """Store round ``number``'s scores so far (``round_``, its games scored as they
        ended: the same whoever writes it), its players who finished out of their games."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.lset(tournament_key(tournament, "rounds"), number - 1, _pack_round(round_))
            done = [p for g in round_.games if g.score is not None for p in (g.white, g.black)]
            if done:
                pipe.hdel(tournament_key(tournament, "in"), *done)
            await pipe.execute()

    async def watch(self, tournament: str, player: str, now: int, subscribe: bool) -> None:
        key = tournament_key(tournament, "watchers")
        if subscribe:
            await self.redis.zadd(key, {player: now + WATCH_MS})
        else:
            await self.redis.zrem(key, player)

    async def watchers(self, tournament: str, now: int) -> list[str]:
        key = tournament_key(tournament, "watchers")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zrange(key, 0, -1)
            _, found = await pipe.execute()
        return [p.decode() for p in found]
