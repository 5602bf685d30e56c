"""What every message shares: the limits, the error codes, the plain types, and ``Message``
with the two registries its subclasses enter, one a direction (``client`` and ``server``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final, Literal, TypeVar

MAX_FRAME_BYTES: Final = 16 * 1024
"""Frames from clients larger than this are refused (the connection closes with 1009)."""
SIGNED_OUT: Final = 4001
"""The close code of a connection whose session ended (``logout``, here or elsewhere): its
token no longer signs in."""
MAX_TEXT: Final = 2000
"""Longest string field accepted from a client (chat has its own, smaller, limit). Messages
from the server have no such limit: a long game's GameString runs past it."""
MAX_INT: Final = 2**53 - 1
"""Largest integer (and the negative of the smallest) in a message: JavaScript numbers hold
every integer up to it exactly, and no further. A client's integer beyond it is refused
(``BAD_MESSAGE``, "out of range")."""
MAX_NICKNAME: Final = 24
MAX_LIST: Final = 1000
LOBBY_SHOWN: Final = 100
"""Games of each lobby list sent to clients: the oldest open games, the newest in progress."""
MAX_WATCHING: Final = 32
"""Games one connection may watch at once."""
MAX_BOT_GAMES: Final = 100
"""Most games a bot account may play at once."""
PROFILE_PAGE: Final = 20
"""Archived games in a page of a profile."""
LEADERBOARD_SHOWN: Final = 100
"""Players listed on a leaderboard."""
MAX_ANALYSIS_MOVES: Final = 500
"""Most moves of a position of the analysis board (``position``, ``engine``)."""
ENGINE_LINES: Final = 3
"""The best moves an engine run of the analysis board shows at each depth."""
CHALLENGE_SECONDS: Final = 60
"""A challenge by name lapses this long after it was made, unanswered (``challenge_end``,
``expired``)."""
CHALLENGES_PER_MINUTE: Final = 10
"""Challenges by name a player may make in a minute (then ``rate_limited``)."""
CHALLENGES_OUT: Final = 3
"""Challenges a player may have waiting for an answer at once."""
CHALLENGES_IN: Final = 10
"""Challenges a player may be sent and not yet have answered, at once."""
MAX_FOLLOWS: Final = 200
"""Players an account may follow."""
MAX_BLOCKS: Final = 500
"""Players an account may block."""
ONLINE_SHOWN: Final = 100
"""Players listed as online (``online``), and followed players' games in progress."""
PUZZLE_BURST: Final = 20
PUZZLE_RATE: Final = 2.0
"""A connection's puzzle requests (``puzzle``, ``puzzle_move``, ``puzzle_solution``): this
many at once, then this many a second (then ``rate_limited``)."""
OPEN_PUZZLES: Final = 4
"""Puzzles a player has open at once (over their connections to one process): asking for one
more closes the oldest (its moves are then ``not_open``)."""
TOURNAMENTS_PER_DAY: Final = 3
"""Tournaments an account may create in a day (then ``rate_limited``)."""
TOURNAMENT_PLAYERS: Final = 200
"""The most players a tournament may have (its own cap may be lower)."""


