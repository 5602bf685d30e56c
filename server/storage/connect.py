"""How a process reaches Redis: one Redis (``redis://``, ``rediss://``, ``unix://``), or the
primary that Redis Sentinel names (``redis+sentinel://``), followed through a failover.

``redis+sentinel://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB]`` names the
sentinels (at least one; list them all) and the service they monitor (``sentinel monitor
SERVICE ...`` in their configuration). The user and password, if any, are the primary's and
the replicas' (``requirepass``); the sentinels are asked without one. redis-py's ``Sentinel``
asks the sentinels for the primary's address before each new connection, and a connection to
a primary that became a replica is dropped (``READONLY``): commands, the Lua commit and the
listener's subscriptions follow a failover by themselves. While no sentinel names a primary a
command fails with ``MasterNotFoundError`` (a ``ConnectionError``: the request is answered
``unavailable``).

``parse_sentinel_url`` reads such a URL (in one place: the settings check it with it), and
``shown`` writes any Redis URL without its password, for the logs.
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any, Final

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.connection import BlockingConnectionPool
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import ExponentialBackoff, NoBackoff

SENTINEL_SCHEME: Final = "redis+sentinel"
MAX_CONNECTIONS: Final = 50
"""RedisClients to the primary a process's pool holds at most (a command waits for one)."""

_HOST_PORT: Final = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\[\]]+)):(?P<port>\d+)")
_SERVICE: Final = re.compile(r"[A-Za-z0-9._-]+")


