"""The two builds side by side: perft(5) from the start and search nodes per second, pure and
compiled, with nokamute's perft in the same run.

    python -m bench.builds [--rounds N] [--nokamute PATH] [--positions N]

Each round runs one process per build (pure: the ``.py`` sources, as ``pytest --pure`` runs
them; compiled: the ``.so`` files of the editable install), then nokamute's ``perft`` when a
path is given, so that a busy machine slows them alike; the medians over the rounds are
printed. Per build and round: perft(5) of Base and of Base+MLP from the start (leaves counted
in bulk, ``Game.perft``), and the nodes per second of ``bench.ai``'s fixed search (3 plies,
K=30, over mid-game Base+MLP positions). Times are by the wall clock; CPU times are beside
them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PURE_DIR = ROOT / "tests" / "pure"
PERFT = (("Base", 5, 516_240), ("Base+MLP", 5, 5_427_108))
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def measure(positions: int) -> dict[str, object]:
    """One round in this process: perft times, then the search's nodes per second."""
    from ai.search import search
    from bench.ai import NODES_BRANCHING, NODES_DEPTH
    from bench.ai import positions as mid_games
    from hive import Game
    from tests.build import build_name

    figures: dict[str, object] = {"build": build_name()}
    for game_type, depth, expected in PERFT:
        game = Game(game_type)
        start, start_cpu = time.perf_counter(), time.process_time()
        leaves = game.perft(depth)
        figures[f"perft {game_type}"] = time.perf_counter() - start
        figures[f"perft {game_type} cpu"] = time.process_time() - start_cpu
        if leaves != expected:
            raise SystemExit(f"perft({depth}) {game_type} = {leaves}, expected {expected}")
    games = mid_games(positions)
    nodes = 0
    start, start_cpu = time.perf_counter(), time.process_time()
    for game in games:
        nodes += search(game, depth=NODES_DEPTH, branching=NODES_BRANCHING).nodes
    figures["nodes/s"] = nodes / (time.perf_counter() - start)
    figures["nodes/s cpu"] = nodes / (time.process_time() - start_cpu)
    figures["nodes"] = nodes
    return figures


def run_build(pure: bool, positions: int) -> dict[str, object]:
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([str(PURE_DIR), *paths] if pure else paths)
    command = [sys.executable, "-m", "bench.builds", "--child", "--positions", str(positions)]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    figures: dict[str, object] = json.loads(done.stdout)
    return figures


def nokamute_perft(path: str, game_type: str, depth: int) -> float:
    """nokamute's time for perft(``depth``) from the start (it counts on deeper; stopped)."""
    process = subprocess.Popen(
        [path, "perft", game_type], stdout=subprocess.PIPE, text=True, encoding="utf-8"
    )
    assert process.stdout is not None
    try:
        for line in process.stdout:
            fields = line.split()
            if fields and fields[0] == str(depth):
                match = re.fullmatch(r"([\d.]+)(ns|µs|us|ms|s)", fields[2])
                if not match:
                    raise SystemExit(f"unreadable nokamute line {line!r}")
                return float(match[1]) * UNITS[match[2]]
    finally:
        process.kill()
        process.wait()
    raise SystemExit(f"nokamute perft {game_type} printed no depth {depth}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds (medians are printed)")
    parser.add_argument("--nokamute", help="the nokamute binary, for its perft")
    parser.add_argument("--positions", type=int, default=20, help="search positions per round")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.positions)))
        return
    rows: dict[str, list[dict[str, object]]] = {"pure": [], "compiled": []}
    nokamute: dict[str, list[float]] = {game_type: [] for game_type, _, _ in PERFT}
    for number in range(args.rounds):
        for name in ("pure", "compiled") if number % 2 == 0 else ("compiled", "pure"):
            rows[name].append(run_build(name == "pure", args.positions))
        if args.nokamute:
            for game_type, depth, _ in PERFT:
                nokamute[game_type].append(nokamute_perft(args.nokamute, game_type, depth))
        print(f"round {number + 1} of {args.rounds} done", file=sys.stderr)
    print(f"medians of {args.rounds} rounds, interleaved")
    builds = {name: str(runs[0]["build"]) for name, runs in rows.items()}
    if builds["compiled"] == builds["pure"]:
        print(f"warning: both runs used the build {builds['pure']!r}: nothing compiled?")

    def median(name: str, key: str) -> float:
        return statistics.median(float(str(run[key])) for run in rows[name])

    for game_type, depth, _ in PERFT:
        pure = median("pure", f"perft {game_type}")
        compiled = median("compiled", f"perft {game_type}")
        line = (
            f"perft({depth}) {game_type:9} pure {pure:7.3f} s  compiled {compiled:7.3f} s "
            f"({pure / compiled:4.1f}x; CPU {median('pure', f'perft {game_type} cpu'):.3f} / "
            f"{median('compiled', f'perft {game_type} cpu'):.3f} s)"
        )
        if args.nokamute:
            theirs = statistics.median(nokamute[game_type])
            line += f"  nokamute {theirs * 1000:6.1f} ms: compiled {compiled / theirs:.0f}x it"
            line += f", pure {pure / theirs:.0f}x"
        print(line)
    pure, compiled = median("pure", "nodes/s"), median("compiled", "nodes/s")
    print(
        f"search nodes/s ({rows['pure'][0]['nodes']:,} nodes): pure {pure:,.0f}  compiled "
        f"{compiled:,.0f} ({compiled / pure:.1f}x; CPU {median('pure', 'nodes/s cpu'):,.0f} / "
        f"{median('compiled', 'nodes/s cpu'):,.0f})"
    )


if __name__ == "__main__":
    main()
