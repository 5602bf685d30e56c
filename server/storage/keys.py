"""The names of a game's keys in Redis (docs/operating.md has the whole layout). They share the
hash tag ``{ID}``, so a game's atomic commit touches one Redis Cluster slot."""

from __future__ import annotations


def game_key(game_id: str) -> str:
    """The game's hash: ``v`` its version, ``r`` its record, ``a`` once archived."""
    return f"hive:g:{{{game_id}}}"


def log_key(game_id: str) -> str:
    """The stream of the game's events."""
    return f"hive:g:{{{game_id}}}:log"


def trace_key(game_id: str, ply: int) -> str:
    """A bot move's search trace."""
    return f"hive:g:{{{game_id}}}:trace:{ply}"


def claim_key(game_id: str) -> str:
    """A process archiving the game holds it (``Store.claim_archive``)."""
    return f"hive:g:{{{game_id}}}:archiving"


LIVE_KEY = "hive:live"
"""The games in progress (an index of ``Store``'s: its module lists its keys)."""
TOURNAMENTS_KEY = "hive:tournaments"
"""The tournaments upcoming and running, by start time."""
TOURNAMENTS_OVER_KEY = "hive:tournaments:over"
"""The tournaments ended lately, by end time."""


def tournament_key(tournament: str, part: str = "") -> str:
    """A tournament's keys: ``hive:t:{ID}`` (its hash) and ``hive:t:{ID}:PART``, sharing the
    hash tag ``{ID}`` (a pairing's script touches one slot)."""
    return f"hive:t:{{{tournament}}}" + (f":{part}" if part else "")
