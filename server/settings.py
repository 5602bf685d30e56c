"""The server's settings: the command line, and the limits it enforces."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """Everything the server can be told. Times are in seconds.

    Attributes:
        host: Address to listen on.
        port: TCP port (0: any free port, as the tests use).
        redis_url: A Redis 6.2+ to keep every session in (None: start the embedded one under
            ``data``).
        data: Folder of the embedded Redis (its append-only file) and nothing else.
        bot_workers: Processes that compute bot moves.
        open_game_ttl: An open game nobody joins expires after this long.
        first_move_timeout: Each side's first move must come within this long, or the game
            is aborted.
        disconnect_claim: A player disconnected this long lets the opponent claim the win.
        chat_length: Longest chat line.
        chat_interval: Least time between two chat lines of one connection (on average: a
            burst of ``chat_burst`` is allowed).
        chat_burst: Chat lines one may send at once before ``chat_interval`` applies (per
            connection; a player's connections together get as many per window of
            ``chat_burst * chat_interval``).
        message_rate: Messages a second one connection may send on average...
        message_burst: ... and at once.
        bot_message_rate, bot_message_burst: The same for a bot account's connection (a bot
            plays many games at once, and as fast as its opponents).
        games_per_minute: Games a player may create in a minute.
        open_games: Open games a player may have waiting for an opponent at once.
        strikes: Refusals for going too fast that a connection may collect (one is forgiven
            every 5 s) before it is closed with 1008 (policy violation).
        event_log: Events kept per game for reconnects (older ones: a snapshot).
        trace_ttl: How long a bot move's search trace is kept.
        sweep_interval: How often deadlines (flags, aborts, expiries) are looked at.
    """

    host: str = "127.0.0.1"
    port: int = 8080
    redis_url: str | None = None
    data: Path = Path("data")
    bot_workers: int = os.cpu_count() or 1
    open_game_ttl: float = 600.0
    first_move_timeout: float = 60.0
    disconnect_claim: float = 60.0
    chat_length: int = 300
    chat_interval: float = 1.0
    chat_burst: int = 5
    message_rate: float = 20.0
    message_burst: int = 60
    bot_message_rate: float = 200.0
    bot_message_burst: int = 600
    games_per_minute: int = 20
    open_games: int = 5
    strikes: int = 10
    event_log: int = 500
    trace_ttl: float = 24 * 3600.0
    sweep_interval: float = 0.1

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hive-server",
        description="Hive Arena: play Hive online against people and bots.",
        epilog="hive-server create-bot NAME [--redis-url URL | --data DIR]: create a bot account"
        " and print its token (for hive-bot).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    p.add_argument("--port", type=int, default=8080, help="TCP port (default %(default)s)")
    add_storage_arguments(p)
    p.add_argument(
        "--bot-workers",
        type=_positive,
        default=os.cpu_count() or 1,
        help="processes computing bot moves (default: the number of cores, %(default)s)",
    )
    p.add_argument(
        "--open-game-ttl",
        type=float,
        default=600.0,
        help="seconds before an open game nobody joins expires (default %(default)s)",
    )
    p.add_argument(
        "--first-move-timeout",
        type=float,
        default=60.0,
        help="seconds each side has for its first move before the game is aborted "
        "(default %(default)s)",
    )
    p.add_argument(
        "--disconnect-claim",
        type=float,
        default=60.0,
        help="seconds a player may stay disconnected before the opponent may claim the win "
        "(default %(default)s)",
    )
    return p


def add_storage_arguments(p: argparse.ArgumentParser) -> None:
    """``--redis-url`` and ``--data``: where the server's Redis is (``hive-server`` and its
    ``create-bot`` command)."""
    p.add_argument(
        "--redis-url",
        default=os.environ.get("HIVE_REDIS_URL") or None,
        help="a Redis 6.2+ such as redis://localhost:6379/0 (env HIVE_REDIS_URL; "
        "default: an embedded Redis under --data)",
    )
    p.add_argument(
        "--data", type=Path, default=Path("data"), help="data folder (default %(default)s)"
    )


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def from_args(argv: Sequence[str] | None = None) -> Settings:
    args = parser().parse_args(argv)
    return Settings(
        host=args.host,
        port=args.port,
        redis_url=args.redis_url,
        data=args.data,
        bot_workers=args.bot_workers,
        open_game_ttl=args.open_game_ttl,
        first_move_timeout=args.first_move_timeout,
        disconnect_claim=args.disconnect_claim,
    )
