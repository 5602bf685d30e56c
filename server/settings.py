"""The server's settings: one dataclass, and the command line made from it.

Every field of ``Settings`` is a flag of ``hive-server`` (``open_game_ttl`` is
``--open-game-ttl``), with its default and its help written once, here. Times are in seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import math
import os
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from server.archive.db.database import checked_url
from server.storage.connect import check_url, is_sentinel

ON_NO_REPLICA: Final = ("refuse", "acknowledge")
"""What a change no replica held in time gets (``Settings.on_no_replica``)."""

DAY: Final = 86_400.0
DEFAULT_PORTS: Final = {"http": 80, "https": 443}
CPU_MAX: Final = Path("/sys/fs/cgroup/cpu.max")
"""The CPU quota of this process's cgroup (v2): what docker's --cpus and compose's cpus set."""


def available_cores(cores: int | None = None, cpu_max: Path = CPU_MAX) -> int:
    """The cores this process may use: those it may run on (``cores``: by default, its CPU
    affinity's), bounded by its cgroup's CPU quota rounded up (a container's share of the
    host, not the host's cores)."""
    if cores is None:
        cores = len(os.sched_getaffinity(0))
    try:
        quota, period = cpu_max.read_text().split()[:2]
        allowed = math.ceil(int(quota) / int(period))
    except (OSError, ValueError):  # no cgroup v2 here, or "max": no quota
        return cores
    return max(1, min(cores, allowed))


def _setting(default: Any, help: str, *, env: str | None = None) -> Any:
    """A field of ``Settings``: its default, its help on the command line, and the environment
    variable that sets its default there, if any."""
    return field(default=default, metadata={"help": help, "env": env})


