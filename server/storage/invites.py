"""Challenges by name, in Redis, and the notices that carry them to their players on every
process. ``Invites`` is a part of ``server.storage.store.Store``.

A challenge waits in ``hive:challenges`` (by when it lapses) and in its two players' sets
(``hive:p:{PID}:challenges-out`` and ``-in``, which bound how many wait at once); its body,
``hive:ch:ID``, lasts a little past it. Whoever takes it out of ``hive:challenges`` first (an
answer, or the sweep once it lapsed) ends it: a challenge ends once, whichever processes race.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

import msgpack

from protocol import ChallengeOffer, TimeControl
from server.storage.channels import pack_notice
from server.storage.liveness import ONLINE_KEY

CHALLENGES_KEY: Final = "hive:challenges"
KEPT_MS: Final = 60_000
"""How long a challenge's body outlasts it (an answer that crossed its end is told so)."""


def challenge_key(challenge: str) -> str:
    return f"hive:ch:{challenge}"


def waiting_key(player: str, side: str) -> str:
    """The challenges waiting that ``player`` made (``out``) or was sent (``in``)."""
    return f"hive:p:{{{player}}}:challenges-{side}"


class Waiting(NamedTuple):
    """How many challenges wait that a player made, and that another was sent."""

    made: int
    sent: int


def pack_offer(offer: ChallengeOffer, account: bool) -> bytes:
    """A challenge's body as stored: its fields, and whether the challenger is an account."""
    time = offer.time
    packed: bytes = msgpack.packb(
        [
            offer.id,
            offer.challenger,
            offer.challenger_player,
            offer.challenged,
            offer.challenged_player,
            offer.game_type,
            [time.kind, time.base, time.increment, time.days],
            offer.color,
            offer.rated,
            offer.expires,
            account,
        ]
    )
    return packed


def unpack_offer(data: bytes) -> tuple[ChallengeOffer, bool]:
    """A challenge's body (``pack_offer``): the offer, and whether its challenger is an
    account."""
    *fields, account = msgpack.unpackb(data)
    fields[6] = TimeControl(*fields[6])
    return ChallengeOffer(*fields), bool(account)


class Invites:
    """The challenges part of the store."""

    redis: Any
    channels: Any

    async def waiting(self, challenger: str, challenged: str, now: int) -> Waiting:
        """The challenges waiting that ``challenger`` made and ``challenged`` was sent (the
        lapsed ones forgotten)."""
        made, sent = waiting_key(challenger, "out"), waiting_key(challenged, "in")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(made, "-inf", now)
            pipe.zremrangebyscore(sent, "-inf", now)
            pipe.zcard(made)
            pipe.zcard(sent)
            *_, out, into = await pipe.execute()
        return Waiting(int(out), int(into))

    async def add_challenge(self, offer: ChallengeOffer, account: bool) -> None:
        """Keep ``offer`` until it lapses (and its body ``KEPT_MS`` more)."""
        expires = offer.expires
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(challenge_key(offer.id), pack_offer(offer, account), pxat=expires + KEPT_MS)
            pipe.zadd(CHALLENGES_KEY, {offer.id: expires})
            for player, side in ((offer.challenger_player, "out"), (offer.challenged_player, "in")):
                pipe.zadd(waiting_key(player, side), {offer.id: expires})
                pipe.pexpireat(waiting_key(player, side), expires + KEPT_MS)
            await pipe.execute()

    async def challenge(self, challenge: str) -> tuple[ChallengeOffer, bool] | None:
        """The challenge ``challenge`` and whether its challenger is an account (None: no
        such challenge, or long gone)."""
        if len(challenge) > 40:
            return None
        data = await self.redis.get(challenge_key(challenge))
        return None if data is None else unpack_offer(data)

    async def waiting_for(self, player: str, now: int) -> list[ChallengeOffer]:
        """The challenges waiting that ``player`` made or was sent, oldest first."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for side in ("out", "in"):
                pipe.zrangebyscore(waiting_key(player, side), now, "+inf")
            made, sent = await pipe.execute()
        ids = [item.decode() for item in [*made, *sent]]
        if not ids:
            return []
        bodies = await self.redis.mget([challenge_key(challenge) for challenge in ids])
        offers = [unpack_offer(body)[0] for body in bodies if body is not None]
        return sorted(offers, key=lambda offer: offer.expires)

    async def end_challenge(self, offer: ChallengeOffer) -> bool:
        """Take ``offer`` out of the challenges waiting: True for the one caller that did."""
        taken = await self.redis.zrem(CHALLENGES_KEY, offer.id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(waiting_key(offer.challenger_player, "out"), offer.id)
            pipe.zrem(waiting_key(offer.challenged_player, "in"), offer.id)
            await pipe.execute()
        return bool(taken)

    async def forget_challenge(self, challenge: str) -> None:
        """Take ``challenge`` out of the challenges waiting (its body is gone)."""
        await self.redis.zrem(CHALLENGES_KEY, challenge)

    async def online_players(self, now: int, count: int) -> tuple[list[str], int]:
        """At most ``count`` of the players connected now (their online marks), and how many
        there are in all."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrangebyscore(ONLINE_KEY, now, "+inf", start=0, num=count)
            pipe.zcount(ONLINE_KEY, now, "+inf")
            found, total = await pipe.execute()
        return [item.decode() for item in found], int(total)

    async def lapsed_challenges(self, now: int, count: int = 100) -> list[str]:
        """The ids of at most ``count`` challenges that lapsed by ``now`` and still wait."""
        found = await self.redis.zrangebyscore(CHALLENGES_KEY, "-inf", now, start=0, num=count)
        return [item.decode() for item in found]

    async def notify(self, players: list[str], frame: bytes) -> None:
        """Send ``frame`` (an encoded message) to every connection of ``players``, on every
        process (the notices channel)."""
        await self.redis.publish(self.channels.notices, pack_notice(players, frame))
