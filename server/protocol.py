"""The wire protocol: every message, both ways, and the only code that touches msgpack.

One websocket at ``/ws`` carries msgpack binary frames, each a map with a ``type`` key naming the
message and one key per field. Messages are frozen dataclasses: ``encode(message)`` gives the
frame, ``decode(frame)`` gives back the message, or raises ``ProtocolError`` with an
``ErrorCode`` for anything that is not a well-formed message of a known type (bad msgpack, an
unknown type, a missing, unknown or mistyped field, a value out of range). The server answers a
``ProtocolError`` with an ``Error`` and the connection lives on.

docs/protocol.md documents every message with an example and a whole game;
``server.schema`` makes the JSON Schema of every message from this module (served at
``GET /protocol.schema.json``).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal, TypeVar, get_args, get_origin

import msgpack

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
    """No account of that name (``profile``)."""


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
Speed = Literal["bullet", "blitz", "rapid", "classical", "correspondence"]
"""A rating's pool, from the time control (see ``server.ratings.speed``)."""
AccountKind = Literal["guest", "account", "bot"]
DrawAction = Literal["offer", "accept", "decline"]
GameStatus = Literal["open", "live", "over"]
Result = Literal["WhiteWins", "BlackWins", "Draw"]


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


# -- values inside messages --------------------------------------------------------------------


@dataclass(frozen=True)
class TimeControl:
    """How much time the players have.

    ``none``: no clock. ``clock``: ``base`` seconds each, plus ``increment`` seconds after each of
    one's moves. ``days``: at most ``days`` days for each move (correspondence).
    """

    kind: TimeKind = "none"
    base: int = 0
    increment: int = 0
    days: int = 0

    def __post_init__(self) -> None:
        if self.kind == "clock" and not (1 <= self.base <= 3 * 3600 and 0 <= self.increment <= 600):
            raise ValueError("a clock needs base in 1..10800 s and increment in 0..600 s")
        if self.kind == "clock" and self.days:
            raise ValueError("a clock takes no days")
        if self.kind == "days" and not 1 <= self.days <= 30:
            raise ValueError("days per move must lie in 1..30")
        if self.kind == "days" and (self.base or self.increment):
            raise ValueError("days per move take no base or increment")
        if self.kind == "none" and (self.base or self.increment or self.days):
            raise ValueError("a game without a clock takes no base, increment or days")


@dataclass(frozen=True)
class Seat:
    """Who sits on one side: ``player`` id, shown ``name``, the ``bot`` level for one of the
    server's own bots; ``account`` ``"bot"`` for any bot (the server's, or a bot account
    playing from outside), ``"account"`` for a person with an account, ``"guest"`` for a
    person without one. ``rating``: the player's rating in the game's speed when they took
    the seat, rounded (None: a guest, one of the server's bots, or a game without a clock);
    ``provisional``: that rating is still provisional (shown with a "?")."""

    player: str
    name: str
    bot: str | None = None
    connected: bool = False
    account: AccountKind = "guest"
    rating: int | None = None
    provisional: bool = False


@dataclass(frozen=True)
class Clocks:
    """Milliseconds left for each side when the state was sent, and whose clock runs.

    With ``days`` the figures are the time left for the current move. ``running`` is None when no
    clock runs (no time control, the game not started, or over).
    """

    white: int | None
    black: int | None
    running: Color | None


@dataclass(frozen=True)
class PieceAt:
    """A piece on the board at axial ``(q, r)``; ``height`` 0 on the ground, 1 on top of one
    piece, and so on (``hive.Layout``'s level)."""

    piece: str
    q: int
    r: int
    height: int


@dataclass(frozen=True)
class LegalMove:
    """A legal move of the side to move: its UHP MoveString, the piece, where it comes from
    (``from_q``/``from_r`` None for a piece in hand) and its destination hex."""

    move: str
    piece: str
    from_q: int | None
    from_r: int | None
    to_q: int
    to_r: int