@dataclass(frozen=True)
class Settings:
    """Everything the server can be told (see ``hive-server --help``)."""

    host: str = _setting("127.0.0.1", "address to listen on")
    port: int = _setting(8080, "TCP port (0: any free port)")
    metrics_port: int | None = _setting(
        None,
        "TCP port of /metrics, for Prometheus, on --host (0: any free port; default: not "
        "served); it serves nothing else, and belongs behind no public proxy",
    )
    redis_url: str | None = _setting(
        None,
        "a Redis 6.2+ such as redis://[:PASSWORD@]localhost:6379/0, or its primary through "
        "Redis Sentinel: redis+sentinel://[:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB] "
        "(the password is the primary's; default: an embedded Redis under --data)",
        env="HIVE_REDIS_URL",
    )
    data: Path = _setting(
        Path("data"),
        "the embedded Redis's folder (its append-only file) and the embedded database's "
        "(hive.sqlite3)",
    )
    database_url: str | None = _setting(
        None,
        "the database of finished games, such as postgresql://USER:PASSWORD@HOST/NAME "
        "(asyncpg; default: a SQLite file under --data); migrated on start",
        env="HIVE_DATABASE_URL",
    )
    archive_grace: float = _setting(
        3600.0,
        "seconds a finished game stays in Redis once archived in the database (for rematch "
        "offers and its watchers), after which its keys expire",
    )
    archive_interval: float = _setting(
        1.0, "how often finished games not yet archived are looked for, and archived"
    )
    bot_workers: int = _setting(
        available_cores(),
        "processes computing bot moves (default: the cores this process may use: its CPU "
        "affinity, within its container's CPU quota)",
    )
    open_game_ttl: float = _setting(600.0, "seconds before an open game nobody joins expires")
    first_move_timeout: float = _setting(
        60.0,
        "seconds for each side's first move, else the game is aborted (with days per "
        "move: those days)",
    )
    disconnect_claim: float = _setting(
        60.0,
        "seconds a player may be away before the opponent may claim the win (a game "
        "against a server bot then ends by itself)",
    )
    reconnect_grace: float = _setting(
        10.0,
        "seconds after a restart (when no server ran for a while) during which the clock of the "
        "player to move waits for their client to come back: it starts when they reconnect, or "
        "after these seconds",
    )
    untimed_timeout: float = _setting(
        600.0,
        "seconds a game without a clock stays in progress once both its players are gone (no "
        "connection to any server process): then it ends without a result (reason "
        "'deserted'), never rated",
    )
    session_ttl: float = _setting(
        30 * DAY,
        "seconds a session token lasts without use (a guest with it); bot accounts' "
        "tokens last until replaced",
    )
    chat_length: int = _setting(300, "longest chat line (characters)")
    chat_interval: float = _setting(
        1.0, "least time between two chat lines of a connection, on average"
    )
    chat_burst: int = _setting(
        5,
        "chat lines sent at once before --chat-interval applies (a player's connections "
        "together get as many per window of burst x interval)",
    )
    message_rate: float = _setting(20.0, "messages a second a connection may send on average")
    message_burst: int = _setting(60, "messages a connection may send at once")
    bot_message_rate: float = _setting(200.0, "messages a second for a bot account's connection")
    bot_message_burst: int = _setting(600, "messages at once for a bot account's connection")
    games_per_minute: int = _setting(20, "games a player may create in a minute")
    open_games: int = _setting(5, "open games a player may have waiting at once")
    open_games_per_address: int = _setting(10, "open games waiting at once from one address")
    open_games_total: int = _setting(
        500, "open games waiting at once on the whole server (the lobby is full past it)"
    )
    bot_games: int = _setting(
        2, "games in progress against the server's bots a player may have at once"
    )
    bot_games_per_address: int = _setting(
        6, "games in progress against the server's bots from one address"
    )
    bot_pair_games: int = _setting(
        100,
        "games a day a bot account may start against one server level or one other bot "
        "account (lichess has such a cap)",
    )
    rated_pair_games: int = _setting(
        10,
        "rated games of one pair of accounts that change ratings in 24 hours (any speed); "
        "past it their games are archived unrated, and they are told",
    )
    guests_per_address: int = _setting(20, "new guests one address may make in an hour")
    connections_per_address: int = _setting(
        32, "open connections from one address (to this process)"
    )
    lookups_per_address: int = _setting(
        10,
        "profiles and leaderboards one address may ask in 10 seconds, over all its "
        "connections (each may ask 10 at once, then 2 a second)",
    )
    engine_seconds: float = _setting(
        10.0, "seconds an engine run of the analysis board searches at most (its lines)"
    )
    engine_depth: int = _setting(8, "the deepest search (plies) of an engine run")
    engine_runs: int = _setting(
        16, "engine runs at once in this process (past it the engine is busy: unavailable)"
    )
    engine_runs_per_address: int = _setting(
        2, "engine runs at once from one address (one a connection)"
    )
    analyses_per_address: int = _setting(
        3, "computer analyses of finished games one address may start in 10 minutes"
    )
    analyses_queued: int = _setting(
        6,
        "computer analyses waiting or running at once over every process (past them a request "
        "is refused: try later)",
    )
    analyses_at_once: int = _setting(
        2, "computer analyses this process runs at once (each one position at a time in the pool)"
    )
    puzzle_mining_interval: float = _setting(
        600.0,
        "seconds between passes of the puzzle miner over the archived games (one process at a "
        "time, 20 games a pass, in the bot pool's background workers; 0: off)",
    )
    hello_timeout: float = _setting(10.0, "seconds a connection has to say hello")
    hash_workers: int = _setting(
        1,
        "threads hashing and checking passwords (argon2id: 64 MiB and about 0.2 s of a core "
        "each), the most a stream of logins and signups may take at once",
    )
    hash_queue: int = _setting(
        8, "password hashes that may wait for a thread; the next logins are refused at once"
    )
    trusted_proxies: str = _setting(
        "",
        "comma-separated addresses or networks (CIDR) of proxies whose X-Forwarded-For "
        "header names the client (haproxy's `option forwardfor`)",
        env="HIVE_TRUSTED_PROXIES",
    )
    origins: str = _setting(
        "",
        "comma-separated origins (scheme://host[:port]) whose web pages may open /ws besides "
        "the server's own (a page's origin naming the host it asked: its Host header); clients "
        "that send no Origin, such as bots, are always welcome",
        env="HIVE_ORIGINS",
    )
    queue_limit: int = _setting(
        256 * 1024,
        "bytes waiting to be sent to one client past which its feeds (lobby, "
        "games) are skipped, then brought up to date with a snapshot once it reads again",
    )
    strikes: int = _setting(
        10,
        "refusals for going too fast a connection may collect (one forgiven every 5 s) "
        "before it is closed with 1008",
    )
    event_log: int = _setting(500, "events kept per game for reconnects (older: a snapshot)")
    trace_ttl: float = _setting(DAY, "seconds a bot move's search trace is kept")
    trace_bytes: int = _setting(
        64 * 1024, "largest search trace kept, in bytes of JSON (a larger one is kept shallower)"
    )
    redis_timeout: float = _setting(
        3.0, "seconds a Redis command may take before the request is answered 'unavailable'"
    )
    redis_replicas: int | None = _setting(
        None,
        "replicas that must hold a change of a game before it is acknowledged (Redis WAIT "
        "after the commit); 0: the primary's answer is enough (default: 1 with a "
        "redis+sentinel:// URL, else 0)",
    )
    redis_wait: float = _setting(
        1.0,
        "seconds a change waits for --redis-replicas replicas to hold it (less than "
        "--redis-timeout)",
    )
    on_no_replica: str = _setting(
        "refuse",
        "a change no replica held within --redis-wait is: 'refuse'd (answered 'unavailable' "
        "and not passed on; it may stay on the primary, and the client's resend is played at "
        "most once) or 'acknowledge'd on the primary alone; counted either way in "
        "hive_redis_wait_timeouts_total",
        env="HIVE_ON_NO_REPLICA",
    )
    sweep_interval: float = _setting(0.1, "how often deadlines (flags, aborts, expiries) are met")

    def __post_init__(self) -> None:
        _networks(self.trusted_proxies)  # refuse a bad one now, not at the first connection
        _origins(self.origins)
        if self.redis_url is not None:
            check_url(self.redis_url)
        if self.on_no_replica not in ON_NO_REPLICA:
            raise ValueError(f"on_no_replica is one of {', '.join(ON_NO_REPLICA)}")
        if self.replicas and self.redis_wait >= self.redis_timeout:
            raise ValueError("--redis-wait must be less than --redis-timeout")

    @property
    def replicas(self) -> int:
        """The replicas a change waits for (``redis_replicas``, or its default)."""
        if self.redis_replicas is not None:
            return self.redis_replicas
        return 1 if self.redis_url is not None and is_sentinel(self.redis_url) else 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    @property
    def proxies(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return _networks(self.trusted_proxies)

    @property
    def allowed_origins(self) -> frozenset[tuple[str, str, int]]:
        """The ``origins`` other than the server's own allowed to open /ws, as ``origin_of``
        reads them."""
        return _origins(self.origins)


def origin_of(text: str) -> tuple[str, str, int]:
    """An origin (``https://Example.org``, as a browser's ``Origin`` header says it) as
    (scheme, host, port), the port made explicit (``("https", "example.org", 443)``).

    Raises:
        ValueError: Not an http or https origin (``null``, a path, a bad port...).
    """
    parts = urllib.parse.urlsplit(text.strip())
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path or parts.query:
        raise ValueError(f"not an origin (scheme://host[:port]): {text!r:.100}")
    return scheme, parts.hostname, parts.port or DEFAULT_PORTS[scheme]


def _origins(text: str) -> frozenset[tuple[str, str, int]]:
    """The origins of a comma-separated list.

    Raises:
        ValueError: A part is not an origin.
    """
    return frozenset(origin_of(part) for part in text.split(",") if part.strip())


def _networks(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """The networks of a comma-separated list (``127.0.0.1,10.0.0.0/8``).

    Raises:
        ValueError: A part is not an address or a network.
    """
    return tuple(ipaddress.ip_network(part.strip()) for part in text.split(",") if part.strip())


_FIELDS: Final = {f.name: f for f in dataclasses.fields(Settings)}
_TYPES: Final = {
    "str": str,
    "int": int,
    "float": float,
    "Path": Path,
    "str | None": str,
    "int | None": int,
}


def flag(name: str) -> str:
    """The command-line flag of a field: ``open_game_ttl`` -> ``--open-game-ttl``."""
    return "--" + name.replace("_", "-")


def _add(p: argparse.ArgumentParser, name: str) -> None:
    f = _FIELDS[name]
    env = f.metadata["env"]
    default = f.default
    if env is not None:
        default = os.environ.get(env) or default
    kind = _TYPES[str(f.type)]
    suffix = f" (env {env})" if env else ""
    shown = "" if default is None else " (default: %(default)s)"
    p.add_argument(
        flag(name),
        type=_checked(kind, name),
        default=default,
        help=f"{f.metadata['help']}{suffix}{shown}",
    )


def _checked(kind: type, name: str) -> Any:
    """The argparse type of a field: numbers must be positive (0 allowed for the port)."""

    def convert(text: str) -> Any:
        value = kind(text)
        zero_allowed = ("port", "metrics_port", "redis_replicas")
        if kind in (int, float) and (value < 0 or (value == 0 and name not in zero_allowed)):
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        if name == "database_url":
            try:
                checked_url(value)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        if name == "redis_url":
            try:
                check_url(value)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        if name == "on_no_replica" and value not in ON_NO_REPLICA:
            raise argparse.ArgumentTypeError(f"one of {', '.join(ON_NO_REPLICA)}, not {value!r}")
        if name == "trusted_proxies":
            try:
                _networks(value)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        if name == "origins":
            try:
                _origins(value)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        return value

    convert.__name__ = kind.__name__
    return convert


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hive-server",
        description="Hive Arena: play Hive online against people and bots.",
        epilog="hive-server create-bot NAME [--redis-url URL | --data DIR]: create a bot account"
        " and print its token (for hive-bot). hive-server migrate [--database-url URL | --data"
        " DIR]: bring the database's schema up to date, and nothing else (the server does it"
        " on start too). hive-server puzzles load FILE [--database-url URL | --data DIR]: store"
        " the puzzles of hive-ai puzzles --out FILE, each once.",
    )
    for name in _FIELDS:
        _add(p, name)
    return p


def add_storage_arguments(p: argparse.ArgumentParser) -> None:
    """``--redis-url`` and ``--data``: where the server's Redis is (``hive-server`` and its
    ``create-bot`` command)."""
    _add(p, "redis_url")
    _add(p, "data")


def add_database_arguments(p: argparse.ArgumentParser, *, data: bool = True) -> None:
    """``--database-url`` and (unless ``data`` is off: ``add_storage_arguments`` added it)
    ``--data``: where the server's database is (``hive-server migrate`` and ``create-bot``)."""
    _add(p, "database_url")
    if data:
        _add(p, "data")


def from_args(argv: Sequence[str] | None = None) -> Settings:
    p = parser()
    args = p.parse_args(argv)
    try:
        return Settings(**{name: getattr(args, name) for name in _FIELDS})
    except ValueError as error:  # settings that do not go together
        p.error(str(error))
