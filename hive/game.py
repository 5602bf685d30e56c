"""The game: position, move stack, legal moves, outcome, hash and GameStrings."""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum
from typing import TYPE_CHECKING, Final, NamedTuple

from hive import movegen, notation
from hive.board import EMPTY, HAND, Board
from hive.errors import HiveError, IllegalMoveError, InvalidGameStringError, InvalidMoveError
from hive.hashing import BLACK_KEY, STUNNED_KEYS, game_type_key, kind_key, piece_key
from hive.hexes import CELLS, NEIGHBORS, axial
from hive.layout import Layout
from hive.pieces import (
    BASE,
    BUG_COUNTS,
    BUG_OF,
    COLOR_OF,
    FIRST_OF,
    MEMBERS,
    NAMES,
    NUM_PIECES,
    Bug,
    Color,
    GameType,
    Piece,
)

if TYPE_CHECKING:  # the compiled build's fixed-width integers; plain ints when run as Python
    from mypy_extensions import i64


class GameState(Enum):
    NOT_STARTED = "NotStarted"
    IN_PROGRESS = "InProgress"
    DRAW = "Draw"
    WHITE_WINS = "WhiteWins"
    BLACK_WINS = "BlackWins"

    def __str__(self) -> str:
        return self.value

    @property
    def is_over(self) -> bool:
        return self in (GameState.DRAW, GameState.WHITE_WINS, GameState.BLACK_WINS)


class Move(NamedTuple):
    """A move: ``piece`` goes from hex ``source`` (``HAND`` for a placement) to ``destination``.

    Hexes are the board's integer-coded hexes of a wrapping grid (``hive.hexes``). A move alone
    has no history, so its ``repr`` shows them as wrapped axial coordinates, which need not be
    where the pieces are in the game's plain coordinates: ``Game.layout().endpoints(move)`` gives
    those. Two moves of one position are the same move exactly when piece and destination
    agree. The pass is ``PASS``, the move with ``piece == -1``.
    """

    piece: int
    source: int
    destination: int

    @property
    def is_pass(self) -> bool:
        return self.piece < 0

    @property
    def is_placement(self) -> bool:
        return self.source == HAND and self.piece >= 0

    def __repr__(self) -> str:
        """The constructor form with named pieces and hexes, e.g.
        ``Move(Piece.wA1, hex_at(0, 1), hex_at(2, -1))`` or ``Move(Piece.wQ, HAND, hex_at(1, 0))``;
        ``PASS`` for the pass."""
        if self.is_pass:
            return "PASS"
        try:
            piece = f"Piece.{Piece(self.piece).name}"
        except ValueError:  # not one of the 28 pieces: a move built by hand
            piece = repr(self.piece)
        return f"Move({piece}, {_hex_repr(self.source)}, {_hex_repr(self.destination)})"


def _hex_repr(h: int) -> str:
    if h == HAND:
        return "HAND"
    q, r = axial(h)
    return f"hex_at({q}, {r})"


PASS: Final = Move(-1, HAND, HAND)
"""The pass: legal only when the side to move has no other move."""

_MADE: Final[list[Move | None]] = [None] * (NUM_PIECES * CELLS)
"""The last move made of each piece to each hex (``piece * CELLS + destination``): a search
meets the same moves in position after position, and reusing them spares building them."""


def _move(piece: i64, source: i64, destination: i64) -> Move:
    """``Move(piece, source, destination)``, the one made before when it is the same."""
    index: i64 = piece * CELLS + destination
    move = _MADE[index]
    if move is None or move.source != source:
        move = _MADE[index] = Move(piece, source, destination)
    return move


_WHITE_QUEEN: Final = 0
_BLACK_QUEEN: Final = 14
assert FIRST_OF[0][Bug.QUEEN] == _WHITE_QUEEN and FIRST_OF[1][Bug.QUEEN] == _BLACK_QUEEN

_TURN_RE: Final = re.compile(r"(White|Black)\[(\d+)\]")