@dataclass(frozen=True)
class Event:
    """One change of a game, numbered by ``version`` (1, 2, ... without gaps).

    ``kind``: ``created``, ``joined`` (the game starts), ``move`` (also the move that ends a
    game: the state then has the result), ``draw_offer``, ``draw_decline``, ``rematch_offer``,
    ``rematch`` (``text``: the new game's id), ``chat``, ``mute`` and ``unmute`` (``text``: the
    name of the player muted or unmuted), ``spectator_chat`` (``text``: ``open`` or ``closed``),
    ``over`` (ended otherwise than by a move: ``by`` the result, ``text`` the reason),
    ``rated`` (a finished rated game changed its players' ratings: the state's
    ``rating_changes`` say how), ``unrated`` (a finished game chosen rated changed no rating:
    ``text`` says why, as the state's ``unrated``).
    ``by``: the colour or player name acting; ``text``: the MoveString, or the chat line;
    ``player``: the id of the chatter (``chat``) or of the player muted (``mute``,
    ``unmute``), None otherwise (and in events stored before it was added); ``at``: server
    time in ms.
    """

    version: int
    kind: str
    at: int
    by: str | None = None
    text: str | None = None
    player: str | None = None


@dataclass(frozen=True)
class RatingChange:
    """What a rated game did to one side's rating: ``before`` and ``after`` (rounded),
    ``provisional`` the rating after is still provisional."""

    color: Color
    before: int
    after: int
    provisional: bool = False


@dataclass(frozen=True)
class GameState:
    """Everything a client needs to draw a game and play it, with no rules of its own.

    ``pieces``: every piece on the board (``height`` 0 on the ground, 1 on top of one piece...),
    in plain axial coordinates that do not wrap and do not change while a piece stays put.
    ``legal``: the side to move's legal moves; ``must_pass``: passing is its only move (play
    ``pass``): both told only to the player to move (empty and false in everyone else's
    state). ``hand_white``/``hand_black``: the pieces still in hand. ``muted``: the ids of the
    players whose chat lines the game's players have muted; ``spectator_chat``: whether
    spectators may chat. ``unrated``: why a finished game chosen rated changed no rating (the
    ``unrated`` event's text; None otherwise).
    """

    id: str
    game_type: str
    status: GameStatus
    white: Seat | None
    black: Seat | None
    time: TimeControl
    version: int
    game_string: str
    moves: list[str]
    turn: Color
    clocks: Clocks
    pieces: list[PieceAt]
    legal: list[LegalMove]
    hand_white: list[str]
    hand_black: list[str]
    must_pass: bool = False
    result: Result | None = None
    reason: str | None = None
    draw_offer: Color | None = None
    rematch_offer: Color | None = None
    rematch: str | None = None
    spectators: int = 0
    chat: list[Event] = field(default_factory=list)
    muted: list[str] = field(default_factory=list)
    spectator_chat: bool = True
    rated: bool = False
    speed: Speed | None = None
    rating_changes: list[RatingChange] = field(default_factory=list)
    unrated: str | None = None


@dataclass(frozen=True)
class GameSummary:
    """A line of the lobby: an open game to join, or a game in progress to watch. ``created``:
    when the game was created (server ms), which orders the lists (see ``Lobby``)."""

    id: str
    game_type: str
    time: TimeControl
    white: Seat | None
    black: Seat | None
    created: int = 0
    moves: int = 0
    spectators: int = 0
    creator_color: ColorChoice | None = None
    wants: Opponent = "anyone"
    challenge: Seat | None = None
    rated: bool = False
    rating_min: int | None = None
    rating_max: int | None = None


@dataclass(frozen=True)
class BotInfo:
    """A bot account ready to play (see ``BotReady``): what it accepts, how busy it is."""

    player: str
    name: str
    game_types: list[str]
    times: list[TimeKind]
    max_games: int
    playing: int = 0


@dataclass(frozen=True)
class SpeedRating:
    """A player's rating in one ``speed``: ``rating`` and its deviation ``rd`` (rounded),
    ``provisional`` while ``rd`` is high, and how many rated ``games`` made it."""

    speed: Speed
    rating: int
    rd: int
    provisional: bool
    games: int


