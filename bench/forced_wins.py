"""Forced wins in two: how often each level plays a move that forces one, and how fast.

    python -m bench.forced_wins [--levels medium,hard,expert] [--positions N]
    python -m bench.forced_wins --build

The positions (``tests/ai/data/win_in_two.tsv``) are ones where the side to move can force a
win in two moves (its move, any reply, its move surrounds the enemy Queen) and cannot win in
one, each with every move that forces it, all proved by brute force over the legal moves.
``--build`` rebuilds the file, deterministically: it walks the real games of
``mzinga_validmoves_realgames.tsv`` and the in-progress positions of the Mzinga puzzles and the
nokamute vectors (for other game types), and plays on from them with a seeded player that mixes
random and greedy (one-ply) moves, keeping the first win-in-two position of each playout (one
per source game, ``COUNT`` in all).

The benchmark runs on one core: each level plays every position with a fresh, seeded bot (no
opening book, an empty table) and prints how many of its moves force the win, and the median
and 95th percentile seconds per move, by the wall clock and in CPU time (which a busy machine
inflates less).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

from ai.bots import LEVELS, Bot
from ai.evaluation import evaluate
from hive import Game, GameState, GameType, Move
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.pieces import FIRST_OF, Bug
from tests.vectors import VECTORS, tsv_rows

DATA = Path(__file__).resolve().parents[1] / "tests" / "ai" / "data" / "win_in_two.tsv"
LEVEL_NAMES = ("medium", "hard", "expert")

PLAYOUT_PLIES = 20  # the most plies a playout adds to a start position
START_EVERY = 2  # plies between two start positions of one real game
PER_SOURCE = 1  # the most positions kept from one source game
COUNT = 100  # positions in the file (the bots' test plays each at three levels)
BUILD_SEED = 2024

_WINS = (GameState.WHITE_WINS, GameState.BLACK_WINS)


# -- brute force -------------------------------------------------------------------------------


def winning_now(game: Game) -> list[Move]:
    """The side to move's moves that win at once (surround the enemy Queen, not both).

    Only moves that land next to the enemy Queen or move the Queen itself (a Pillbug's throw)
    can complete its ring, so only those are tried.
    """
    if game.state.is_over:
        return []
    me = game.ply & 1
    queen = FIRST_OF[1 - me][Bug.QUEEN]
    where = game.board.hex_of[queen]
    if where == HAND:
        return []
    ring = NEIGHBORS[where]
    won = _WINS[me]
    found = []
    for move in game.legal_moves():
        if move.destination in ring or move.piece == queen:
            game.push(move)
            if game.state is won:
                found.append(move)
            game.pop()
    return found


def forces_win_in_two(game: Game, move: Move) -> bool:
    """Whether ``move`` by the side to move wins in two whatever the reply: every reply (a
    pass included) either surrounds the replier's own Queen alone, or leaves the mover a
    winning move."""
    won = _WINS[game.ply & 1]
    game.push(move)
    try:
        if game.state is not GameState.IN_PROGRESS:
            return False
        for reply in game.legal_moves():
            game.push(reply)
            holds = game.state is won or (
                game.state is GameState.IN_PROGRESS and bool(winning_now(game))
            )
            game.pop()
            if not holds:
                return False
        return True
    finally:
        game.pop()


def wins_in_two(game: Game) -> list[Move]:
    """Every move of the side to move that forces a win in two (empty if none)."""
    if game.state.is_over:
        return []
    return [move for move in game.legal_moves() if forces_win_in_two(game, move)]


def loses_at_once(game: Game, move: Move) -> bool:
    """Whether ``move`` loses within two plies: it surrounds its own Queen (alone or with the
    enemy's, a draw counts as not a loss), or the opponent can win with the reply."""
    me = game.ply & 1
    game.push(move)
    try:
        if game.state.is_over:
            return game.state is _WINS[1 - me]
        return bool(winning_now(game))
    finally:
        game.pop()


# -- the data file -----------------------------------------------------------------------------


def load(path: Path = DATA) -> list[tuple[Game, list[Move]]]:
    """The positions of the data file, each with the moves that force the win in two."""
    positions = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        text, moves = line.split("\t")
        game = Game.from_game_string(text)
        positions.append((game, [game.parse_move(m) for m in moves.split(";")]))
    return positions


def _sources() -> Iterator[tuple[str, Game]]:
    """Start positions, each named by its source game: first the in-progress positions of the
    puzzles and the nokamute vectors (several game types), then every ``START_EVERY``-th ply
    of each real game once both Queens are down."""
    others = [row[0] for row in tsv_rows("mzinga_bestmove_puzzles.tsv")]
    lines = (VECTORS / "nokamute_uhp_tests.txt").read_text().splitlines()
    others += [line for line in lines if line.startswith("Base") and ";InProgress;" in line]
    for number, text in enumerate(others):
        game = Game.from_game_string(text)
        if not game.is_over() and game.queen_placed(0) and game.queen_placed(1):
            yield f"other{number}", game
    seen: set[str] = set()
    for number, row in enumerate(tsv_rows("mzinga_validmoves_realgames.tsv")):
        if row[0] in seen:
            continue
        seen.add(row[0])
        fields = row[0].split(";")
        game = Game(GameType.parse(fields[0]))
        for ply, text in enumerate(fields[3:]):
            game.play(text)
            if game.is_over():
                break
            if game.queen_placed(0) and game.queen_placed(1) and ply % START_EVERY == 0:
                yield f"real{number}", Game.from_game_string(game.game_string())


def _player_move(game: Game, rng: random.Random) -> Move:
    """A random legal move half of the time, else the greedy one (best one-ply evaluation)."""
    moves = game.legal_moves()
    if rng.random() < 0.5:
        return rng.choice(moves)
    best, best_move = None, moves[0]
    for move in moves:
        game.push(move)
        value = -evaluate(game)
        game.pop()
        if best is None or value > best:
            best, best_move = value, move
    return best_move


def _hemmed(game: Game) -> bool:
    """Whether the enemy Queen has at least four occupied neighbours: a quick filter for
    positions worth the brute force (a win in two nearly always needs it; the filter only
    decides which positions are examined, never what is recorded)."""
    where = game.board.hex_of[FIRST_OF[1 - (game.ply & 1)][Bug.QUEEN]]
    if where == HAND:
        return False
    top = game.board.top
    return sum(1 for n in NEIGHBORS[where] if top[n] != EMPTY) >= 4


def build(path: Path = DATA) -> int:
    """Rebuild the data file; returns the number of positions."""
    kept: dict[str, int] = {}
    seen: set[tuple[int, int]] = set()
    lines: list[str] = []
    for start, (source, game) in enumerate(_sources()):
        if len(lines) >= COUNT:
            break
        if kept.get(source, 0) >= PER_SOURCE:
            continue
        rng = random.Random(BUILD_SEED * 100_000 + start)
        for _ in range(PLAYOUT_PLIES + 1):
            if game.is_over():
                break
            key = (game.hash, game.last_moved)
            if key not in seen and _hemmed(game) and not winning_now(game):
                seen.add(key)
                moves = wins_in_two(game)
                if moves:
                    spelled = ";".join(game.move_string(move) for move in moves)
                    lines.append(f"{game.game_string()}\t{spelled}")
                    kept[source] = kept.get(source, 0) + 1
                    break
            game.push(_player_move(game, rng))
    header = (
        "# Positions where the side to move forces a win in two and cannot win in one, with\n"
        "# every move that forces it (proved by brute force). Generated by\n"
        "# `python -m bench.forced_wins --build`: do not edit.\n"
        "# GameString<TAB>move;move;...\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + "\n".join(lines) + "\n")
    return len(lines)


# -- the benchmark -----------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def bench(positions: list[tuple[Game, list[Move]]], names: list[str]) -> None:
    print(
        f"{'level':9} {'found':>9} {'median s':>8} {'p95 s':>7} {'max s':>7}  "
        f"{'cpu median':>10} {'cpu p95':>7}"
    )
    for name in names:
        times = []
        cpu = []
        found = 0
        for number, (game, winning) in enumerate(positions):
            bot = Bot(name, seed=number, use_book=False)
            start, start_cpu = time.perf_counter(), time.process_time()
            move = bot.choose(game).move
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            found += (move.piece, move.destination) in {(m.piece, m.destination) for m in winning}
        print(
            f"{name:9} {found:>4}/{len(positions):<4} {statistics.median(times):8.3f} "
            f"{percentile(times, 0.95):7.3f} {max(times):7.3f}  "
            f"{statistics.median(cpu):10.3f} {percentile(cpu, 0.95):7.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--build", action="store_true", help=f"rebuild {DATA.name}")
    parser.add_argument("--positions", type=int, default=None, help="use only the first N")
    parser.add_argument("--levels", default=",".join(LEVEL_NAMES), help="comma-separated levels")
    args = parser.parse_args()
    if args.build:
        print(f"{build()} positions written to {DATA}")
        return
    names = [name for name in args.levels.split(",") if name]
    unknown = [name for name in names if name not in LEVELS]
    if unknown:
        raise SystemExit(f"unknown levels: {', '.join(unknown)}")
    positions = load()[: args.positions]
    print(
        f"{platform.python_implementation()} {platform.python_version()}, one core, "
        f"{len(positions)} win-in-two positions"
    )
    bench(positions, names)


if __name__ == "__main__":
    main()
