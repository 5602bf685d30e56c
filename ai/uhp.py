"""The UHP engine: Hive Arena speaking the Universal Hive Protocol on stdin/stdout.

``Engine`` holds the game and the options and answers one command line at a time, without any
IO: ``Engine().handle("newgame Base+MLP")`` returns the lines to print, ending with ``ok``.
``serve`` and ``main`` (the console script ``hive-engine``, also ``python -m ai.uhp``) read
the commands and print the answers. The commands, with example conversations, are in
docs/uhp.md; the protocol is MzingaEngine's, whose behaviour this engine follows where the
protocol leaves a choice.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from typing import BinaryIO, Final, Literal

from ai.bots import LEVELS, Bot, Choice, Level
from hive import (
    Game,
    GameState,
    GameType,
    HiveError,
    IllegalMoveError,
    InvalidGameStringError,
    InvalidMoveError,
)

ENGINE_NAME: Final = "HiveArena"
CAPABILITIES: Final = "Mosquito;Ladybug;Pillbug"
MAX_LINE_BYTES: Final = 64 * 1024
"""Longer command lines are answered with ``err`` and skipped."""
MAX_PERFT_DEPTH: Final = 8
MAX_SEARCH_DEPTH: Final = 12
MAX_MESSAGE_CHARS: Final = 300
"""``err`` and ``invalidmove`` messages are cut to this length (they may quote the input)."""

HELP: Final = (
    "info                          the engine's name, version and capabilities",
    "newgame [GameType|GameString] start a game (Base by default) or load a GameString",
    "play MoveString               play a move",
    "pass                          pass (legal only when nothing else is)",
    "validmoves                    every legal move, separated by ';'",
    "bestmove [depth N|time T]     the bot's move (T as hh:mm:ss); options set the level",
    "undo [N]                      take back the last N moves (default 1)",
    "options                       list the options",
    "options get Name              show one option",
    "options set Name Value        change one option",
    "perft N                       count the move sequences of 1..N plies (N in 0..8)",
    "help                          this list",
    "exit                          quit (end of input quits too)",
)


def engine_version() -> str:
    """The installed package's version (``0.1.0`` when run from a bare checkout)."""
    try:
        return metadata.version("hive-arena")
    except metadata.PackageNotFoundError:
        return "0.1.0"


class UhpError(Exception):
    """A command that cannot be carried out; answered with ``err <message>``."""


# -- options ---------------------------------------------------------------------------------

OptionKind = Literal["bool", "int", "double", "enum"]
OptionValue = bool | int | float | str


@dataclass(frozen=True)
class Option:
    """An engine option as ``options`` shows it: ``Name;Type;Value;Default[;Min;Max]``.

    Attributes:
        name: the UHP name (looked up without regard to case).
        kind: the UHP type: ``bool``, ``int``, ``double`` or ``enum``.
        default: the value a new engine starts with.
        minimum: the smallest value allowed (numbers only; ``None`` for no bound).
        maximum: the largest value allowed (numbers only; ``None`` for no bound).
        help: what the option does, for people.
        choices: the values of an ``enum`` (looked up without regard to case).
    """

    name: str
    kind: OptionKind
    default: OptionValue
    minimum: int | float | None = None
    maximum: int | float | None = None
    help: str = ""
    choices: tuple[str, ...] = ()

    def parse(self, text: str) -> OptionValue:
        """The value ``text`` stands for; raises UhpError when it is not a valid value."""
        if self.kind == "bool":
            if text.lower() not in ("true", "false"):
                raise UhpError(f"option {self.name} is True or False, not {text!r}")
            return text.lower() == "true"
        if self.kind == "enum":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise UhpError(f"option {self.name} is one of {', '.join(self.choices)}, not {text!r}")
        try:
            value: int | float = int(text) if self.kind == "int" else float(text)
        except ValueError:
            kind = "an integer" if self.kind == "int" else "a number"
            raise UhpError(f"option {self.name} is {kind}, not {text!r}") from None
        too_low = self.minimum is not None and value < self.minimum
        too_high = self.maximum is not None and value > self.maximum
        if not math.isfinite(value) or too_low or too_high:
            low = "" if self.minimum is None else self.format(self.minimum)
            high = "" if self.maximum is None else self.format(self.maximum)
            raise UhpError(f"option {self.name} must lie in [{low}, {high}], not {text!r}")
        return value

    def format(self, value: OptionValue) -> str:
        """``value`` as UHP writes it (``True``/``False`` for a bool)."""
        return str(value)

    def describe(self, value: OptionValue) -> str:
        """The ``options`` line of this option when it is set to ``value``."""
        fields = [self.name, self.kind, self.format(value), self.format(self.default)]
        if self.minimum is not None and self.maximum is not None:
            fields += [self.format(self.minimum), self.format(self.maximum)]
        fields += self.choices
        return ";".join(fields)