@dataclass(frozen=True)
class RatingPoint:
    """A point of a rating's history: ``rating`` in ``speed`` after the game ended ``at``."""

    speed: Speed
    at: int
    rating: int


@dataclass(frozen=True)
class LevelRecord:
    """A player's record against one of the server's bot levels."""

    level: str
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class ArchivedGame:
    """A finished game in a player's profile, from that player's side: their ``color``, the
    ``opponent``'s name (and ``opponent_level`` for one of the server's bots), the
    opponent's rating then (None: none), the ``outcome`` (``win``, ``draw``, ``loss``),
    the game's ``reason``, the player's ``rating_change`` (None: not rated), ``plies``
    played and when it ``ended`` (server ms). ``/games/<id>.txt`` and review open it."""

    id: str
    game_type: str
    time: TimeControl
    rated: bool
    color: Color
    opponent: str
    opponent_level: str | None
    opponent_rating: int | None
    outcome: Literal["win", "draw", "loss"]
    reason: str
    rating_change: int | None
    plies: int
    ended: int


@dataclass(frozen=True)
class LeaderboardEntry:
    """A line of a leaderboard: the player's ``name`` and rating in its speed, how many
    rated ``games`` made it, and whether the player is a bot account."""

    name: str
    rating: int
    rd: int
    games: int
    bot: bool = False


# -- client -> server --------------------------------------------------------------------------


@client("hello")
@dataclass(frozen=True)
class Hello(Message):
    """The first message of a connection: a guest ``nickname``, or the ``token`` of an earlier
    session to resume it. Credentials travel here, never in the URL."""

    nickname: str | None = None
    token: str | None = None


@client("logout")
@dataclass(frozen=True)
class Logout(Message):
    """End this session (its token stops working), or with ``everywhere`` every session of
    this player. The connections of the sessions ended are closed with ``SIGNED_OUT``
    (4001), this one included."""

    everywhere: bool = False


@client("signup")
@dataclass(frozen=True)
class SignUp(Message):
    """Make this guest an account (after ``hello``): ``name`` (2-20 letters, digits, ``_``,
    ``-``; unique ignoring case; no bot's) and ``password`` (8 to 128 characters). The
    account keeps the guest's player id, so its games, and this session. Answered with
    ``account``."""

    name: str
    password: str


@client("login")
@dataclass(frozen=True)
class LogIn(Message):
    """Sign in to an account, instead of ``hello``: answered with ``welcome`` and a new
    session token. Attempts are limited per address and per address on one account (and slowed
    past a number on one account from everywhere: never refused for it)."""

    name: str
    password: str


@client("change_password")
@dataclass(frozen=True)
class ChangePassword(Message):
    """Change this account's password: every other session of it ends (this one goes on).
    Answered with ``account``."""

    old: str
    new: str


@client("ping")
@dataclass(frozen=True)
class Ping(Message):
    """Application-level ping; ``t`` (any number, e.g. the client's clock) comes back in Pong."""

    t: float = 0.0


@client("lobby")
@dataclass(frozen=True)
class WatchLobby(Message):
    """Receive the lobby lists now and whenever they change (``subscribe`` False: stop)."""

    subscribe: bool = True


@client("create")
@dataclass(frozen=True)
class CreateGame(Message):
    """Open a game. ``opponent``: ``anyone`` may join (people and bot accounts); ``bot`` seats
    one of the server's bots of ``level`` at once; ``bots``: only a bot account may join, and
    with ``challenge`` (a bot account's name) only that one. ``rated``: the game changes its
    players' ratings (only between accounts, with a clock or days per move; never against the
    server's bots). ``rating_min``/``rating_max``: only a player whose rating in the game's
    speed lies in this range may join an open game (a guest has none: it cannot)."""

    game_type: str = "Base+MLP"
    time: TimeControl = TimeControl()
    color: ColorChoice = "random"
    opponent: Opponent = "anyone"
    level: str | None = None
    challenge: str | None = None
    rated: bool = False
    rating_min: int | None = None
    rating_max: int | None = None


