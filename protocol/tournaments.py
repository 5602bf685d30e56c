"""Tournaments on the wire (arena, lichess's format): what a client sends to make, find,
join, leave and watch one, and what the server sends back, each registered like every other
message (``client``, ``server``). The rules of an arena are ``server.game.arena``'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from protocol.common import TOURNAMENT_PLAYERS, Message, client, server
from protocol.values import TimeControl, TournamentKind

TOURNAMENT_NAME: Final = 40
"""The longest tournament name (characters)."""
TOURNAMENT_MINUTES: Final = (5, 24 * 60)
"""The shortest and longest duration of an arena, in minutes."""
TOURNAMENT_START: Final = 7 * 24 * 3600 * 1000
"""How far ahead a tournament may start (ms)."""
PROFILE_TOURNAMENTS: Final = 20
"""The ended tournaments a profile lists (the newest)."""
TOURNAMENTS_SHOWN: Final = 50
"""Tournaments listed by ``tournaments`` (upcoming and running, then the last ended)."""

SWISS_ROUNDS: Final = (3, 15)
"""The fewest and most rounds of a Swiss tournament."""

TournamentStatus = Literal["upcoming", "running", "over"]
PlayerStatus = Literal["waiting", "playing", "paused"]


@client("tournament_create")
@dataclass(frozen=True)
class CreateTournament(Message):
    """Make a tournament (an account only): ``name``, its games' ``game_type``, ``time`` (a
    clock) and ``rated``, when it ``starts`` (server time, ms; 0: now) and, for an arena, for
    how many ``minutes`` it runs, for a Swiss (``kind``) how many ``rounds`` it has, an
    optional rating range (``rating_min``, ``rating_max``: who may join, by their rating in
    its speed) and ``max_players``. Answered with ``tournament``."""

    name: str
    game_type: str = "Base+MLP"
    time: TimeControl = TimeControl("clock", 180, 2)
    rated: bool = True
    starts: int = 0
    minutes: int = 60
    rating_min: int | None = None
    rating_max: int | None = None
    max_players: int = TOURNAMENT_PLAYERS
    kind: TournamentKind = "arena"
    rounds: int = 7


@client("tournaments")
@dataclass(frozen=True)
class GetTournaments(Message):
    """The tournaments upcoming and running, and the last ended: answered with
    ``tournaments``."""


@client("tournament_join")
@dataclass(frozen=True)
class JoinTournament(Message):
    """Join ``tournament`` (an account only; within its rating range and cap), or come back
    to it after ``tournament_leave``: answered with ``tournament``."""

    tournament: str


@client("tournament_leave")
@dataclass(frozen=True)
class LeaveTournament(Message):
    """Leave ``tournament``: before it starts, off its list; while it runs, paused (no new
    game; the points kept; ``tournament_join`` resumes). Answered with ``tournament``."""

    tournament: str


@client("tournament_watch")
@dataclass(frozen=True)
class WatchTournament(Message):
    """Receive ``tournament`` now and whenever its standings change (``subscribe`` False:
    stop). Its players receive it without asking."""

    tournament: str
    subscribe: bool = True


@dataclass(frozen=True)
class Standing:
    """A player's line in the standings: ``points``, ``scores`` (each game's, in order: in
    an arena ``2`` a win, ``1`` a draw, ``0`` a loss, doubled on a streak; in a Swiss 1,
    0.5, 0, and 1 for a bye), ``streak`` (an arena's: the next win counts double),
    ``status``, the ``game`` they play now, and a Swiss's ``byes`` and tie-breaks
    (``buchholz``, ``sonneborn_berger``)."""

    player: str
    name: str
    rating: int | None
    points: float
    scores: list[float] = field(default_factory=list)
    streak: bool = False
    status: PlayerStatus = "waiting"
    game: str | None = None
    byes: int = 0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0


@dataclass(frozen=True)
class TournamentSummary:
    """A tournament as listed: its settings, status and number of players; a Swiss's
    ``rounds`` and the ``round`` being played (0: none yet)."""

    id: str
    name: str
    creator: str
    game_type: str
    time: TimeControl
    rated: bool
    starts: int
    ends: int
    status: TournamentStatus
    players: int
    max_players: int
    rating_min: int | None = None
    rating_max: int | None = None
    kind: TournamentKind = "arena"
    rounds: int = 0
    round: int = 0


@server("tournament")
@dataclass(frozen=True)
class Tournament(Message):
    """A tournament and its standings (best first: points, then rating), with ``winner``
    once it is over; sent on each change to its players and watchers."""

    summary: TournamentSummary
    standings: list[Standing]
    winner: str | None = None


@server("tournaments")
@dataclass(frozen=True)
class TournamentList(Message):
    """The answer to ``tournaments``: upcoming and running (soonest first), then the last
    ended (newest first)."""

    tournaments: list[TournamentSummary]


@server("tournament_game")
@dataclass(frozen=True)
class TournamentGame(Message):
    """The arena paired you: ``game`` (already in progress, its clocks running) between
    ``white`` and ``black`` (player ids). Send ``watch`` to play it."""

    tournament: str
    game: str
    white: str
    black: str
