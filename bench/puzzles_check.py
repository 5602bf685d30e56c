"""Puzzles checked against a second engine: nokamute finds each puzzle's first move, and no other.

    python -m bench.puzzles_check PUZZLES.jsonl --engine "DIR/nokamute uhp --num-threads=1
        --table-mb=32" [--sample 100] [--seed 0]

nokamute (the reference engine, built by ``../shared/tools/nokamute``: its sources come only
through the search tool's fetch, so CI cannot build it and this is a benchmark run by hand, not
a test) is given each sampled puzzle's position (``newgame GameString``) and asked, by the
Universal Hive Protocol alone:

- **the same first move**: ``bestmove depth D`` (D = 2n - 1 plies for a win in n: the solver's
  n moves and the defender's n - 1; 4 for a defence: the defender's move and the other side's
  win in two) must be the puzzle's first move, compared as (piece, destination) in our engine's
  reading of both MoveStrings, never as strings; and its principal variation (``pv``), played
  by our engine, must end in the solver's win (for a defence: must not end in the other
  side's);
- **no other**: every other legal first move (our engine's; ``validmoves`` must give nokamute
  the same set) is played (``play``), then nokamute, now on the other side, is asked
  ``bestmove depth D - 1`` and ``pv``: that line, played by our engine, ends in the solver's
  win exactly when nokamute finds no escape for the defender (alpha-beta to a fixed depth,
  without nokamute's optional unsound prunings, scores every forced loss within the horizon
  below any escape, and the principal variation follows the best play of both sides). For a
  win, no other first move may leave the defender without an escape; for a defence, every
  other move must let the win through. A win in one needs no search: after each other move,
  nokamute's own ``play`` answer says whether the game is over.

A principal variation that stops before the depth asked, the game not over, is counted apart
(``short``): neither a win nor an escape is then read from it. nokamute draws a game by
threefold repetition, which the puzzles' proof does not (a puzzle's few moves are read without
it, as the server reads them): a position nokamute holds drawn already, or whose game it
refuses (a move played after its rules drew the game), is counted apart (``over for
nokamute``), and another first move that nokamute's rules draw by repetition is counted
(``drawn for nokamute``) and read as no win.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ai.puzzles import Puzzle
from ai.uhpclient import Forfeit, UhpClient
from hive import Game, GameState, Move
from server.archive.puzzles import read_lines

WON = {GameState.WHITE_WINS: 0, GameState.BLACK_WINS: 1}


def same(a: Move, b: Move) -> bool:
    return (a.piece, a.destination) == (b.piece, b.destination)


@dataclass
class Engine:
    """nokamute through UHP, its answers read by our engine."""

    client: UhpClient

    def position(self, game: Game) -> str:
        """Set nokamute's game to ``game``; its state there (``InProgress``, ``Draw``...), or
        ``Refused`` when nokamute refuses a move of the game (one played after nokamute's
        rules drew it by repetition: ``invalidmove``)."""
        try:
            (answer,) = self.client.ask(f"newgame {game.game_string()}")
        except Forfeit:
            return "Refused"
        return answer.split(";")[1]

    def play(self, game: Game, move: Move) -> str:
        """Play ``move`` in nokamute's game (and ours); nokamute's GameString after it."""
        (answer,) = self.client.ask(f"play {game.move_string(move)}")
        game.push(move)
        return answer

    def valid(self, game: Game) -> set[tuple[int, int]]:
        (line,) = self.client.ask("validmoves")
        return {(m.piece, m.destination) for m in map(game.parse_move, line.split(";"))}

    def best(self, game: Game, depth: int) -> tuple[Move, list[Move] | None]:
        """nokamute's best move to ``depth`` plies, and its principal variation as our engine
        plays it (None: it stops before ``depth`` plies with the game not over)."""
        (text,) = self.client.ask(f"bestmove depth {depth}")
        best = game.parse_move(text)
        line: list[Move] = []
        for step in self.client.ask("pv"):
            move = game.parse_move(step)
            game.push(move)
            line.append(move)
            if game.state is not GameState.IN_PROGRESS:
                break
        over = game.state is not GameState.IN_PROGRESS
        for _ in line:
            game.pop()
        return best, (line if over or len(line) >= depth else None)


def wins(game: Game, line: list[Move], solver: int) -> bool:
    """Whether ``line`` from ``game`` ends with ``solver`` having won."""
    for move in line:
        game.push(move)
    won = WON.get(game.state) == solver
    for _ in line:
        game.pop()
    return won


def check(engine: Engine, puzzle: Puzzle) -> Counter[str]:
    """The counts of one puzzle: ``first`` (nokamute's move is the puzzle's) or ``other``
    (it is not) or ``unseen`` (its line does not win), then ``unique`` or ``not unique``,
    and ``short`` lines."""
    counts: Counter[str] = Counter()
    game = Game.from_game_string(puzzle.game_string)
    first = game.parse_move(puzzle.solution[0])
    defend = puzzle.theme == "defend"
    n = 2 if defend else int(puzzle.theme[-1])
    depth = 4 if defend else 2 * n - 1
    solver = 1 - (game.ply & 1) if defend else game.ply & 1  # who wins if the defence fails
    if engine.position(game) != "InProgress":
        counts["over for nokamute"] += 1  # (its draw by repetition: ours is off in puzzles)
        return counts
    if engine.valid(game) != {(m.piece, m.destination) for m in game.legal_moves()}:
        counts["moves differ"] += 1
    best, line = engine.best(game, depth)
    if line is None:
        counts["short"] += 1
    elif wins(game, line, solver) is defend:
        counts["unseen"] += 1
    counts["first" if same(best, first) else "other"] += 1
    winners = 0  # other first moves after which the defender has no escape
    for move in game.legal_moves():
        if same(move, first):
            continue
        engine.position(game)
        after = engine.play(game, move)
        try:
            if after.split(";")[1] == "Draw" and game.state is GameState.IN_PROGRESS:
                counts["drawn for nokamute"] += 1  # a repetition: no win, by its rules
                lost = False
            elif defend or n > 1:
                if game.state is not GameState.IN_PROGRESS:
                    lost = WON.get(game.state) == solver
                else:
                    _, line = engine.best(game, depth - 1)
                    if line is None:
                        counts["short"] += 1
                        continue
                    lost = wins(game, line, solver)
            else:
                lost = after.split(";")[1] == ("WhiteWins", "BlackWins")[solver]
            winners += lost is not defend  # a win: it loses for the defender; a defence: holds
        finally:
            game.pop()
    counts["unique" if winners == 0 else "not unique"] += 1
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.puzzles_check", description=__doc__)
    parser.add_argument("puzzles", help="a JSON-lines file of hive-ai puzzles")
    parser.add_argument("--engine", required=True, help="nokamute's UHP command line")
    parser.add_argument("--sample", type=int, default=100, help="puzzles checked")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--part", default="1/1", help="K/N: the Kth of N slices of the sample (one a process)"
    )
    args = parser.parse_args(argv)
    part, parts = map(int, args.part.split("/"))
    with open(args.puzzles, encoding="utf-8") as file:
        everything = read_lines(file)
    sample = random.Random(args.seed).sample(everything, min(args.sample, len(everything)))
    sample = sample[part - 1 :: parts]
    engine = Engine(UhpClient(args.engine, "depth 1", timeout=600))
    total: Counter[str] = Counter()
    by_theme: Counter[str] = Counter()
    started = time.monotonic()
    try:
        for number, puzzle in enumerate(sample, 1):
            counts = check(engine, puzzle)
            total += counts
            by_theme[puzzle.theme] += 1
            if counts["other"] or counts["not unique"] or counts["unseen"]:
                print(f"{puzzle.source} {puzzle.theme}: {dict(counts)}", flush=True)
            if number % 10 == 0:
                print(f"{number} checked ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    finally:
        engine.client.close()
    print(f"{len(sample)} puzzles ({', '.join(f'{t} {c}' for t, c in sorted(by_theme.items()))})")
    names = ("first", "other", "unseen", "unique", "not unique", "short", "moves differ")
    for name in (*names, "over for nokamute", "drawn for nokamute"):
        print(f"  {name}: {total[name]}")
    return 0 if total["first"] == total["unique"] == len(sample) else 1


if __name__ == "__main__":
    sys.exit(main())