@client("bot_ready")
@dataclass(frozen=True)
class BotReady(Message):
    """A bot account says what it plays: these ``game_types``, time controls of these kinds
    (``times``), at most ``max_games`` at once. While it is connected it is listed in the
    lobby's ``bots``, and people may challenge it by name. Sent again, it replaces the last."""

    game_types: list[str]
    times: list[TimeKind] = field(default_factory=lambda: ["none", "clock", "days"])
    max_games: int = 1

    def __post_init__(self) -> None:
        if not self.game_types or not self.times:
            raise ValueError("a bot plays at least one game type and one kind of time control")
        if not 1 <= self.max_games <= MAX_BOT_GAMES:
            raise ValueError(f"max_games must lie in 1..{MAX_BOT_GAMES}")


@client("join")
@dataclass(frozen=True)
class JoinGame(Message):
    game: str


@client("cancel")
@dataclass(frozen=True)
class CancelGame(Message):
    game: str


@client("watch")
@dataclass(frozen=True)
class Watch(Message):
    """Follow a game (as a player after a reconnect, or as a spectator). With ``since``, the
    last version seen, the server sends exactly the events after it, or a snapshot when they
    are too old; without it, a snapshot."""

    game: str
    since: int | None = None


@client("unwatch")
@dataclass(frozen=True)
class Unwatch(Message):
    game: str


@client("play")
@dataclass(frozen=True)
class Play(Message):
    """Play ``move`` (a UHP MoveString, or ``pass``) in the position of ``version``."""

    game: str
    version: int
    move: str


@client("resign")
@dataclass(frozen=True)
class Resign(Message):
    game: str


@client("draw")
@dataclass(frozen=True)
class Draw(Message):
    """Offer a draw, or accept or decline the opponent's offer."""

    game: str
    action: DrawAction


@client("claim")
@dataclass(frozen=True)
class ClaimWin(Message):
    """Claim the win when the opponent has stayed disconnected past the limit."""

    game: str


@client("rematch")
@dataclass(frozen=True)
class Rematch(Message):
    """Offer a rematch of a finished game (colours swapped), or accept the opponent's offer."""

    game: str


@client("chat")
@dataclass(frozen=True)
class Chat(Message):
    game: str
    text: str


@client("mute")
@dataclass(frozen=True)
class Mute(Message):
    """Refuse ``player``'s chat lines in ``game`` from now on (``mute`` False: accept them
    again). Only the game's players may, and not themselves."""

    game: str
    player: str
    mute: bool = True


@client("spectator_chat")
@dataclass(frozen=True)
class SpectatorChat(Message):
    """Open (``open`` True) or close the game's chat to spectators. Only its players may; the
    players' own lines always go."""

    game: str
    open: bool


@client("profile")
@dataclass(frozen=True)
class GetProfile(Message):
    """Ask for the profile of the account ``name`` (any case): answered with ``profile``, its
    ``page`` of archived games (``PROFILE_PAGE`` a page, newest first; 0 the first)."""

    name: str
    page: int = 0


@client("leaderboard")
@dataclass(frozen=True)
class GetLeaderboard(Message):
    """Ask for the leaderboard of ``speed``: answered with ``leaderboard``."""

    speed: Speed


