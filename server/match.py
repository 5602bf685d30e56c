"""A game on the server: its stored record, and every change to it, without any IO.

A ``Record`` is what Redis holds of a game: seats, time control, the moves as canonical UHP
MoveStrings, the clocks and the event version. Each change (``join``, ``play``, ``resign``...)
is a pure function from a record, a ``hive.Game`` of its moves and the time ``now`` (in
milliseconds) to a new record and the ``Event`` that describes the change, or a
``ProtocolError`` saying why it is refused. ``server.store`` commits the new record only if the
stored version is still the one the change was made on.

Clocks: with a clock (``base`` + ``increment``), the side to move's time runs from
``turn_started``; it starts with each side's second turn. The first moves have
``first_move_timeout`` each, whatever the time control (else the game is aborted); with
``days``, every move has that many days, the first ones too. Without a clock nothing else is
timed. A side whose time runs out loses (``timeout``) when the server notices: at its
next move, or when the deadline sweep comes round, whether or not anyone is connected.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final

from hive import PASS, Game, GameState, GameType, HiveError, Layout
from hive.hexes import NEIGHBORS
from hive.pieces import NAMES, QUEENS
from server.protocol import (
    Clocks,
    Color,
    ColorChoice,
    ErrorCode,
    Event,
    GameStatus,
    LegalMove,
    Opponent,
    PieceAt,
    ProtocolError,
    Result,
    Seat,
    TimeControl,
    to_plain,
)
from server.protocol import (
    GameState as StateMessage,
)

DAY_MS: Final = 86_400_000
CHAT_KEPT: Final = 50
"""Chat lines a game keeps in its record (a snapshot shows them)."""
MUTED_KEPT: Final = 100
"""Most players a game's players may mute in it."""

_RULE_ENDINGS: Final = frozenset({"queen", "both_queens", "repetition"})
"""Reasons a game ends by the rules (the engine's state says it too)."""
_RESULTS: Final[dict[GameState, Result]] = {
    GameState.WHITE_WINS: "WhiteWins",
    GameState.BLACK_WINS: "BlackWins",
    GameState.DRAW: "Draw",
}


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
        """The UHP GameString of the record, built from its fields (no replay of its moves).
        A game ended by the rules says how; any other ending leaves the engine's state
        (``InProgress``: UHP knows no resignation)."""
        ply = len(self.moves)
        state: str
        if self.reason in _RULE_ENDINGS and self.result is not None:
            state = self.result
        else:
            state = "InProgress" if ply else "NotStarted"
        turn = "White" if ply % 2 == 0 else "Black"
        return ";".join([f"{self.game_type};{state};{turn}[{ply // 2 + 1}]", *self.moves])

    def new_game(self) -> Game:
        """A ``hive.Game`` with this record's moves (trusted: they were checked when played)."""
        game = Game(self.game_type, repetition_draw=True)
        for move in self.moves:
            game.play_unchecked(move)
        return game


def other(color: Color) -> Color:
    return "black" if color == "white" else "white"


# -- creating and joining ----------------------------------------------------------------------


def canonical_type(text: str) -> str:
    """The game type ``text`` names, as stored and listed: ``"Base+PLM"`` is ``"Base+MLP"``.

    Raises:
        ProtocolError: BAD_MESSAGE for an unknown game type.
    """
    try:
        return str(GameType.parse(text))
    except HiveError as error:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, str(error)) from None


def create(
    game_id: str,
    creator: Seat,
    *,
    game_type: str,
    time: TimeControl,
    color: ColorChoice,
    now: int,
    ttl_ms: int,
    seed: int,
    wants: Opponent = "anyone",
    challenge: Seat | None = None,
    origin: str | None = None,
) -> Record:
    """A new open game, the creator seated on ``color`` (random: decided when someone joins);
    ``wants`` and ``challenge`` say who may join.

    Raises:
        ProtocolError: BAD_MESSAGE for an unknown game type.
    """
    record = Record(
        id=game_id,
        game_type=canonical_type(game_type),
        time=time,
        status="open",
        created=now,
        creator=creator.player,
        creator_color=color,
        seed=seed,
        expires=now + ttl_ms,
        wants=wants,
        challenge=challenge,
        origin=origin,
    )
    if color == "black":
        return replace(record, black=creator)
    return replace(record, white=creator)  # white, or random until someone joins


