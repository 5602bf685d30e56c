"""Players in Redis: guests and their session tokens (kept hashed), bot accounts and what
they play, and the origin hashes' key. ``Players`` is a part of ``server.storage.store.Store``."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, Final

import msgpack

from protocol import BotInfo, to_plain
from server.storage.channels import pack_signed_out
from server.storage.liveness import offline_key

BOTS_KEY: Final = "hive:bots"
BOT_OFFERS_KEY: Final = "hive:bot-offers"
SECRET_KEY: Final = "hive:secret"
ACCOUNT_NAMES_KEY: Final = "hive:account-names"
"""The accounts' names as ``server.game.names.folded`` folds them: no guest may take one."""


def _player_key(player: str) -> str:
    return f"hive:p:{{{player}}}"


def games_key(player: str) -> str:
    return f"hive:p:{{{player}}}:games"


def _tokens_key(player: str) -> str:
    return f"hive:p:{{{player}}}:tokens"


def token_hash(token: str) -> str:
    """The hash a session token is kept under."""
    return _token_hash(token)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _token_key(token: str) -> str:
    return _hashed_token_key(_token_hash(token))


def _hashed_token_key(hashed: str) -> str:
    return "hive:token:" + hashed


class Players:
    """The players' part of the store."""

    redis: Any
    control_channel: str

    async def new_player(self, name: str, now: int, ttl: int) -> tuple[str, str]:
        """A new guest: its player id and its secret session token, both lasting ``ttl``
        seconds unless used (see ``player_of`` and ``touch``)."""
        player = secrets.token_hex(8)
        token = secrets.token_urlsafe(24)
        hashed = _token_hash(token)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(_player_key(player), mapping={"name": name, "created": now})
            pipe.expire(_player_key(player), ttl)
            pipe.set(_hashed_token_key(hashed), player, ex=ttl)
            pipe.sadd(_tokens_key(player), hashed)
            pipe.expire(_tokens_key(player), ttl)
            await pipe.execute()
        return player, token

    async def new_session(self, player: str, name: str, now: int, ttl: int) -> str:
        """A new session of the account ``player`` (a login): its secret token, lasting ``ttl``
        seconds unless used, as a guest's."""
        token = secrets.token_urlsafe(24)
        hashed = _token_hash(token)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(_player_key(player), mapping={"name": name, "account": 1})
            pipe.hsetnx(_player_key(player), "created", now)  # kept while it lasts
            pipe.expire(_player_key(player), ttl)
            pipe.set(_hashed_token_key(hashed), player, ex=ttl)
            pipe.sadd(_tokens_key(player), hashed)
            pipe.expire(_tokens_key(player), ttl)
            await pipe.execute()
        return token

    async def make_account(self, player: str, name: str) -> None:
        """The guest ``player`` is now the account ``name`` (its sessions go on)."""
        await self.redis.hset(_player_key(player), mapping={"name": name, "account": 1})

    async def add_account_names(self, folded: list[str]) -> None:
        """Accounts' names (folded, see ``server.game.names.folded``) no guest may take from now
        on."""
        if folded:
            await self.redis.sadd(ACCOUNT_NAMES_KEY, *folded)

    async def is_account_name(self, folded: str) -> bool:
        """Whether an account has a name that folds to ``folded``."""
        return bool(await self.redis.sismember(ACCOUNT_NAMES_KEY, folded))

    async def is_account(self, player: str) -> bool:
        return bool(await self.redis.hexists(_player_key(player), "account"))

    async def end_other_sessions(self, player: str, keep: str | None) -> None:
        """End every session of ``player`` but the one of the token ``keep`` (hashed)."""
        found = await self.redis.smembers(_tokens_key(player))
        for hashed in sorted(h.decode() for h in found):
            if hashed != keep:
                await self.end_sessions(player, hashed)

    async def rename(self, player: str, name: str) -> None:
        """Give a guest a new name (its games keep the seats' names they were played under)."""
        await self.redis.hset(_player_key(player), "name", name)

    async def touch(self, player: str, hashed: str, ttl: int) -> None:
        """A person's session was used (signed in, or its connection closed): it and the
        player's keys last ``ttl`` seconds more (a bot account's never expire)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.expire(_hashed_token_key(hashed), ttl)
            pipe.expire(_tokens_key(player), ttl)
            pipe.expire(_player_key(player), ttl)
            pipe.expire(offline_key(player), ttl)
            await pipe.execute()

    async def keep(self, guests: list[str], ttl: int) -> None:
        """Guests in a game in progress: their keys and sessions last ``ttl`` seconds more,
        however long ago they last signed in (a guest expires only with no game going on)."""
        if not guests:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in guests:
                pipe.smembers(_tokens_key(player))
            tokens = await pipe.execute()
        async with self.redis.pipeline(transaction=False) as pipe:
            for player, hashes in zip(guests, tokens, strict=True):
                for key in (_player_key(player), _tokens_key(player), offline_key(player)):
                    pipe.expire(key, ttl)
                for hashed in hashes:
                    pipe.expire(_hashed_token_key(hashed.decode()), ttl)
            await pipe.execute()

    async def end_sessions(self, player: str, hashed: str | None) -> None:
        """End the session of the token ``hashed`` (None: every session of the player): its
        token no longer signs in, and every process closes its connections."""
        if hashed is None:
            found = await self.redis.smembers(_tokens_key(player))
            ended = [h.decode() for h in found]
        else:
            ended = [hashed]
        async with self.redis.pipeline(transaction=True) as pipe:
            for each in ended:
                pipe.delete(_hashed_token_key(each))
            if hashed is None:
                pipe.delete(_tokens_key(player))
            else:
                pipe.srem(_tokens_key(player), hashed)
            pipe.publish(self.control_channel, pack_signed_out(player, hashed))
            await pipe.execute()

    async def new_bot(self, name: str, now: int, *, new_token: bool = False) -> tuple[str, str]:
        """The bot account ``name``, created: its player id and its secret token. With
        ``new_token``, an existing account gets a new token and its old one stops working.

        Raises:
            ValueError: The name is taken (and ``new_token`` is off), or unknown (and it is on).
        """
        token = "bot-" + secrets.token_urlsafe(24)  # never "-...": a token goes on command lines
        if new_token:
            found = await self.redis.hget(BOTS_KEY, name)
            if found is None:
                raise ValueError(f"there is no bot account named {name!r}")
            player = found.decode()
            old = await self.redis.hget(_player_key(player), "token")
        else:
            player = secrets.token_hex(8)
            if not await self.redis.hsetnx(BOTS_KEY, name, player):
                raise ValueError(
                    f"a bot account named {name!r} exists (--new-token gives it a new token)"
                )
            old = None
        async with self.redis.pipeline(transaction=True) as pipe:
            if old is not None:
                pipe.delete(_hashed_token_key(old.decode()))
            pipe.hset(
                _player_key(player),
                mapping={"name": name, "created": now, "bot": 1, "token": _token_hash(token)},
            )
            pipe.set(_token_key(token), player)
            await pipe.execute()
        return player, token

    async def bot_named(self, name: str) -> str | None:
        """The player id of the bot account ``name``, or None."""
        found = await self.redis.hget(BOTS_KEY, name)
        return found.decode() if found is not None else None

    async def player_of(self, token: str) -> tuple[str, str, bool] | None:
        """The ``(player id, name, is a bot account)`` a session token belongs to, or None
        (unknown, expired or ended)."""
        raw = await self.redis.get(_token_key(token))
        if raw is None:
            return None
        player = raw.decode()
        name, bot = await self.redis.hmget(_player_key(player), ["name", "bot"])
        return (player, name.decode(), bot is not None) if name is not None else None

    async def bot_names(self) -> list[str]:
        """The names of every bot account."""
        return [name.decode() for name in await self.redis.hkeys(BOTS_KEY)]

    async def secret(self) -> bytes:
        """The key of the origin hashes: made by the first process to ask, then shared."""
        await self.redis.set(SECRET_KEY, secrets.token_bytes(32), nx=True)
        found: bytes = await self.redis.get(SECRET_KEY)
        return found

    async def set_bot_offer(self, offer: BotInfo) -> None:
        """Keep what a bot account plays (its last ``bot_ready``)."""
        await self.redis.hset(BOT_OFFERS_KEY, offer.player, msgpack.packb(to_plain(offer)))

    async def bot_offers(self) -> dict[str, BotInfo]:
        """What each bot account plays, by player id (connected or not)."""
        found = await self.redis.hgetall(BOT_OFFERS_KEY)
        return {player.decode(): BotInfo(**msgpack.unpackb(data)) for player, data in found.items()}

    async def games_of(self, player: str) -> list[str]:
        members = await self.redis.smembers(games_key(player))
        return sorted(m.decode() for m in members)