class Game:
    """A game of Hive: the position, how it was reached, and the rules.

    ``push``/``pop`` are trusted and fast, for search; ``play`` reads a MoveString, checks it
    and raises ``InvalidMoveError`` or ``IllegalMoveError`` with the reason. ``game_string``,
    ``layout`` and ``positions`` only read the game: they replay its moves on a scratch board.

    Args:
        game_type: Which expansion pieces are in play: a ``GameType`` or its name
            (``"Base+MLP"``); a bad name raises ``InvalidGameStringError``.
        repetition_draw: Whether a position occurring for the third time draws (off by
            default, as in Mzinga and UHP). Positions are told apart as ``repetition_key`` does:
            by the stacks' pieces' colours and bugs, not their numbers. Fixed for the game: only
            then does it count the positions.

    Attributes:
        game_type: The ``GameType``.
        board: The position (see ``Board``); read it, but change it only through the game.
        ply: Moves played so far (passes included).
        moves: The moves played, first first.
        last_moved: The piece moved last (it may not move, nor be thrown, this turn); -1 when
            none or after a pass.
        state: The ``GameState``.
        hash: The Zobrist hash of the position: the stacks, the side to move and the game type
            (``hive.hashing``). Equal positions of one game type hash alike.
        kind_hash: The same of the position with pieces told apart by colour and bug only:
            ``wB1`` and ``wB2`` swapped hash alike (``hive.hashing``).
        pieces: The pieces of both players that the game type uses, in piece order.
    """

    def __init__(self, game_type: GameType | str = BASE, *, repetition_draw: bool = False) -> None:
        if isinstance(game_type, str):
            game_type = GameType.parse(game_type)
        self.game_type = game_type
        self.repetition_draw = repetition_draw
        self.board = Board()
        self.ply = 0
        self.moves: list[Move] = []
        self.last_moved = -1
        self.state = GameState.NOT_STARTED
        self.hash = self.kind_hash = game_type_key(game_type)
        self._undo: list[tuple[int, GameState, int, int]] = []
        self._legal: list[Move] | None = None  # this position's legal moves, once generated
        self._seen: dict[int, int] = {self.kind_hash: 1}  # repetition keys, when counted
        bugs = game_type.bugs
        self._bug_pieces = tuple(
            tuple(
                tuple(range(FIRST_OF[c][b], FIRST_OF[c][b] + BUG_COUNTS[b]))
                for b in Bug
                if b in bugs
            )
            for c in (0, 1)
        )
        self.pieces = tuple(p for p in range(NUM_PIECES) if game_type.has_piece(p))

    # -- position ------------------------------------------------------------------------------

    @property
    def turn(self) -> Color:
        """The side to move."""
        return Color(self.ply & 1)

    @property
    def turn_number(self) -> int:
        """The side to move's turn, from 1 (UHP's ``White[3]``)."""
        return self.ply // 2 + 1

    def is_over(self) -> bool:
        return self.state.is_over

    def copy(self) -> Game:
        """An independent game with the same moves, options and position: the board's lists
        are copied, not replayed. ``copy.copy`` and ``copy.deepcopy`` do the same."""
        game = type(self).__new__(type(self))
        game.game_type = self.game_type
        game.repetition_draw = self.repetition_draw
        game.board = self.board.copy()
        game.ply = self.ply
        game.moves = self.moves.copy()
        game.last_moved = self.last_moved
        game.state = self.state
        game.hash = self.hash
        game.kind_hash = self.kind_hash
        game._undo = self._undo.copy()
        game._legal = self._legal
        game._seen = self._seen.copy()
        game._bug_pieces = self._bug_pieces
        game.pieces = self.pieces
        return game

    def __copy__(self) -> Game:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        return self.copy()

    def next_in_hand(self, color: int) -> list[Piece]:
        """The lowest-numbered piece of each bug the player still has in hand (``wS1`` before
        ``wS2``), in bug order: the pieces that player may place, rules of the turn aside."""
        return [MEMBERS[p] for p in self._next_in_hand(color)]

    def _next_in_hand(self, color: int) -> list[int]:
        """``next_in_hand`` as plain integers, for move generation."""
        hex_of = self.board.hex_of
        first = []
        for pieces in self._bug_pieces[color]:
            for p in pieces:
                if hex_of[p] == HAND:
                    first.append(p)
                    break
        return first

    def hand(self, color: int) -> list[Piece]:
        """Every piece the player still has in hand, in bug then number order."""
        hex_of = self.board.hex_of
        return [MEMBERS[p] for ps in self._bug_pieces[color] for p in ps if hex_of[p] == HAND]

    def queen_placed(self, color: int) -> bool:
        return self.board.hex_of[FIRST_OF[color][Bug.QUEEN]] != HAND

    # -- moves ---------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move, each (piece, destination) once; ``[PASS]`` when nothing else is
        legal; empty when the game is over.

        The list is kept until the next ``push`` or ``pop``, so asking again (a server sends the
        moves, then checks the one played) generates nothing; each call returns a new list."""
        moves = self._legal
        if moves is None:
            moves = [_move(p, src, d) for p, src, dests in movegen.generate(self) for d in dests]
            if not moves and not self.is_over():
                moves = [PASS]
            self._legal = moves
        return moves.copy()

    def count_legal_moves(self) -> int:
        """``len(self.legal_moves())``, without building the moves."""
        count = 0
        for _, _, dests in movegen.generate(self):
            count += len(dests)
        return count or (0 if self.is_over() else 1)

    def perft(self, depth: int) -> int:
        """The number of move sequences of ``depth`` plies (leaves counted in bulk)."""
        if depth <= 1:
            return 1 if depth <= 0 else self.count_legal_moves()
        total = 0
        for move in self.legal_moves():
            self.push(move)
            total += self.perft(depth - 1)
            self.pop()
        return total

    def push(self, move: Move) -> None:
        """Play a move known to be legal (unchecked)."""
        board = self.board
        piece, src, dst = move
        h = self.hash
        k = self.kind_hash
        if piece >= 0:
            height = board.height
            if src != HAND:
                level = height[src] - 1
                h ^= piece_key(piece, src, level)
                k ^= kind_key(piece, src, level)
                board.lift(src)
            level = height[dst]
            h ^= piece_key(piece, dst, level)
            k ^= kind_key(piece, dst, level)
            board.place(piece, dst)
        self._undo.append((self.last_moved, self.state, self.hash, self.kind_hash))
        self._legal = None
        self.hash = h ^ BLACK_KEY
        self.kind_hash = k ^ BLACK_KEY
        self.last_moved = piece
        self.ply += 1
        self.moves.append(move)
        seen = 0
        if self.repetition_draw:
            key = self.repetition_key()
            seen = self._seen[key] = self._seen.get(key, 0) + 1
        self.state = self._state_after_move(seen)

    def pop(self) -> Move:
        """Take back the last move."""
        move = self.moves.pop()
        if self.repetition_draw:
            key = self.repetition_key()
            seen = self._seen[key] - 1
            if seen:
                self._seen[key] = seen
            else:
                del self._seen[key]
        self.last_moved, self.state, self.hash, self.kind_hash = self._undo.pop()
        self._legal = None
        self.ply -= 1
        piece, src, dst = move
        if piece >= 0:
            self.board.lift(dst)
            if src != HAND:
                self.board.place(piece, src)
        return move

    def repetition_key(self) -> int:
        """What the threefold repetition counts: ``kind_hash`` (the stacks by colour and bug,
        the side to move, the game type), and with Pillbugs in play the hex of the stunned
        piece (the one moved last, on top there: it may not move, nor be thrown, this turn).
        The reserves go with the board: each player has the pieces of a kind not on it."""
        if self.game_type.pillbug and self.last_moved >= 0:
            return self.kind_hash ^ STUNNED_KEYS[self.board.hex_of[self.last_moved]]
        return self.kind_hash

    def _state_after_move(self, seen: int) -> GameState:
        """The state after a move; ``seen``: how many times its position has occurred (0 when
        not counted)."""
        board = self.board
        height = board.height
        white_q, black_q = board.hex_of[_WHITE_QUEEN], board.hex_of[_BLACK_QUEEN]
        white_lost = white_q != HAND and all(height[n] for n in NEIGHBORS[white_q])
        black_lost = black_q != HAND and all(height[n] for n in NEIGHBORS[black_q])
        if white_lost or black_lost:
            if white_lost and black_lost:
                return GameState.DRAW
            return GameState.BLACK_WINS if white_lost else GameState.WHITE_WINS
        if seen >= 3:
            return GameState.DRAW
        return GameState.IN_PROGRESS

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    # -- notation ------------------------------------------------------------------------------

    def move_string(self, move: Move) -> str:
        """The canonical MoveString of ``move`` in this position."""
        if move.is_pass:
            return notation.PASS_STRING
        return notation.spell(move.piece, self.board, move.destination)

    def move_strings(self, moves: Iterable[Move]) -> list[str]:
        """The canonical MoveStrings of ``moves`` of this position, as ``move_string`` spells
        each. Placements on one hex differ only in the piece's name (a piece in hand is never
        its own reference), so each hex's reference is looked for once."""
        board = self.board
        after_name: dict[int, str] = {}  # a placement's hex -> its MoveString after the name
        spelled = []
        for piece, source, destination in moves:
            if piece < 0:
                spelled.append(notation.PASS_STRING)
            elif source != HAND:
                spelled.append(notation.spell(piece, board, destination))
            elif (rest := after_name.get(destination)) is not None:
                spelled.append(NAMES[piece] + rest)
            else:
                text = notation.spell(piece, board, destination)
                after_name[destination] = text[len(NAMES[piece]) :]
                spelled.append(text)
        return spelled

    def parse_move(self, text: str) -> Move:
        """Read a MoveString and check that it is legal here; raises InvalidMoveError or
        IllegalMoveError with the reason."""
        if self.is_over():
            raise IllegalMoveError(f"{text!r}: the game is over ({self.state})")
        legal = self.legal_moves()
        if text.strip().lower() == notation.PASS_STRING:
            if legal != [PASS]:
                raise IllegalMoveError(f"{text!r}: passing is allowed only with no other move")
            return PASS
        piece = notation.parse_move_string(text)[0]
        if COLOR_OF[piece] != self.ply & 1 and not self._can_be_thrown(piece):
            raise IllegalMoveError(f"{text!r}: it is {self.turn}'s turn")
        piece, dst = notation.destination(self.board, text)
        src = self.board.hex_of[piece]
        move = Move(piece, src, dst)
        if move not in legal:
            raise IllegalMoveError(f"{text!r}: {self._why_illegal(move)}")
        return move

    def play(self, text: str) -> Move:
        """Play a MoveString after checking it; returns the move."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def play_unchecked(self, text: str) -> Move:
        """Play a MoveString known to be legal here, such as a stored game's (read, not
        checked: no legal moves are generated); returns the move."""
        if text.strip().lower() == notation.PASS_STRING:
            move = PASS
        else:
            piece, dst = notation.destination(self.board, text)
            move = Move(piece, self.board.hex_of[piece], dst)
        self.push(move)
        return move

    def undo(self, count: int = 1) -> None:
        """Take back the last ``count`` moves.

        Raises:
            HiveError: ``count`` is negative or more than the moves played; nothing is undone.
        """
        if not 0 <= count <= len(self.moves):
            raise HiveError(f"cannot undo {count!r} moves: {len(self.moves)} played")
        for _ in range(count):
            self.pop()

    def _can_be_thrown(self, piece: int) -> bool:
        """Whether a Pillbug might move ``piece`` (one of the opponent's) at all."""
        return self.game_type.pillbug and self.board.hex_of[piece] != HAND

    def _why_illegal(self, move: Move) -> str:
        piece, src, dst = move
        color = self.ply & 1
        name = Piece(piece).name
        board = self.board
        if COLOR_OF[piece] != color:
            return f"it is {self.turn}'s turn, and no Pillbug can throw {name} there"
        if not self.game_type.has_piece(piece):
            return f"{name} is not in play in {self.game_type}"
        queen = FIRST_OF[color][Bug.QUEEN]
        if src == HAND:
            if piece == queen and self.turn_number == 1:
                return "the Queen may not be placed on a player's first turn"
            if self.turn_number == 4 and not self.queen_placed(color) and piece != queen:
                return "the Queen must be placed by a player's fourth turn"
            if piece not in self._next_in_hand(color):
                first = next(p for p in self.hand(color) if BUG_OF[p] == BUG_OF[piece])
                return f"pieces of a bug enter in order: {first} comes before {name}"
            if board.top[dst] != EMPTY:
                return "a piece is already there"
            if self.ply == 1:
                return "the second piece must touch the first"
            return "a piece may be placed only where it touches its own colour and no other"
        if not self.queen_placed(color):
            return "no piece may move before its side's Queen is placed"
        if board.top[src] != piece:
            return f"{name} is covered by another piece"
        if piece == self.last_moved:
            return f"{name} was just moved by the opponent's Pillbug and must rest a turn"
        if dst == src:
            return f"{name} must move somewhere else"
        if board.pinned() >> piece & 1:
            return f"moving {name} would break the hive"
        return f"{name} cannot move there"

    # -- GameStrings ---------------------------------------------------------------------------

    def game_string(self) -> str:
        """``GameTypeString;GameStateString;TurnString;moves...`` with canonical MoveStrings.

        Each move is spelled on a scratch board that replays the game; the game itself is only
        read, so this is safe while iterating over its moves or in the middle of a search.
        """
        board = Board()
        spelled = []
        for piece, src, dst in self.moves:
            if piece < 0:
                spelled.append(notation.PASS_STRING)
                continue
            spelled.append(notation.spell(piece, board, dst))
            if src != HAND:
                board.lift(src)
            board.place(piece, dst)
        return ";".join([self.game_string_head(), *spelled])

    def game_string_head(self) -> str:
        """The GameString before its moves: ``GameTypeString;GameStateString;TurnString`` (a
        caller holding the game's canonical MoveStrings joins them to it without a replay)."""
        return f"{self.game_type};{self.state};{self.turn}[{self.turn_number}]"

    # -- plain coordinates -----------------------------------------------------------------------

    def layout(self) -> Layout:
        """Plain axial coordinates of this position: of every piece, and of the hexes a legal
        move starts from or goes to. See ``hive.layout.Layout``; it replays the moves on a
        scratch board (linear in the moves played), so build it once per position."""
        return Layout(self.moves)

    def positions(self) -> dict[Piece, tuple[int, int, int]]:
        """``(q, r, level)`` of every piece on the board, ``level`` 0 on the ground.

        Coordinates are plain axial ones, not wrapped, and stable: the first piece placed is at
        (0, 0) and a piece keeps its coordinates until it moves. Shorthand for
        ``self.layout().positions``.
        """
        return self.layout().positions

    def axial(self, h: int) -> tuple[int, int]:
        """Plain axial ``(q, r)`` of hex ``h`` (a stack, or an empty hex touching one).
        Shorthand for ``self.layout().axial(h)``; for many hexes build the layout once."""
        return self.layout().axial(h)

    @classmethod
    def from_game_string(cls, text: str, *, repetition_draw: bool = False) -> Game:
        """Replay a GameString (its moves are checked); raises InvalidGameStringError."""
        fields = [f.strip() for f in text.strip().split(";")]
        if len(fields) < 3:
            raise InvalidGameStringError(
                f"invalid GameString {text!r}: expected GameType;GameState;Turn[;moves]"
            )
        game = cls(GameType.parse(fields[0]), repetition_draw=repetition_draw)
        try:
            state = GameState(fields[1])
        except ValueError:
            raise InvalidGameStringError(f"invalid GameStateString {fields[1]!r}") from None
        if not _TURN_RE.fullmatch(fields[2]):
            raise InvalidGameStringError(f"invalid TurnString {fields[2]!r}")
        for number, move in enumerate(filter(None, fields[3:]), 1):
            try:
                game.play(move)
            except HiveError as error:
                raise InvalidGameStringError(
                    f"invalid GameString {text!r}: move {number} {move!r}: {error}"
                ) from None
        turn = f"{game.turn}[{game.turn_number}]"
        if (state, fields[2]) != (game.state, turn):
            raise InvalidGameStringError(
                f"invalid GameString {text!r}: its moves give {game.state};{turn}, "
                f"not {fields[1]};{fields[2]}"
            )
        return game

    def __str__(self) -> str:
        return self.game_string()

    def __repr__(self) -> str:
        return f"Game.from_game_string({self.game_string()!r})"


__all__ = ["PASS", "Game", "GameState", "InvalidMoveError", "Move"]