# -- server -> client --------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """What this server allows a connection (see ``Welcome``), from its settings.

    ``chat_length``: the longest chat line (characters). ``chat_burst`` lines at once, then one
    every ``chat_interval`` seconds on average. ``message_rate``: messages a second this
    connection may send on average, ``message_burst`` at once (a bot account's are higher).
    ``max_frame_bytes``: the largest frame it may send (a larger one closes it with 1009).
    ``max_watching``: games it may watch at once. ``nickname_length``: the longest nickname.
    ``first_move_timeout``: seconds each side has for its first move, with a clock or
    without one (with days per move the first moves have their days), before the game is
    aborted.
    """

    chat_length: int
    chat_interval: float
    chat_burst: int
    message_rate: float
    message_burst: int
    max_frame_bytes: int
    max_watching: int
    nickname_length: int
    first_move_timeout: float = 60.0


@server("welcome")
@dataclass(frozen=True)
class Welcome(Message):
    """The answer to ``hello``: who you are, and the token to resume this session later (keep it
    secret). ``games``: your games in progress, to watch again after a reconnect. ``bot``: this
    is a bot account (created by the server's operator); ``account``: a person's account
    (``signup``, ``login``), not a guest. ``limits``: what this server allows
    this connection; ``game_types``: every game type it plays (GameTypeStrings, spelled as it
    lists them); ``levels``: the levels of its own bots (``CreateGame.level``), weakest first.
    A client takes these from here rather than knowing them itself."""

    player: str
    nickname: str
    token: str
    server_time: int
    games: list[str] = field(default_factory=list)
    bot: bool = False
    account: bool = False
    limits: Limits = field(kw_only=True)
    game_types: list[str] = field(kw_only=True)
    levels: list[str] = field(kw_only=True)


@server("account")
@dataclass(frozen=True)
class Account(Message):
    """This connection's player is the account ``name`` (after ``signup`` or
    ``change_password``)."""

    player: str
    name: str


@server("pong")
@dataclass(frozen=True)
class Pong(Message):
    t: float
    server_time: int


@server("error")
@dataclass(frozen=True)
class Error(Message):
    """A request was refused and changed nothing. ``request``: the refused message's type."""

    code: ErrorCode
    message: str
    request: str | None = None
    game: str | None = None


@server("lobby")
@dataclass(frozen=True)
class Lobby(Message):
    """The lobby as it stands (sent on ``lobby``, and again to a client that fell behind):
    the open games (``LOBBY_SHOWN`` at most: those for bot accounts first, then the oldest),
    the games in progress (the newest ``LOBBY_SHOWN``), the bot accounts ready to play, and
    how many open games and games in progress there are in all. ``LobbyChange`` messages
    follow it."""

    open: list[GameSummary]
    live: list[GameSummary]
    bots: list[BotInfo] = field(default_factory=list)
    open_total: int = 0
    live_total: int = 0


@server("lobby_change")
@dataclass(frozen=True)
class LobbyChange(Message):
    """What changed in the lobby since the last ``Lobby`` or ``LobbyChange``: games added to
    or changed in the open list (``open``) or the list of games in progress (``live``; a game
    listed there leaves the open list), the ids of games no longer listed (``gone``), the bot
    accounts when they changed (``bots``, the whole list; None: unchanged), and the totals."""

    open: list[GameSummary] = field(default_factory=list)
    live: list[GameSummary] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    bots: list[BotInfo] | None = None
    open_total: int = 0
    live_total: int = 0


@server("update")
@dataclass(frozen=True)
class Update(Message):
    """A game changed: the ``events`` since the recipient's last version, in order, and the
    state after them. ``snapshot`` True: the events are not given (first look, or too old);
    the state stands alone."""

    game: str
    version: int
    events: list[Event]
    state: GameState
    snapshot: bool = False


@server("profile")
@dataclass(frozen=True)
class Profile(Message):
    """A player's profile (the answer to ``profile``): ``name`` as the account spells it,
    ``player`` id, a ``bot`` account or a person, when the account was ``created``; a
    rating per speed it played rated games in; its ``wins``, ``draws`` and ``losses`` over
    every archived game; its record against each of the server's bot ``levels``; the
    ``history`` of its ratings (oldest first: its newest 500 points); ``page`` of its
    ``games`` (newest first; past the last page, none), ``total_games`` in all. An aborted
    game (no result) is neither counted nor listed."""

    name: str
    player: str
    bot: bool
    created: int
    ratings: list[SpeedRating]
    wins: int
    draws: int
    losses: int
    levels: list[LevelRecord]
    history: list[RatingPoint]
    games: list[ArchivedGame]
    page: int
    total_games: int


@server("leaderboard")
@dataclass(frozen=True)
class Leaderboard(Message):
    """The leaderboard of ``speed``: at most ``LEADERBOARD_SHOWN`` players, highest rating
    first, whose rating is not provisional, who played a rated game of that speed within
    the last ``weeks`` weeks, and whose rated games of that speed were against at least
    ``opponents`` distinct opponents."""

    speed: Speed
    weeks: int
    players: list[LeaderboardEntry]
    opponents: int = 0


@server("presence")
@dataclass(frozen=True)
class Presence(Message):
    """Who is at a game, pushed to its watchers when it changes between updates (within a few
    seconds): the spectators, and each player's connection. ``white_gone``/``black_gone``:
    when that player's last connection closed (server time, ms; None: connected, or no such
    seat). A player may claim the win against an opponent gone ``claim_after`` ms or more."""

    game: str
    spectators: int
    white_gone: int | None = None
    black_gone: int | None = None
    claim_after: int = 0


# -- encoding ----------------------------------------------------------------------------------


def encode(message: Message) -> bytes:
    """The msgpack frame of ``message``: the same as packing ``to_plain(message)``, but msgpack
    walks the lists and the plain values itself and asks ``_plain`` only for the dataclasses
    and enums inside (a state holds a hundred small dataclasses and a thousand plain values)."""
    body = dict(_plain(message))
    body["type"] = message.TYPE
    packed: bytes = msgpack.packb(body, default=_plain)
    return packed


def _plain(value: Any) -> Any:
    """A dataclass as the dict of its fields (not converted further), an enum as its value."""
    names = _field_names(type(value))
    if names is not None:
        # A dataclass instance's __dict__ holds its fields in order (the messages have no
        # slots and set nothing else): msgpack reads it as it is, with no dict built.
        fields = getattr(value, "__dict__", None)
        if fields is not None and len(fields) == len(names):
            return fields
        return {name: getattr(value, name) for name in names}
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"cannot encode {type(value).__name__}")