def join(record: Record, seat: Seat, now: int) -> tuple[Record, Event]:
    """``seat`` joins the open game, which starts.

    Raises:
        ProtocolError: NOT_OPEN, OWN_GAME, NOT_ALLOWED (the game is for a bot, or challenges
            another one).
    """
    if record.status != "open":
        raise ProtocolError(ErrorCode.NOT_OPEN, f"game {record.id} is not open ({record.status})")
    if seat.player == record.creator:
        raise ProtocolError(ErrorCode.OWN_GAME, "you cannot join a game you created")
    if record.challenge is not None and seat.player != record.challenge.player:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, f"this game challenges the bot {record.challenge.name}"
        )
    if record.wants == "bots" and seat.account != "bot":
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "this game is for a bot account")
    creator = record.white or record.black
    assert creator is not None
    creator_color: Color
    if record.creator_color == "random":
        creator_color = "white" if random.Random(record.seed).random() < 0.5 else "black"
    else:
        creator_color = record.creator_color
    white, black = (creator, seat) if creator_color == "white" else (seat, creator)
    clock = _initial_clock(record.time)
    version = record.version + 1
    started = replace(
        record,
        status="live",
        white=white,
        black=black,
        version=version,
        moved=version,
        clock_white=clock,
        clock_black=clock,
        turn_started=now,
        expires=None,
    )
    return started, Event(version, "joined", now, by=seat.name)


def _initial_clock(time: TimeControl) -> int | None:
    if time.kind == "clock":
        return time.base * 1000
    if time.kind == "days":
        return time.days * DAY_MS
    return None


# -- clocks ------------------------------------------------------------------------------------


def clocks_started(record: Record) -> bool:
    """Whether the clocks run: from each side's second turn (the first moves have
    ``first_move_timeout`` instead)."""
    return len(record.moves) >= 2


def time_left(record: Record, color: Color, now: int) -> int | None:
    """Milliseconds ``color`` has left at ``now`` (None: no clock)."""
    stored = record.clock_white if color == "white" else record.clock_black
    if stored is None:
        return None
    if record.status == "live" and record.turn == color and clocks_started(record):
        return max(0, stored - (now - record.turn_started))
    return stored


def clocks(record: Record, now: int) -> Clocks:
    running: Color | None = None
    if record.status == "live" and record.time.kind != "none" and clocks_started(record):
        running = record.turn
    return Clocks(time_left(record, "white", now), time_left(record, "black", now), running)


def deadline(record: Record, first_move_ms: int) -> int | None:
    """When the game changes by itself if nobody acts: an open game expires, a first move not
    made aborts the game, a flag falls. None: never."""
    if record.status == "open":
        return record.expires
    if record.status != "live":
        return None
    if not clocks_started(record):  # a first move not made aborts the game, whatever the clock
        if record.time.kind == "days":
            return record.turn_started + record.time.days * DAY_MS
        return record.turn_started + first_move_ms
    left = record.clock_white if record.turn == "white" else record.clock_black
    if left is None:
        return None
    return record.turn_started + left


def expire(record: Record, now: int, first_move_ms: int) -> tuple[Record, Event] | None:
    """The change a passed deadline makes (None: the deadline has not passed)."""
    due = deadline(record, first_move_ms)
    if due is None or now < due:
        return None
    if record.status == "open":
        return _end(record, now, None, "expired")
    if not clocks_started(record):
        return _end(record, now, None, "aborted")
    winner: Result = "BlackWins" if record.turn == "white" else "WhiteWins"
    return _end(record, now, winner, "timeout")


def cancel(record: Record, player: str, now: int) -> tuple[Record, Event]:
    """The creator of an open game cancels it.

    Raises:
        ProtocolError: NOT_YOUR_GAME (not its creator), NOT_OPEN.
    """
    if record.creator != player:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, "only its creator may cancel a game")
    if record.status != "open":
        raise ProtocolError(ErrorCode.NOT_OPEN, f"game {record.id} is {record.status}")
    return _end(record, now, None, "cancelled")


def _end(
    record: Record, now: int, result: Result | None, reason: str, *, moves: list[str] | None = None
) -> tuple[Record, Event]:
    version = record.version + 1
    ended = replace(
        record,
        status="over",
        result=result,
        reason=reason,
        version=version,
        moved=version,
        ended=now,
        expires=None,
        draw_offer=None,
        moves=record.moves if moves is None else moves,
        clock_white=time_left(record, "white", now),
        clock_black=time_left(record, "black", now),
    )
    return ended, Event(version, "over", now, by=result, text=reason)


# -- acting in a game --------------------------------------------------------------------------


def _require_live(record: Record, player: str) -> Color:
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if record.status == "over":
        raise ProtocolError(ErrorCode.GAME_OVER, f"game {record.id} is over ({record.reason})")
    if record.status != "live":
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"game {record.id} has not started")
    return color