@dataclass(frozen=True)
class SentinelURL:
    """A ``redis+sentinel://`` URL, read (its password is kept out of ``repr``)."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = dataclasses.field(default=None, repr=False)


def parse_sentinel_url(url: str) -> SentinelURL:
    """Read ``redis+sentinel://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB]``.

    Raises:
        ValueError: Not such a URL, or a part of it is wrong (the message says which, and
            never the password).
    """
    scheme, sep, rest = url.partition("://")
    if scheme != SENTINEL_SCHEME or not sep:
        raise ValueError(f"not a {SENTINEL_SCHEME}:// URL: {shown(url)!r:.120}")
    authority, slash, path = rest.partition("/")
    userinfo, at, hosts = authority.rpartition("@")
    username = password = None
    if at:
        user, colon, secret = userinfo.partition(":")
        username = urllib.parse.unquote(user) or None
        password = urllib.parse.unquote(secret) if colon else None
        if not colon:  # redis://PASSWORD@host is read as a password by redis-py too
            username, password = None, urllib.parse.unquote(user) or None
    sentinels = []
    for part in hosts.split(","):
        found = _HOST_PORT.fullmatch(part.strip())
        if found is None or not 0 < int(found["port"]) < 65536:
            raise ValueError(
                f"{shown(url)!r:.120}: each sentinel is HOST:PORT (comma-separated), "
                f"not {part.strip()!r:.60}"
            )
        sentinels.append((found["v6"] or found["host"], int(found["port"])))
    segments = path.split("/") if slash else []
    if not segments or not _SERVICE.fullmatch(segments[0]):
        raise ValueError(f"{shown(url)!r:.120}: the service name is missing (.../SERVICE[/DB])")
    if len(segments) > 2 or (len(segments) == 2 and not segments[1].isdigit()):
        raise ValueError(f"{shown(url)!r:.120}: after the service only a database number")
    db = int(segments[1]) if len(segments) == 2 else 0
    return SentinelURL(tuple(sentinels), segments[0], db, username, password)


def is_sentinel(url: str) -> bool:
    return url.startswith(f"{SENTINEL_SCHEME}://")


def check_url(url: str) -> None:
    """Raise ``ValueError`` for a Redis URL the server cannot use (a malformed sentinel URL,
    or another scheme than redis's)."""
    if is_sentinel(url):
        parse_sentinel_url(url)
    elif urllib.parse.urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise ValueError(
            f"not a Redis URL (redis://, rediss://, unix:// or {SENTINEL_SCHEME}://): "
            f"{shown(url)!r:.120}"
        )


def shown(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``."""
    return re.sub(r"(://[^/@]*?:)[^/@]*@", r"\1***@", url)


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """The primary's connections, found through the sentinels, and a command waiting for a
    free one (as ``BlockingConnectionPool``) rather than refused past ``max_connections``."""


@dataclass
class RedisClients:
    """A process's clients of Redis: ``client`` for commands (a pool), ``listener`` for its
    subscriptions (never retried behind its back), and the ``sentinel`` they ask, if any.

    ``primary()`` says where the primary is now (None: no sentinel names one; always the one
    address of a plain Redis URL)."""

    client: aioredis.Redis
    listener: aioredis.Redis
    sentinel: Sentinel | None = None
    service: str = ""
    seen: str | None = None
    """Where ``primary`` last found the primary."""

    async def primary(self) -> str | None:
        """The primary's address as ``HOST:PORT``, asked of the sentinels (and the command
        pool, told: its idle connections to a former primary are closed); None while none
        names one. A plain URL's address, as is.

        Raises:
            redis.exceptions.ConnectionError, TimeoutError: not from here: a failure to ask
                is None.
        """
        pool = self.client.connection_pool
        if not isinstance(pool, SentinelConnectionPool):
            kwargs = pool.connection_kwargs
            return str(kwargs.get("path") or f"{kwargs.get('host')}:{kwargs.get('port')}")
        try:
            host, port = await pool.get_master_address()  # type: ignore[no-untyped-call]
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            return None
        found = f"{host}:{port}"
        if self.seen is not None and found != self.seen:
            # Every connection to the former primary goes: a primary that was cut off and
            # came back would take writes that the new one never sees. The idle ones at
            # once; those in use once their command is answered (or fails), as closing
            # them now would pull the socket from under a connection still connecting
            # (redis-py then fails with an AttributeError, not a ConnectionError).
            await pool.update_active_connections_for_reconnect()  # type: ignore[no-untyped-call]
            await pool.disconnect(inuse_connections=False)
        self.seen = found
        return found

    async def aclose(self) -> None:
        await self.client.aclose()
        await self.listener.aclose()
        if self.sentinel is not None:
            await self.sentinel.aclose()


def connect(url: str, *, timeout: float) -> RedisClients:
    """The clients of the Redis at ``url`` (see the module's docstring): each command has
    ``timeout`` seconds to be answered (not retried after a timeout: a frozen Redis would hold
    the request as long again); a broken connection is retried at once, up to three times
    (through Sentinel: on the primary the sentinels name then).

    Raises:
        ValueError: A malformed ``redis+sentinel://`` URL.
    """
    # A command that gets no answer within the timeout fails (a frozen Redis): it is not
    # retried, as a retry would wait as long again; a broken connection is retried at once.
    # (A Retry retries on timeouts too unless told its errors: then a frozen Redis held a
    # request for four timeouts.)
    commands: dict[str, Any] = {
        "health_check_interval": 5,
        "socket_connect_timeout": min(1.0, timeout),
        "socket_timeout": timeout,
        "retry": Retry(
            ExponentialBackoff(cap=0.2, base=0.02),
            3,
            supported_errors=(redis.exceptions.ConnectionError,),
        ),
        "retry_on_timeout": False,
    }
    # The listener's own connection, never retried behind its back: a reconnect it did not
    # see would lose what was published meanwhile, where a lost connection makes it
    # resubscribe and bring every watched game up to date.
    listening: dict[str, Any] = {
        "health_check_interval": 5,
        "socket_connect_timeout": min(1.0, timeout),
        "retry": Retry(NoBackoff(), 0),
    }
    if not is_sentinel(url):
        # A blocking pool: under a burst a command waits for a free connection, where the
        # default pool would refuse the 51st at once (answered "unavailable").
        pool = BlockingConnectionPool.from_url(
            url, max_connections=MAX_CONNECTIONS, timeout=timeout, **commands
        )
        return RedisClients(  # (the client owns its pool: closed with it)
            aioredis.Redis.from_pool(pool), aioredis.Redis.from_url(url, **listening)
        )
    found = parse_sentinel_url(url)
    credentials = {"db": found.db, "username": found.username, "password": found.password}
    sentinel = Sentinel(  # type: ignore[no-untyped-call]
        list(found.sentinels),
        sentinel_kwargs={
            "socket_connect_timeout": min(1.0, timeout),
            "socket_timeout": min(1.0, timeout),
        },
        **credentials,
    )
    client = sentinel.master_for(
        found.service,
        connection_pool_class=BlockingSentinelPool,
        max_connections=MAX_CONNECTIONS,
        timeout=timeout,
        **commands,
    )
    listener = sentinel.master_for(found.service, **listening)
    return RedisClients(client, listener, sentinel, found.service)
