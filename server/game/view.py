"""What a client sees of a game: a ``Record`` and its ``hive.Game`` turned into the wire
``GameState`` (and the lobby's ``GameSummary``), with this process's view of who is connected
and watching."""

from __future__ import annotations

from collections.abc import Callable

from hive import PASS, Game, Layout
from hive.pieces import NAMES
from protocol import Clocks, Color, GameSummary, LegalMove, PieceAt, Seat
from protocol import GameState as StateMessage
from server.game.clock import clocks_started, time_left
from server.game.frozen import evolve
from server.game.rating import speed
from server.game.record import Record


def clocks(record: Record, now: int) -> Clocks:
    running: Color | None = None
    if record.status == "live" and record.time.kind != "none" and clocks_started(record):
        held = record.held is not None and record.held > now  # after a restart
        running = None if held else record.turn
    return Clocks(time_left(record, "white", now), time_left(record, "black", now), running)


# -- the state sent to clients -----------------------------------------------------------------


def state(
    record: Record,
    game: Game,
    now: int,
    *,
    spectators: int = 0,
    connected: Callable[[str], bool] = lambda player: False,
    legal: bool = True,
    layout: Layout | None = None,
) -> StateMessage:
    """What a client draws and plays from: ``game`` holds the record's moves; ``connected``
    tells whether a player has a connection (a bot always has). ``legal``: with the side to
    move's legal moves (see ``with_legal``); ``layout``: the game's, if already made."""
    layout = layout or game.layout()
    # NAMES[piece]: the piece's name from a tuple (``str(piece)`` reads the enum's name)
    pieces = [
        PieceAt(NAMES[piece], q, r, level) for piece, (q, r, level) in layout.positions.items()
    ]
    made = StateMessage(
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
        legal=[],
        hand_white=[NAMES[p] for p in game.hand(0)],
        hand_black=[NAMES[p] for p in game.hand(1)],
        result=record.result,
        reason=record.reason,
        draw_offer=record.draw_offer,
        rematch_offer=record.rematch_offer,
        rematch=record.rematch,
        spectators=spectators,
        chat=record.chat,
        muted=record.muted,
        spectator_chat=record.spectator_chat,
        rated=record.rated,
        speed=speed(record.time),
        rating_changes=record.rating_changes,
        unrated=record.unrated,
        takeback_offer=record.takeback_offer if record.status == "live" else None,
        tournament=record.tournament,
        tournament_name=record.tournament_name,
    )
    return with_legal(made, game, layout) if legal else made


def with_legal(made: StateMessage, game: Game, layout: Layout) -> StateMessage:
    """``made`` with the legal moves of the side to move, and whether it must pass: what the
    player to move is sent (the others are sent neither)."""
    if made.status != "live":
        return made
    legal: list[LegalMove] = []
    moves = game.legal_moves()
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
    return evolve(made, legal=legal, must_pass=moves == [PASS])


def to_move(record: Record) -> str | None:
    """The player to move in a game in progress (None: none is)."""
    seat = record.seat(record.turn) if record.status == "live" else None
    return None if seat is None else seat.player


def present(seat: Seat | None, connected: Callable[[str], bool]) -> Seat | None:
    """``seat`` with ``connected`` filled in (see ``seated``)."""
    if seat is None:
        return None
    shown = seated(seat, connected)
    return seat if seat.connected == shown else evolve(seat, connected=shown)


def seated(seat: Seat | None, connected: Callable[[str], bool]) -> bool:
    """Whether someone is in ``seat``: its player connected, or one of the server's bots
    (always there)."""
    return seat is not None and (seat.bot is not None or connected(seat.player))


def summary(record: Record, spectators: int) -> GameSummary:
    """The lobby's line of a game."""
    return GameSummary(
        record.id,
        record.game_type,
        record.time,
        record.white,
        record.black,
        record.created,
        len(record.moves),
        spectators,
        record.creator_color if record.status == "open" else None,
        record.wants,
        record.challenge,
        record.rated,
        record.rating_min,
        record.rating_max,
    )