def play(
    record: Record, game: Game, player: str, text: str, version: int, now: int, first_move_ms: int
) -> tuple[Record, Event]:
    """``player`` plays the MoveString ``text`` in the position of ``version``.

    ``game`` holds the record's moves; it is left as it was.

    Raises:
        ProtocolError: NOT_YOUR_GAME, GAME_OVER, STALE (the position changed since
            ``version``), NOT_YOUR_TURN, ILLEGAL_MOVE (with the engine's reason).
    """
    color = _require_live(record, player)
    if not record.moved <= version <= record.version:
        raise ProtocolError(
            ErrorCode.STALE,
            f"the move was made on version {version}; the game is at version {record.version} "
            f"(the position last changed at {record.moved})",
        )
    if record.turn != color:
        raise ProtocolError(ErrorCode.NOT_YOUR_TURN, f"it is {record.turn}'s turn")
    try:
        move = game.parse_move(text)
    except HiveError as error:
        raise ProtocolError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
    expired = expire(record, now, first_move_ms)
    if expired is not None:
        return expired
    spelled = game.move_string(move)
    game.push(move)
    try:
        state = game.state
        why = _why_over(game) if state.is_over else None
    finally:
        game.pop()
    moves = [*record.moves, spelled]
    if why is not None:  # a move event all the same; the state says how the game ended
        ended, _ = _end(record, now, _RESULTS[state], why, moves=moves)
        return ended, Event(ended.version, "move", now, by=color, text=spelled)
    version = record.version + 1
    changes: dict[str, object] = {}
    if record.time.kind != "none" and clocks_started(record):
        left = time_left(record, color, now)
        assert left is not None
        gain = record.time.increment * 1000 if record.time.kind == "clock" else 0
        if record.time.kind == "days":
            left, gain = record.time.days * DAY_MS, 0
        changes["clock_white" if color == "white" else "clock_black"] = left + gain
    moved = replace(
        record,
        moves=moves,
        version=version,
        moved=version,
        turn_started=now,
        draw_offer=None,
        **changes,  # type: ignore[arg-type]
    )
    return moved, Event(version, "move", now, by=color, text=spelled)


def _why_over(game: Game) -> str:
    """The reason a finished game ended by the rules."""
    if game.state is not GameState.DRAW:
        return "queen"  # the loser's Queen is surrounded
    hex_of, height = game.board.hex_of, game.board.height
    surrounded = sum(
        1 for q in QUEENS if hex_of[q] >= 0 and all(height[n] for n in NEIGHBORS[hex_of[q]])
    )
    return "both_queens" if surrounded == 2 else "repetition"


def resign(record: Record, player: str, now: int) -> tuple[Record, Event]:
    color = _require_live(record, player)
    return _end(record, now, "BlackWins" if color == "white" else "WhiteWins", "resign")


def draw(record: Record, player: str, action: str, now: int) -> tuple[Record, Event]:
    """Offer a draw, or accept or decline the opponent's offer.

    Raises:
        ProtocolError: NOT_ALLOWED when there is no offer to answer, or it is one's own.
    """
    color = _require_live(record, player)
    version = record.version + 1
    if action == "offer":
        if record.draw_offer == other(color):  # offering back accepts
            return _end(record, now, "Draw", "agreement")
        if record.draw_offer == color:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have already offered a draw")
        ply = len(record.moves)
        if (record.white_offered if color == "white" else record.black_offered) == ply:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED, "you offered a draw in this position: one offer a move"
            )
        if color == "white":
            record = replace(record, white_offered=ply)
        else:
            record = replace(record, black_offered=ply)
        return replace(record, draw_offer=color, version=version), Event(
            version, "draw_offer", now, by=color
        )
    if record.draw_offer != other(color):
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "there is no draw offer to answer")
    if action == "accept":
        return _end(record, now, "Draw", "agreement")
    return replace(record, draw_offer=None, version=version), Event(
        version, "draw_decline", now, by=color
    )


def claim(
    record: Record, player: str, now: int, gone_since: int | None, limit_ms: int
) -> tuple[Record, Event]:
    """``player`` claims the win: the opponent has been disconnected since ``gone_since`` (None:
    connected) for at least ``limit_ms``.

    Raises:
        ProtocolError: NOT_ALLOWED (the opponent is connected, or may still come back),
            NOT_YOUR_GAME, NOT_LIVE.
    """
    color = _require_live(record, player)
    if gone_since is None:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "your opponent is connected")
    if now - gone_since < limit_ms:
        left = (limit_ms - (now - gone_since)) / 1000
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, f"your opponent may still come back ({left:.0f} s)"
        )
    return _end(record, now, "WhiteWins" if color == "white" else "BlackWins", "abandoned")


