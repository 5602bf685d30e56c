"""A game as the server keeps it: the ``Record`` stored in Redis (``server.storage.codec``
packs it), changed only by the rules in ``server.game.match`` and shown to clients through
``server.game.view``."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from hive import Board, Game
from protocol import (
    Color,
    ColorChoice,
    Event,
    GameStatus,
    Opponent,
    RatingChange,
    Result,
    Seat,
    TimeControl,
)

GAME_ID: Final = re.compile(r"[0-9a-z]{8}")
"""What may be a game's id: eight lowercase letters or digits (``new_game_id`` makes
hexadecimal ones; one in 43 of those is digits only)."""


SCRATCH: Final = Board()
"""The lists every game the server replays shares, never played on itself: its scratch lists
(``Board.share_scratch``) and its stacks' (``Board.share_stacks``: a game's board must
``hold`` them before each use). The server's games are used in its one thread, one at a time,
and without it each cached game would carry 40 KiB of lists indexed by hex, and the
articulation points of every shape it went through."""


def new_game_id() -> str:
    """A new game's id, random (``GAME_ID``)."""
    return secrets.token_hex(4)


_RULE_ENDINGS: Final = frozenset({"queen", "both_queens", "repetition"})
"""Reasons a game ends by the rules (the engine's state says it too)."""


@dataclass(frozen=True)
class Record:
    """A game as stored. Times are server wall-clock milliseconds.

    Attributes:
        moved: The version of the last event that changed the position or the outcome: a move
            made on any version from ``moved`` to ``version`` is current (chat does not make
            a move stale).
        clock_white, clock_black: Milliseconds left at the start of the current turn (None:
            no clock; with ``days``, the time per move).
        turn_started: When the side to move's turn began.
        muted: The ids of the players whose chat lines are refused in this game.
        wants: Who may join an open game: ``anyone``, or ``bots`` (bot accounts only).
        challenge: The one bot account that may join (a challenge by name).
        origin: A keyed hash of the address the game was created from (never the address
            itself): limits per address count open games and games against bots by it.
        spectator_chat: Whether spectators may chat (either player may close it).
        white_offered, black_offered: The ply at which each side last offered a draw (-1:
            never): one offer a move.
        rated: The game changes its players' ratings (chosen at creation).
        rating_min, rating_max: Who may join the open game: a player whose rating in its
            speed lies in this range (None: no bound).
        rating_changes: What the finished rated game did to its players' ratings, once the
            archive has rated it (the ``rated`` event).
        unrated: Why the finished game, chosen rated, changed no rating, once the archive
            has found so (the ``unrated`` event): not fought, or one too many of its pair's
            in a day (``server.archive.ratings``).
        takeback_offer: The side that asks to take back its last move (None: nobody asks);
            ``server.game.takebacks`` decides.
        white_takebacks, black_takebacks: How many takebacks each side has asked for here.
        clocks_before: Both sides' clocks (``[white, black]``) at the start of each of the
            last two turns (at most two: what a takeback puts back).
        held: Until when the side to move's clock waits for its player after a restart
            (``server.game.holds``; None: it does not wait). Meanwhile ``turn_started`` lies
            that far ahead, less what the turn had used before.
        tournament: The tournament whose director made the game (None: an ordinary game);
            the archive keeps it with the game. ``tournament_name``: its name, shown with
            the game.
    """

    id: str
    game_type: str
    time: TimeControl
    status: GameStatus
    created: int
    creator: str
    creator_color: ColorChoice
    seed: int
    white: Seat | None = None
    black: Seat | None = None
    moves: list[str] = field(default_factory=list)
    version: int = 1
    moved: int = 1
    clock_white: int | None = None
    clock_black: int | None = None
    turn_started: int = 0
    result: Result | None = None
    reason: str | None = None
    draw_offer: Color | None = None
    rematch_offer: Color | None = None
    rematch: str | None = None
    rematch_of: str | None = None
    expires: int | None = None
    ended: int | None = None
    chat: list[Event] = field(default_factory=list)
    muted: list[str] = field(default_factory=list)
    wants: Opponent = "anyone"
    challenge: Seat | None = None
    origin: str | None = None
    spectator_chat: bool = True
    white_offered: int = -1
    black_offered: int = -1
    rated: bool = False
    rating_min: int | None = None
    rating_max: int | None = None
    rating_changes: list[RatingChange] = field(default_factory=list)
    unrated: str | None = None
    takeback_offer: Color | None = None
    white_takebacks: int = 0
    black_takebacks: int = 0
    clocks_before: list[list[int | None]] = field(default_factory=list)
    held: int | None = None
    tournament: str | None = None
    tournament_name: str | None = None

    @property
    def turn(self) -> Color:
        return "white" if len(self.moves) % 2 == 0 else "black"

    def seat(self, color: Color) -> Seat | None:
        return self.white if color == "white" else self.black

    def color_of(self, player: str) -> Color | None:
        """The colour ``player`` plays here (None: not a player of this game)."""
        if self.white is not None and self.white.player == player:
            return "white"
        if self.black is not None and self.black.player == player:
            return "black"
        return None

    def players(self) -> list[str]:
        return [seat.player for seat in (self.white, self.black) if seat is not None]

    def opponent_of(self, player: str) -> Seat | None:
        """The seat across from ``player`` (None: not a player here, or nobody there yet)."""
        color = self.color_of(player)
        return None if color is None else self.seat(other(color))

    def bot_opponent(self) -> Seat | None:
        """The seat of the server's bot when one plays here against a person, else None."""
        white, black = self.white, self.black
        if white is None or black is None or (white.bot is None) == (black.bot is None):
            return None
        return white if white.bot is not None else black

    def game_string(self) -> str:
        """The UHP GameString of the record (see ``game_string``)."""
        return game_string(self.game_type, self.moves, self.result, self.reason)

    def new_game(self) -> Game:
        """A ``hive.Game`` with this record's moves (trusted: they were checked when played),
        on the shared lists (``SCRATCH``): its board holds them when this returns, and must
        ``hold`` them again before a later use."""
        game = Game(self.game_type, repetition_draw=True)
        game.board.share_scratch(SCRATCH)
        game.board.share_stacks(SCRATCH)
        for move in self.moves:
            game.play_unchecked(move)
        return game


def other(color: Color) -> Color:
    return "black" if color == "white" else "white"


def game_string(
    game_type: str, moves: Sequence[str], result: str | None, reason: str | None
) -> str:
    """The UHP GameString of a game, built from its fields (no replay of its ``moves``). A game
    ended by the rules says how; any other ending leaves the engine's state (``InProgress``:
    UHP knows no resignation)."""
    ply = len(moves)
    state: str
    if reason in _RULE_ENDINGS and result is not None:
        state = result
    else:
        state = "InProgress" if ply else "NotStarted"
    turn = "White" if ply % 2 == 0 else "Black"
    return ";".join([f"{game_type};{state};{turn}[{ply // 2 + 1}]", *moves])