OPTIONS: Final[tuple[Option, ...]] = (
    Option(
        "RepetitionDraw",
        "bool",
        False,
        help="a position reached for the third time draws the game; applies from the next newgame",
    ),
    Option(
        "Level",
        "enum",
        "expert",
        help="the bot level bestmove plays at (ai.bots.LEVELS)",
        choices=tuple(LEVELS),
    ),
    Option("Quotient", "int", 0, 0, 100, help="randomness quotient Q (2 or more); 0: the level's"),
    Option("Randomness", "bool", True, help="False: always play the best move found"),
    Option("Branching", "int", 0, 0, 1000, help="children searched per node K; 0: the level's"),
    Option("Seed", "int", -1, -1, 2**31 - 1, help="seed of the bot's randomness; -1: random"),
    Option("Book", "bool", True, help="play the first two placements from the opening book"),
)
"""The engine's options, in the order ``options`` lists them. Add a row to add an option."""


# -- the engine ------------------------------------------------------------------------------


class Engine:
    """A UHP engine without IO: feed it command lines, print what it answers.

    The engine keeps one bot per game (``bot``): built at the game's first ``bestmove``, kept
    by ``play``, ``pass`` and ``undo``, and dropped by ``newgame`` and ``options set``; so its
    random stream (seeded by the ``Seed`` option) and its transposition table carry from move
    to move.

    Args:
        options: the options it offers (``OPTIONS`` by default).
        clock: seconds as a float, for perft's timings and the bot's time limits.
    """

    def __init__(
        self,
        options: Sequence[Option] = OPTIONS,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.game: Game | None = None
        """The game in progress; None until the first ``newgame``."""
        self.option_values: dict[str, OptionValue] = {o.name: o.default for o in options}
        """Each option's current value, by its name."""
        self.exit_requested = False
        """Set by ``exit``: the IO loop stops."""
        self.bot: Bot | None = None
        """The bot of the game in progress, once it has been asked for a move."""
        self.last_choice: Choice | None = None
        """How the bot found the last ``bestmove`` answer."""
        self._options = {o.name.lower(): o for o in options}
        self._clock = clock
        self._commands: dict[str, Callable[[str], list[str]]] = {
            "info": self._info,
            "help": self._help,
            "newgame": self._newgame,
            "play": self._play,
            "pass": self._pass,
            "validmoves": self._validmoves,
            "bestmove": self._bestmove,
            "undo": self._undo,
            "options": self._options_command,
            "perft": self._perft,
            "exit": self._exit,
        }

    def handle(self, line: str) -> list[str]:
        """Carry out one command line; returns the lines to print.

        The answer ends with ``ok``, except for a blank line (ignored: no answer at all, as
        MzingaEngine does) and ``exit`` (no answer; ``exit_requested`` is set). Failures
        are answered, never raised: ``invalidmove <reason>`` for a move that cannot be read
        or is not legal, ``err <message>`` for anything else.
        """
        words = line.split(maxsplit=1)
        if not words:
            return []
        name, args = words[0].lower(), words[1].strip() if len(words) > 1 else ""
        try:
            command = self._commands.get(name)
            if command is None:
                raise UhpError(f"unknown command {words[0]!r}; try help")
            lines = command(args)
        except (UhpError, HiveError) as error:
            lines = [f"err {_one_line(str(error))}"]
        except Exception as error:
            # Last resort, on purpose: programs drive this engine, and a bug in one command must
            # not kill the process under them. Expected failures are handled just above.
            lines = [f"err internal error: {_one_line(f'{type(error).__name__}: {error}')}"]
        return lines if self.exit_requested else [*lines, "ok"]

    # -- commands: each takes the text after the command word and returns the answer lines ---

    def _info(self, args: str) -> list[str]:
        _expect_no_args("info", args)
        return [f"id {ENGINE_NAME} v{engine_version()}", CAPABILITIES]

    def _help(self, args: str) -> list[str]:
        _expect_no_args("help", args)
        return list(HELP)

    def _newgame(self, args: str) -> list[str]:
        repetition_draw = bool(self.option_values.get("RepetitionDraw", False))
        if ";" in args:
            game = load(args, repetition_draw=repetition_draw)
        else:
            game_type = GameType.parse(args) if args else GameType()
            game = Game(game_type, repetition_draw=repetition_draw)
        self.game = game
        self.bot = None  # a new game, a new bot
        return [game.game_string()]

    def _play(self, args: str) -> list[str]:
        if not args:
            raise UhpError("play needs a MoveString, as in: play wS1")
        return self._move(args)

    def _pass(self, args: str) -> list[str]:
        _expect_no_args("pass", args)
        return self._move("pass")

    def _move(self, move_string: str) -> list[str]:
        game = self._require_game()
        try:
            game.play(move_string)
        except (InvalidMoveError, IllegalMoveError) as error:
            return [f"invalidmove {_one_line(str(error))}"]
        return [game.game_string()]

    def _validmoves(self, args: str) -> list[str]:
        _expect_no_args("validmoves", args)
        game = self._require_game()
        if game.is_over():
            raise UhpError(f"the game is over ({game.state}); start a new one with newgame")
        return [";".join(game.move_string(move) for move in game.legal_moves())]

    def _bestmove(self, args: str) -> list[str]:
        game = self._require_game()
        if game.is_over():
            raise UhpError(f"the game is over ({game.state}); start a new one with newgame")
        level = self._level()
        words = args.split()
        if len(words) == 2 and words[0].lower() == "depth":
            depth = _parse_int(words[1], "bestmove depth")
            if not 1 <= depth <= MAX_SEARCH_DEPTH:
                raise UhpError(f"bestmove depth {depth} is not in 1..{MAX_SEARCH_DEPTH}")
            search = replace(level, depth=depth, seconds=None)
        elif len(words) == 2 and words[0].lower() == "time":
            # A limit: one ply at least, then deeper only while the time lasts (the level's
            # floor of plies not started past a guess that they would not fit).
            search = replace(level, depth=None, seconds=_parse_duration(words[1]), min_depth=1)
        elif words:
            raise UhpError("usage: bestmove | bestmove depth N | bestmove time hh:mm:ss")
        else:
            search = level
        if self.bot is None:
            seed = int(self.option_values["Seed"])
            use_book = bool(self.option_values["Book"])
            self.bot = Bot(
                level, seed=None if seed < 0 else seed, use_book=use_book, clock=self._clock
            )
        self.last_choice = self.bot.choose(game, level=search)
        return [game.move_string(self.last_choice.move)]

    def _level(self) -> Level:
        """The level the options set: ``Level`` changed by ``Quotient``, ``Randomness`` and
        ``Branching``."""
        level = LEVELS[str(self.option_values["Level"])]
        quotient, branching = self.option_values["Quotient"], self.option_values["Branching"]
        try:
            if quotient:
                level = replace(level, quotient=int(quotient))
            if not self.option_values["Randomness"]:
                level = replace(level, quotient=None)
        except ValueError as error:  # the Level refuses a quotient of 1
            raise UhpError(str(error)) from None
        if branching:
            level = replace(level, branching=int(branching))
        return level

    def _undo(self, args: str) -> list[str]:
        game = self._require_game()
        count = _parse_int(args, "undo") if args else 1
        if not 1 <= count <= len(game.moves):
            raise UhpError(f"cannot undo {count} moves: {len(game.moves)} played")
        game.undo(count)
        return [game.game_string()]

    def _options_command(self, args: str) -> list[str]:
        words = args.split()
        if not words:
            return [o.describe(self.option_values[o.name]) for o in self._options.values()]
        action = words[0].lower()
        if action == "get" and len(words) == 2:
            option = self._option(words[1])
        elif action == "set" and len(words) == 3:
            option = self._option(words[1])
            self.option_values[option.name] = option.parse(words[2])
            self.bot = None  # the next bestmove builds a bot with the new options
        else:
            raise UhpError("usage: options | options get Name | options set Name Value")
        return [option.describe(self.option_values[option.name])]

    def _perft(self, args: str) -> list[str]:
        game = self._require_game()
        if not args:
            raise UhpError(f"perft needs a depth from 0 to {MAX_PERFT_DEPTH}")
        depth = _parse_int(args, "perft")
        if not 0 <= depth <= MAX_PERFT_DEPTH:
            raise UhpError(f"perft depth {depth} is not in 0..{MAX_PERFT_DEPTH}")
        lines = []
        for d in range(min(1, depth), depth + 1):
            start = self._clock()
            count = game.perft(d)
            elapsed = self._clock() - start
            rate = f"{count / elapsed:.0f}" if elapsed > 0 else "inf"
            lines.append(f"perft({d}) = {count} in {elapsed:.3f} s ({rate} leaves/s)")
        return lines

    def _exit(self, args: str) -> list[str]:
        _expect_no_args("exit", args)
        self.exit_requested = True
        return []

    # -- helpers -------------------------------------------------------------------------------

    def _require_game(self) -> Game:
        if self.game is None:
            raise UhpError("no game in progress; start one with newgame")
        return self.game

    def _option(self, name: str) -> Option:
        option = self._options.get(name.lower())
        if option is None:
            raise UhpError(f"unknown option {name!r}; options lists them")
        return option


def load(game_string: str, *, repetition_draw: bool) -> Game:
    """The game of a GameString, its moves checked, under the ``RepetitionDraw`` option's
    value; but a GameString that says ``Draw`` where its moves give a threefold repetition (a
    record of a server game drawn so, say) loads as that draw with the rule on, whatever the
    option: the record's result stands, and the game keeps the rule (``undo`` and play it
    again: it draws again).

    Raises:
        InvalidGameStringError: The GameString is invalid (with the option's value).
    """
    try:
        return Game.from_game_string(game_string, repetition_draw=repetition_draw)
    except InvalidGameStringError as error:
        fields = game_string.split(";")
        if repetition_draw or len(fields) < 2 or fields[1].strip() != str(GameState.DRAW):
            raise
        try:
            return Game.from_game_string(game_string, repetition_draw=True)
        except InvalidGameStringError:
            raise error from None


def _expect_no_args(command: str, args: str) -> None:
    if args:
        raise UhpError(f"{command} takes no arguments, not {args!r}")


def _parse_int(text: str, command: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UhpError(f"{command} takes a whole number, not {text!r}") from None


def _parse_duration(text: str) -> float:
    """Seconds in ``hh:mm:ss`` (UHP's bestmove time), at least one second."""
    parts = text.split(":")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise UhpError(f"bestmove time takes hh:mm:ss, not {text!r}")
    hours, minutes, seconds = map(int, parts)
    total = hours * 3600 + minutes * 60 + seconds
    if total < 1:
        raise UhpError(f"bestmove time must be at least 00:00:01, not {text!r}")
    return float(total)


def _one_line(message: str) -> str:
    """``message`` on one line, cut to MAX_MESSAGE_CHARS."""
    flat = " ".join(message.splitlines())
    return flat if len(flat) <= MAX_MESSAGE_CHARS else flat[: MAX_MESSAGE_CHARS - 3] + "..."


# -- IO ----------------------------------------------------------------------------------------


def serve(stdin: BinaryIO, stdout: BinaryIO, engine: Engine | None = None) -> int:
    """Run ``engine`` on a byte stream of commands until ``exit`` or end of input.

    Prints the ``info`` answer first and flushes after every answer. Bytes that are not UTF-8
    become U+FFFD; a line longer than MAX_LINE_BYTES is answered with ``err`` and skipped.
    Returns the exit status (0).
    """
    engine = engine or Engine()
    _write(stdout, engine.handle("info"))
    while not engine.exit_requested:
        raw = stdin.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line
                raw = stdin.readline(MAX_LINE_BYTES)
            _write(stdout, [f"err line longer than {MAX_LINE_BYTES} bytes; ignored", "ok"])
            continue
        _write(stdout, engine.handle(raw.decode("utf-8", errors="replace")))
    return 0


def _write(stdout: BinaryIO, lines: list[str]) -> None:
    if lines:
        stdout.write("".join(f"{line}\n" for line in lines).encode("utf-8", errors="replace"))
        stdout.flush()


def main() -> int:
    """The console script ``hive-engine``: the UHP engine on stdin/stdout."""
    try:
        return serve(sys.stdin.buffer, sys.stdout.buffer)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The driver closed our output: leave quietly (and stop Python's exit-time flush from
        # failing again on the same pipe).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
