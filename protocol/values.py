"""The values inside messages (both ways): a seat, a time control, a game's state, a
profile's rows. None is a message on its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from protocol.common import (
    AccountKind,
    Color,
    ColorChoice,
    GameStatus,
    Opponent,
    Result,
    Speed,
    TimeKind,
)


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


@dataclass
class PieceAt:
    """A piece on the board at axial ``(q, r)``; ``height`` 0 on the ground, 1 on top of one
    piece, and so on (``hive.Layout``'s level).

    Not frozen, as ``LegalMove``: a state holds a list of them (the list itself is never
    frozen), made afresh for every change, and a frozen dataclass's ``__init__`` sets each
    field through ``object.__setattr__`` (four times as long). Nothing changes one once made."""

    piece: str
    q: int
    r: int
    height: int


@dataclass
class LegalMove:
    """A legal move of the side to move: its UHP MoveString, the piece, where it comes from
    (``from_q``/``from_r`` None for a piece in hand) and its destination hex.

    Not frozen: the server makes some 60 of them for each change, to the player to move (see
    ``PieceAt``)."""

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
    ``text`` says why, as the state's ``unrated``), ``takeback_offer`` (``by`` the side asking),
    ``takeback_decline`` (``by`` the side declining), ``takeback`` (``by`` the asker; ``text``
    the plies taken back, ``1`` or ``2``).
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
    ``unrated`` event's text; None otherwise). ``takeback_offer``: the side asking to take back
    its last move (``Takeback``; None: nobody). ``tournament``, ``tournament_name``: the
    tournament it is a game of (None: an ordinary game).
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
    takeback_offer: Color | None = None
    tournament: str | None = None
    tournament_name: str | None = None


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
    played and when it ``ended`` (server ms); the ``tournament`` it was a game of (None:
    none) and that tournament's name once it ended (``tournament_name``; None meanwhile).
    ``/games/<id>.txt`` and review open it."""

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
    tournament: str | None = None
    tournament_name: str | None = None


@dataclass(frozen=True)
class LeaderboardEntry:
    """A line of a leaderboard: the player's ``name`` and rating in its speed, how many
    rated ``games`` made it, and whether the player is a bot account."""

    name: str
    rating: int
    rd: int
    games: int
    bot: bool = False


@dataclass(frozen=True)
class EngineLine:
    """One of the best moves an engine run found at a depth: its MoveString, its ``score``
    (the side to move's view, in the search's units; ``WIN_SCORE - n`` and below: a win
    proved ``n`` plies ahead, its negative a loss), the side to move's ``chance`` of winning
    with it (0 to 1), and the principal variation ``pv`` (``move`` first; it may stop short
    of the depth)."""

    move: str
    score: int
    chance: float
    pv: list[str]


@dataclass(frozen=True)
class OnlinePlayer:
    """A person's account connected now (``online``): ``name``, ``player`` id, ``rating`` in
    the speed it played most rated games in (``speed``; None: no rated game yet), and
    whether it is ``playing`` a game now."""

    name: str
    player: str
    rating: int | None = None
    speed: Speed | None = None
    playing: bool = False


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of a game's computer analysis (``GameAnalysis``), as ``ai.review`` judges it.

    ``ply``: the move's index (0 the first move; the position after it is ``ply + 1``).
    ``move``: the move played; ``best``: the best move found there (MoveStrings).
    ``best_score`` and ``played_score``: the search's scores of the best move and of the move
    played (the mover's view; a proved win or loss is 900000 or more, or its negation).
    ``chance``/``played_chance``: the mover's winning chance (0..1) with the best move and
    after the move played. ``mark``: ``inaccuracy``, ``mistake``, ``blunder`` or None, by the
    drop from one chance to the other (0.05, 0.10, 0.15). ``accuracy``: the move's (0..100).
    ``best_from``/``best_to``: the best move's hexes ``[q, r]`` in the coordinates of the
    review's positions (``/games/ID/positions.json``), for an arrow (``best_from`` None: a
    placement; both None: a pass)."""

    ply: int
    move: str
    best: str
    best_score: int
    played_score: int
    chance: float
    played_chance: float
    mark: Literal["inaccuracy", "mistake", "blunder"] | None
    accuracy: float
    best_from: list[int] | None = None
    best_to: list[int] | None = None


@dataclass(frozen=True)
class PlayerAnalysis:
    """One player's figures in a game's computer analysis: the moves marked, and the accuracy
    (0..100; None: no move)."""

    inaccuracies: int
    mistakes: int
    blunders: int
    accuracy: float | None


@dataclass(frozen=True)
class SpeedAccuracy:
    """A player's average accuracy over their analysed games of one ``speed`` (None: games
    without a clock), and how many ``games`` that is."""

    speed: Speed | None
    accuracy: float
    games: int


@dataclass(frozen=True)
class PuzzleRating:
    """A player's puzzle rating (shown with "?" while ``provisional``), their rated ``tries``
    (a player's first try of each puzzle), those ``solved``, and the ``streak`` of rated
    tries solved in a row."""

    rating: int
    provisional: bool
    tries: int
    solved: int
    streak: int


@dataclass(frozen=True)
class PuzzleTry:
    """A rated try of ``puzzle`` (its ``theme``): ``solved`` or not, the player's ``rating``
    after it and its ``change``, when (``at``, milliseconds)."""

    puzzle: int
    theme: str
    solved: bool
    rating: int
    change: int
    at: int


TournamentKind = Literal["arena", "swiss"]


@dataclass(frozen=True)
class PlayerTournament:
    """An ended tournament in a player's profile: its ``id`` (its page), ``name`` and
    ``kind``, the player's ``rank`` (from 1) of its ``players``, their ``points``, and when it
    ``ended`` (server ms)."""

    id: str
    name: str
    kind: TournamentKind
    rank: int
    players: int
    points: float
    ended: int