def abandon(record: Record, player: str, now: int) -> tuple[Record, Event]:
    """``player`` has left a game against one of the server's bots for longer than allowed:
    the game is aborted if a side has not moved yet, else ``player`` loses (``abandoned``)."""
    color = _require_live(record, player)
    if not clocks_started(record):
        return _end(record, now, None, "aborted")
    return _end(record, now, "BlackWins" if color == "white" else "WhiteWins", "abandoned")


def rematch(
    record: Record, player: str, now: int, game_id: str, seed: int
) -> tuple[Record, Event, Record | None]:
    """``player`` asks for a rematch of a finished game: an offer, or, when the opponent has
    offered one (two offers are an agreement), the rematch itself. Returns the finished game
    after the request, its event, and the rematch (``game_id``, colours swapped) if it
    starts.

    Raises:
        ProtocolError: NOT_YOUR_GAME, NOT_ALLOWED (no result, already offered or started).
    """
    if rematch_accepted(record, player):
        old, new, event = start_rematch(record, game_id, now, seed)
        return old, event, new
    old, event = offer_rematch(record, player, now)
    return old, event, None


def offer_rematch(record: Record, player: str, now: int) -> tuple[Record, Event]:
    """Offer a rematch of a finished game (see ``rematch``, which starts it when the other side
    has offered one)."""
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if record.status != "over" or record.result is None:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "a rematch follows a finished game")
    if record.rematch is not None:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"the rematch is game {record.rematch}")
    if record.rematch_offer == color:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have already offered a rematch")
    version = record.version + 1
    return replace(record, rematch_offer=color, version=version), Event(
        version, "rematch_offer", now, by=color
    )


def rematch_accepted(record: Record, player: str) -> bool:
    """Whether ``player``'s rematch request accepts the opponent's offer."""
    color = record.color_of(player)
    return color is not None and record.rematch_offer == other(color)


def start_rematch(
    record: Record, game_id: str, now: int, seed: int
) -> tuple[Record, Record, Event]:
    """The finished game pointing to its rematch, the rematch (colours swapped, live), and the
    finished game's event."""
    assert record.white is not None and record.black is not None
    clock = _initial_clock(record.time)
    new = Record(
        id=game_id,
        game_type=record.game_type,
        time=record.time,
        status="live",
        created=now,
        creator=record.creator,
        creator_color="random",
        seed=seed,
        white=record.black,
        black=record.white,
        version=2,
        moved=2,
        clock_white=clock,
        clock_black=clock,
        turn_started=now,
        rematch_of=record.id,
        origin=record.origin,
        spectator_chat=record.spectator_chat,
    )
    version = record.version + 1
    old = replace(record, rematch=game_id, rematch_offer=None, version=version)
    return old, new, Event(version, "rematch", now, text=game_id)


def chat_line(text: str, max_length: int) -> str:
    """A chat line as said: stripped, not empty, at most ``max_length`` characters.

    Raises:
        ProtocolError: BAD_MESSAGE (an empty line), TOO_LONG.
    """
    text = text.strip()
    if not text:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "an empty chat line")
    if len(text) > max_length:
        raise ProtocolError(ErrorCode.TOO_LONG, f"chat lines are at most {max_length} characters")
    return text


def chat(record: Record, player: str, name: str, text: str, now: int) -> tuple[Record, Event]:
    """``player``, called ``name``, says ``text`` (a player or a spectator; see ``chat_line``).

    Raises:
        ProtocolError: NOT_ALLOWED when the game's players have muted ``player``, or closed the
            chat to spectators.
    """
    if player in record.muted:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you are muted in this game")
    if not record.spectator_chat and record.color_of(player) is None:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "the players have closed this game's chat to spectators"
        )
    version = record.version + 1
    event = Event(version, "chat", now, by=name, text=text, player=player)
    return replace(record, version=version, chat=[*record.chat[-CHAT_KEPT + 1 :], event]), event


def spectator_chat(record: Record, player: str, on: bool, now: int) -> tuple[Record, Event]:
    """A player of the game opens (``on``) or closes its chat to spectators; the event's
    ``text`` is ``open`` or ``closed``.

    Raises:
        ProtocolError: NOT_YOUR_GAME, NOT_ALLOWED (it is so already).
    """
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if record.spectator_chat == on:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, f"the chat is {'open' if on else 'closed'} to spectators already"
        )
    version = record.version + 1
    text = "open" if on else "closed"
    event = Event(version, "spectator_chat", now, by=color, text=text)
    return replace(record, version=version, spectator_chat=on), event


