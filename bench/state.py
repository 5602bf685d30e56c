"""What a change costs a server process to show: the game state built for its watchers, with and
without the legal moves, and the update frames' sizes, over the real positions of the vectors.

    python -m bench.state [--runs 5]

Prints the median of N runs (one process, one core) per position, in microseconds: the state
sent to everyone but the player to move (``legal=False``), the legal moves added for the
player to move (``view.with_legal``, the moves generated afresh), the layout alone, and each
frame encoded.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

from hive import Game
from protocol import GameState, Seat, TimeControl, Update, encode
from server.game.record import Record
from server.game.view import state, with_legal
from tests.vectors import tsv_rows


def positions() -> list[Record]:
    """A record in progress for each real position of the vectors."""
    records = []
    for row in tsv_rows("mzinga_validmoves_realgames.tsv"):
        head, *moves = row[0].split(";")[0:1] + row[0].split(";")[3:]
        records.append(
            Record(
                id="abcdefgh",
                game_type=head,
                time=TimeControl("clock", 600, 5),
                status="live",
                created=0,
                creator="p1",
                creator_color="white",
                seed=1,
                white=Seat("p1", "ada"),
                black=Seat("p2", "bob"),
                moves=moves,
                version=len(moves) + 2,
                clock_white=600_000,
                clock_black=600_000,
                turn_started=1,
            )
        )
    return records


def per_position(work: Callable[[list[tuple[Record, Game]]], object], runs: int) -> float:
    """Median microseconds a position of ``work``, each run on games fresh from the records
    (their legal moves not generated yet; untimed)."""
    records = positions()
    times = []
    for _ in range(runs):
        games = [(record, record.new_game()) for record in records]
        start = time.perf_counter()
        work(games)
        times.append((time.perf_counter() - start) / len(games) * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = args.runs
    print(f"CPython {platform.python_version()}, {len(positions())} real positions, {runs} runs")

    def plain(games: list[tuple[Record, Game]]) -> None:
        for record, game in games:
            game.board.hold()  # the games share the server's stacks (``Record.new_game``)
            state(record, game, 1, legal=False)

    def full(games: list[tuple[Record, Game]]) -> None:
        for record, game in games:
            game.board.hold()
            layout = game.layout()
            with_legal(state(record, game, 1, legal=False, layout=layout), game, layout)

    def layouts(games: list[tuple[Record, Game]]) -> None:
        for _, game in games:
            game.board.hold()
            game.layout()

    def shown(games: list[tuple[Record, Game]]) -> list[tuple[str, Record, GameState]]:
        made: list[tuple[str, Record, GameState]] = []
        for record, game in games:
            game.board.hold()
            layout = game.layout()
            plain = state(record, game, 1, legal=False, layout=layout)
            made += [("plain", record, plain), ("full", record, with_legal(plain, game, layout))]
        return made

    states = shown([(record, record.new_game()) for record in positions()])
    sizes: dict[str, list[int]] = {"plain": [], "full": []}
    encoding: dict[str, list[float]] = {"plain": [], "full": []}
    for _ in range(runs):
        for name in sizes:
            start = time.perf_counter()
            frames = [
                encode(Update(record.id, record.version, [], made))
                for kind, record, made in states
                if kind == name
            ]
            encoding[name].append((time.perf_counter() - start) / len(frames) * 1e6)
            sizes[name] = [len(frame) for frame in frames]

    print(f"  state without legal moves: {per_position(plain, runs):7.1f} us")
    print(f"  state with legal moves:    {per_position(full, runs):7.1f} us")
    print(f"  the layout alone:          {per_position(layouts, runs):7.1f} us")
    for name in sizes:
        print(
            f"  {name} frame: {statistics.median(sizes[name]):6.0f} bytes (median), "
            f"encoded in {statistics.median(encoding[name]):5.1f} us"
        )


if __name__ == "__main__":
    main()