class ErrorCode(enum.StrEnum):
    """Why a request was refused. The set is closed: clients may switch on it."""

    BAD_MESSAGE = "bad_message"
    """Not msgpack, not a map, a missing/unknown/mistyped field, or a value out of range."""
    UNKNOWN_TYPE = "unknown_type"
    NOT_AUTHENTICATED = "not_authenticated"
    """The first message must be ``hello``; nothing else is answered before it."""
    BAD_TOKEN = "bad_token"
    ALREADY_AUTHENTICATED = "already_authenticated"
    UNKNOWN_GAME = "unknown_game"
    UNKNOWN_LEVEL = "unknown_level"
    UNKNOWN_BOT = "unknown_bot"
    """No bot account of that name (a challenge names one)."""
    NOT_OPEN = "not_open"
    """The game cannot be joined or cancelled (already started, cancelled or expired)."""
    OWN_GAME = "own_game"
    """A player cannot join a game they created."""
    NOT_YOUR_GAME = "not_your_game"
    """Only the game's creator may cancel it; only its players may act in it."""
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_MOVE = "illegal_move"
    """The engine's message says why."""
    STALE = "stale"
    """The move was made on a version that is no longer current; nothing changed."""
    GAME_OVER = "game_over"
    NOT_ALLOWED = "not_allowed"
    """The action does not apply now (no draw offer to accept, opponent still connected...)."""
    TOO_LONG = "too_long"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    """The server cannot reach its storage; try again shortly. Nothing was changed."""
    INTERNAL = "internal"
    BAD_NAME = "bad_name"
    """Not an account's name (2-20 letters, digits, ``_``, ``-``), or a bot's."""
    NAME_TAKEN = "name_taken"
    """An account has that name, ignoring case (``signup``), or a guest's nickname is an
    account's name (``hello``: ignoring case, width and separators)."""
    BAD_PASSWORD = "bad_password"
    """A new password too short or too long, or the old one wrong (``change_password``)."""
    BAD_LOGIN = "bad_login"
    """Wrong name or password: the same answer for both."""
    ACCOUNT_REQUIRED = "account_required"
    """Only an account may do this (a rated game: create or join one)."""
    OUT_OF_RANGE = "out_of_range"
    """The joiner's rating lies outside the open game's rating range."""
    UNKNOWN_PLAYER = "unknown_player"
    """No account of that name (``profile``, ``challenge``, ``follow``, ``block``)."""
    UNKNOWN_TOURNAMENT = "unknown_tournament"
    """No tournament of that id (or one ended long ago)."""


class ProtocolError(Exception):
    """A request that cannot be carried out, answered with an ``Error`` of ``code``."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


Color = Literal["white", "black"]
ColorChoice = Literal["white", "black", "random"]
Opponent = Literal["anyone", "bot", "bots"]
TimeKind = Literal["none", "clock", "days"]
EngineEnd = Literal["depth", "time", "over", "proved", "stopped", "failed"]
"""Why an engine run ended (``EngineDone``)."""
Speed = Literal["bullet", "blitz", "rapid", "classical", "correspondence"]
"""A rating's pool, from the time control (see ``server.game.rating.speed``)."""
AccountKind = Literal["guest", "account", "bot"]
DrawAction = Literal["offer", "accept", "decline"]
GameStatus = Literal["open", "live", "over"]
Result = Literal["WhiteWins", "BlackWins", "Draw"]
ChallengeAllow = Literal["everyone", "followed", "nobody"]
"""Whose challenges by name a player takes."""
ChallengeAction = Literal["accept", "decline", "withdraw"]
ChallengeOutcome = Literal["accepted", "declined", "withdrawn", "expired"]
PuzzleTheme = Literal["win1", "win2", "win3", "defend"]
"""A puzzle's theme: the Queen surrounded within 1, 2 or 3 of the solver's moves, or the one
move that saves it (``defend``)."""


@dataclass(frozen=True)
class Message:
    """Base class of every message; ``TYPE`` is its tag on the wire."""

    TYPE: ClassVar[str] = ""


CLIENT_MESSAGES: Final[dict[str, type[Message]]] = {}
"""Messages a client sends, by tag."""
SERVER_MESSAGES: Final[dict[str, type[Message]]] = {}
"""Messages the server sends, by tag."""

_M = TypeVar("_M", bound=type[Message])


def _registered(registry: dict[str, type[Message]], tag: str) -> Callable[[_M], _M]:
    def register(cls: _M) -> _M:
        cls.TYPE = tag
        registry[tag] = cls
        return cls

    return register


def client(tag: str) -> Callable[[_M], _M]:
    return _registered(CLIENT_MESSAGES, tag)


def server(tag: str) -> Callable[[_M], _M]:
    return _registered(SERVER_MESSAGES, tag)