def decode(frame: bytes | str, *, registry: dict[str, type[Message]] | None = None) -> Message:
    """The message in ``frame`` (by default one a client may send).

    ``MAX_TEXT`` and ``MAX_LIST`` bound what clients send; a server message (``registry``
    ``SERVER_MESSAGES``) may be as long as a game makes it.

    Raises:
        ProtocolError: BAD_MESSAGE or UNKNOWN_TYPE, with what is wrong.
    """
    if registry is None:
        registry = CLIENT_MESSAGES
    bounded = registry is not SERVER_MESSAGES
    if isinstance(frame, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "frames are binary msgpack, not text")
    try:
        body = msgpack.unpackb(frame, strict_map_key=True)
    except Exception as error:  # msgpack raises several unrelated types for bad input
        why = str(error) or type(error).__name__  # some say nothing (FormatError, StackError)
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"not msgpack: {why}") from None
    if not isinstance(body, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message is a map with a 'type' key")
    tag = body.pop("type", None)
    if not isinstance(tag, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a string 'type'")
    cls = registry.get(tag)
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {tag[:40]!r}")
    try:
        message = _from_wire(cls, body, tag, bounded)
    except (TypeError, ValueError) as error:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, str(error)) from None
    assert isinstance(message, Message)
    return message


def decode_server(frame: bytes) -> Message:
    """A message the server sent (for clients written in Python: tests, bots, the load bench)."""
    return decode(frame, registry=SERVER_MESSAGES)


_SCALARS: Final = frozenset({str, int, bool, float, bytes, type(None)})


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(cls: type) -> tuple[str, ...] | None:
    """The field names of a dataclass, or None for any other type (found once per type)."""
    try:
        return _FIELD_NAMES[cls]
    except KeyError:
        names = None
        if dataclasses.is_dataclass(cls):
            names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELD_NAMES[cls] = names
        return names


def to_plain(value: Any) -> Any:
    """``value`` with every dataclass made a dict of its fields and every enum its value
    (what msgpack packs). A state of a hundred legal moves is built of many small dataclasses,
    so each class's field names are looked up once."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    if cls is list:
        return [to_plain(item) for item in value]
    names = _field_names(cls)
    if names is not None:
        return {name: to_plain(getattr(value, name)) for name in names}
    if isinstance(value, enum.Enum):
        return value.value
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _from_wire(cls: type, body: dict[Any, Any], where: str, bounded: bool) -> object:
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [key for key in body if key not in fields]
    if unknown:
        raise ValueError(f"{where}: unknown field {str(unknown[0])[:40]!r}")
    values = {}
    for name, f in fields.items():
        if name in body:
            values[name] = _check(hints[name], body[name], f"{where}.{name}", bounded)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ValueError(f"{where}: missing field {name!r}")
    try:
        return cls(**values)
    except ValueError as error:  # a check of the class itself (TimeControl's ranges)
        raise ValueError(f"{where}: {error}") from None


def _check(hint: Any, value: Any, where: str, bounded: bool) -> Any:
    """``value`` as the type ``hint`` asks for; raises ValueError naming the field. ``bounded``:
    refuse strings and lists over ``MAX_TEXT`` and ``MAX_LIST``."""
    origin = get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        options = get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _check(option, value, where, bounded)
            except ValueError as error:
                errors.append(str(error))
        raise ValueError(errors[0] if len(errors) == 1 else f"{where}: unexpected {value!r:.40}")
    if origin is Literal:
        if value not in get_args(hint):
            choices = ", ".join(map(repr, get_args(hint)))
            raise ValueError(f"{where}: {value!r:.40} is not one of {choices}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list")
        if bounded and len(value) > MAX_LIST:
            raise ValueError(f"{where}: more than {MAX_LIST} items")
        (item,) = get_args(hint)
        return [_check(item, v, f"{where}[{i}]", bounded) for i, v in enumerate(value)]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected a map")
        return _from_wire(hint, value, where, bounded)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise ValueError(f"{where}: unknown value {value!r:.40}") from None
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where}: expected true or false")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where}: expected an integer")
        if abs(value) > MAX_INT:
            raise ValueError(f"{where}: {value} is out of range (integers lie within ±(2**53 - 1))")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{where}: expected a number")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{where}: expected a string")
        if bounded and len(value) > MAX_TEXT:
            raise ValueError(f"{where}: longer than {MAX_TEXT} characters")
        return value
    raise TypeError(f"{where}: no wire form for {hint!r}")  # a bug in this module


__all__ = [
    "CLIENT_MESSAGES",
    "LEADERBOARD_SHOWN",
    "LOBBY_SHOWN",
    "MAX_FRAME_BYTES",
    "MAX_WATCHING",
    "PROFILE_PAGE",
    "SERVER_MESSAGES",
    "SIGNED_OUT",
    "Account",
    "ArchivedGame",
    "BotInfo",
    "BotReady",
    "CancelGame",
    "ChangePassword",
    "Chat",
    "ClaimWin",
    "Clocks",
    "CreateGame",
    "Draw",
    "Error",
    "ErrorCode",
    "Event",
    "GameState",
    "GameSummary",
    "GetLeaderboard",
    "GetProfile",
    "Hello",
    "JoinGame",
    "Leaderboard",
    "LeaderboardEntry",
    "LegalMove",
    "LevelRecord",
    "Limits",
    "Lobby",
    "LobbyChange",
    "LogIn",
    "Logout",
    "Message",
    "Mute",
    "PieceAt",
    "Ping",
    "Play",
    "Pong",
    "Profile",
    "ProtocolError",
    "RatingChange",
    "RatingPoint",
    "Rematch",
    "Resign",
    "Seat",
    "SignUp",
    "SpectatorChat",
    "SpeedRating",
    "TimeControl",
    "Unwatch",
    "Update",
    "Watch",
    "WatchLobby",
    "Welcome",
    "decode",
    "decode_server",
    "encode",
]