def chatter_name(record: Record, player: str) -> str | None:
    """The name ``player`` last chatted under in this game (None: no line of theirs is kept)."""
    for event in reversed(record.chat):
        if event.player == player:
            return event.by
    return None


def mute(record: Record, player: str, target: str, on: bool, now: int) -> tuple[Record, Event]:
    """``player`` mutes (``on``) or unmutes ``target``; the event names ``target`` by the name
    of their last chat line here.

    Only someone whose chat lines the game keeps may be muted, so that a mute publishes the
    name of nobody who has not chatted in the game; anyone muted may be unmuted.

    Raises:
        ProtocolError: NOT_YOUR_GAME (``player`` does not play here), NOT_ALLOWED (muting
            oneself, muting twice, unmuting someone not muted, too many muted), BAD_MESSAGE
            (nobody of that id chatted here).
    """
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if target == player:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot mute yourself")
    if on and chatter_name(record, target) is None:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"nobody {target[:40]!r} chatted in this game")
    name = chatter_name(record, target) or "a player"  # an unmute once their lines are gone
    if on and target in record.muted:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{name} is already muted")
    if not on and target not in record.muted:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{name} is not muted")
    if on and len(record.muted) >= MUTED_KEPT:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"at most {MUTED_KEPT} players are muted")
    muted = [*record.muted, target] if on else [p for p in record.muted if p != target]
    seat = record.seat(color)
    assert seat is not None
    version = record.version + 1
    event = Event(version, "mute" if on else "unmute", now, by=seat.name, text=name, player=target)
    return replace(record, version=version, muted=muted), event


# -- the state sent to clients -----------------------------------------------------------------


def state(
    record: Record,
    game: Game,
    now: int,
    *,
    spectators: int = 0,
    connected: Callable[[str], bool] = lambda player: False,
) -> StateMessage:
    """What a client draws and plays from: ``game`` holds the record's moves; ``connected``
    tells whether a player has a connection (a bot always has)."""
    layout: Layout = game.layout()
    pieces = [PieceAt(str(piece), q, r, level) for piece, (q, r, level) in layout.positions.items()]
    legal: list[LegalMove] = []
    must_pass = False
    if record.status == "live":
        moves = game.legal_moves()
        must_pass = moves == [PASS]
        for move, text in zip(moves, game.move_strings(moves), strict=True):
            source, target = layout.endpoints(move)
            if target is None:  # the pass has no hexes
                continue
            legal.append(
                LegalMove(
                    text,
                    NAMES[move.piece],
                    None if source is None else source[0],
                    None if source is None else source[1],
                    target[0],
                    target[1],
                )
            )
    return StateMessage(
        id=record.id,
        game_type=record.game_type,
        status=record.status,
        white=present(record.white, connected),
        black=present(record.black, connected),
        time=record.time,
        version=record.version,
        # the record's MoveStrings are canonical (spelled when played): no replay to spell them
        game_string=";".join([game.game_string_head(), *record.moves]),
        moves=record.moves,
        turn=record.turn,
        clocks=clocks(record, now),
        pieces=pieces,
        legal=legal,
        hand_white=[str(p) for p in game.hand(0)],
        hand_black=[str(p) for p in game.hand(1)],
        must_pass=must_pass,
        result=record.result,
        reason=record.reason,
        draw_offer=record.draw_offer,
        rematch_offer=record.rematch_offer,
        rematch=record.rematch,
        spectators=spectators,
        chat=record.chat,
        muted=record.muted,
        spectator_chat=record.spectator_chat,
    )


def present(seat: Seat | None, connected: Callable[[str], bool]) -> Seat | None:
    """``seat`` with ``connected`` filled in (a bot is always connected)."""
    if seat is None:
        return None
    return replace(seat, connected=seat.bot is not None or connected(seat.player))


def to_dict(record: Record) -> dict[str, Any]:
    plain: dict[str, Any] = to_plain(record)
    return plain


def from_dict(data: dict[str, Any]) -> Record:
    """A record as stored (trusted: only the server writes it)."""
    values = dict(data)
    values["time"] = TimeControl(**values["time"])
    for color in ("white", "black"):
        if values[color] is not None:
            values[color] = Seat(**values[color])
    if values.get("challenge") is not None:
        values["challenge"] = Seat(**values["challenge"])
    values["chat"] = [Event(**e) for e in values["chat"]]
    return Record(**values)
