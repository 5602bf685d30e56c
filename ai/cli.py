"""``hive-ai``: the bots on the command line.

    hive-ai bestmove "<GameString>" [--level L] [--seed S] [--trace FILE] [--trace-depth N]
    hive-ai arena A [B] --games N [--parallel P] [--uhp "CMD"] [--seconds S]
                  [--sprt ELO0 ELO1] [--save FILE] ...
    hive-ai review "<GameString>" [--depth D] [--workers N] [--quiet]
    hive-ai lines "<GameString>" [--seconds S] [--count N] [--depth D]
    hive-ai puzzles [--games N] [--game-types T,T] [--parallel P] [--out FILE]
    hive-ai levels

``bestmove`` prints one MoveString; ``arena`` plays games between two levels (or a level and an
external UHP engine) with a progress bar and prints the result table (with ``--seconds``, both
sides at that time a move; with ``--sprt``, it stops once the test has decided); ``review``
prints each move's evaluation and mark, and each player's accuracy (``ai.review``); ``lines``
prints the best moves and their variations as each depth completes (``ai.analysis``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm

from ai.analysis import DepthLines, generate_lines
from ai.arena import DEFAULT_MAX_PLIES, GameRecord, Player, run_arena
from ai.bots import BASELINES, LEVELS, Bot
from ai.evaluation import MATE_BOUND, WIN
from ai.puzzles import mine
from ai.review import REVIEW_DEPTH, Mapper, PlyReview, Review, review
from ai.stats import VARIETY_PLY, Sprt, Summary, sprt, summarize
from ai.trace import TraceRecorder
from ai.uhpclient import EngineStartError, UhpClient
from hive import Game, GameType, HiveError

INTERRUPTED = 130
"""``arena``'s exit status when Ctrl-C stopped it early (after reporting the finished games)."""


def _bestmove(args: argparse.Namespace) -> int:
    try:
        game = Game.from_game_string(args.game_string)
    except HiveError as error:
        return _fail(str(error))
    if game.is_over():
        return _fail(f"the game is over ({game.state}): there is no move to find")
    trace = TraceRecorder(max_depth=args.trace_depth) if args.trace else None
    choice = Bot(args.level, seed=args.seed).choose(game, trace=trace)
    if trace is not None:
        try:
            Path(args.trace).write_text(trace.to_json(indent=1) + "\n")
        except OSError as error:
            return _fail(f"cannot write the trace: {error}")
    print(game.move_string(choice.move))
    return 0


def _arena(args: argparse.Namespace) -> int:
    try:
        a = Player.bot(args.a, args.seconds)
        if args.uhp is not None:
            if args.b is not None:
                raise ValueError("name one level and --uhp, or two levels, not both")
            b = Player.engine(args.uhp, args.uhp_search or uhp_time(args.seconds or 1))
        else:
            b = Player.bot(args.b or args.a, args.seconds)
        game_type = GameType.parse(args.game_type)
        test = None if args.sprt is None else sprt([], *args.sprt)  # (its bounds checked)
    except (ValueError, HiveError) as error:
        return _fail(str(error))
    if args.games < 1 or args.parallel < 1:
        return _fail("--games and --parallel must be at least 1")
    if b.uhp is not None:
        try:  # fail now, with one line, rather than in the first game
            UhpClient(b.uhp, b.uhp_search).close()
        except EngineStartError as error:
            return _fail(str(error))
    print(
        f"{a.name} (A) vs {b.name} (B): {args.games} games of {game_type}, "
        f"{args.parallel} process(es), seed {args.seed}"
        + ("" if args.seconds is None else f", {args.seconds:g} s a move")
        + ("" if test is None else f", SPRT elo0 {test.elo0:+g} elo1 {test.elo1:+g}"),
        file=sys.stderr,
    )
    with tqdm(total=args.games, unit="game", file=sys.stderr, disable=args.quiet) as bar:

        def progress(record: GameRecord) -> None:
            bar.update()
            bar.set_postfix_str(f"A scored {record.score:g} in game {record.index}")

        def decided(records: list[GameRecord]) -> bool:
            if test is None:
                return False
            now = sprt([r.score for r in records], test.elo0, test.elo1)
            bar.set_postfix_str(f"LLR {now.llr:.2f} ({now.lower:.2f} .. {now.upper:.2f})")
            return now.decision is not None

        try:
            records = run_arena(
                a,
                b,
                args.games,
                parallel=args.parallel,
                game_type=game_type,
                seed=args.seed,
                max_plies=args.max_plies,
                on_game=progress,
                stop=decided,
            )
        except EngineStartError as error:
            bar.close()
            return _fail(str(error))
    ended = test is not None and decided(records)
    interrupted = len(records) < args.games and not ended
    if interrupted:
        print(f"interrupted: {len(records)} of {args.games} games finished", file=sys.stderr)
    if args.save:
        Path(args.save).write_text("".join(r.game_string + "\n" for r in records))
    if records:
        print(format_summary(a.name, b.name, summarize(records)))
    if records and test is not None:
        print(format_sprt(sprt([r.score for r in records], test.elo0, test.elo1)))
    return INTERRUPTED if interrupted else 0


def uhp_time(seconds: float) -> str:
    """A UHP engine's ``bestmove`` search of ``seconds`` (``time hh:mm:ss``: whole seconds).

    Raises:
        ValueError: Not a whole number of seconds.
    """
    if seconds != int(seconds) or seconds < 1:
        raise ValueError(
            f"a UHP engine's time is whole seconds (hh:mm:ss), not {seconds:g}: "
            "give --uhp-search for it"
        )
    whole = int(seconds)
    return f"time {whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def format_sprt(test: Sprt) -> str:
    """The SPRT's line: its hypotheses, its log-likelihood ratio and bounds, its decision."""
    said = {
        "H1": f"H1 accepted: A is at least {test.elo1:+g} Elo",
        "H0": f"H0 accepted: A is at most {test.elo0:+g} Elo",
        None: "undecided",
    }[test.decision]
    return (
        f"  SPRT elo0 {test.elo0:+g} elo1 {test.elo1:+g} (alpha = beta = 0.05): "
        f"LLR {test.llr:.2f} ({test.lower:.2f} .. {test.upper:.2f}), {said}"
    )


def format_summary(a: str, b: str, s: Summary) -> str:
    """The arena's result table, from A's point of view."""
    shapes = ", ".join(f"{k} {v}" for k, v in s.shapes.items())
    ends = ", ".join(f"{k} {v}" for k, v in s.ends.items())
    return "\n".join(
        [
            f"{a} vs {b}: {s.games} games",
            f"  A: +{s.wins} ={s.draws} -{s.losses}  score {s.score:.1%}",
            f"  Elo difference {s.elo:+.0f} (95% interval {s.elo_low:+.0f} .. {s.elo_high:+.0f})",
            f"  seconds per move: {a} median {s.a_seconds[0]:.3f} p95 {s.a_seconds[1]:.3f}"
            f" max {s.a_seconds[2]:.3f}; {b} median {s.b_seconds[0]:.3f}"
            f" p95 {s.b_seconds[1]:.3f} max {s.b_seconds[2]:.3f}",
            f"  distinct openings {s.distinct_openings} (shapes: {shapes}); "
            f"distinct games {s.distinct_games}; distinct positions at ply {VARIETY_PLY} "
            f"{s.distinct_positions} of {s.games_reaching} games (up to symmetry)",
            f"  endings: {ends}",
        ]
    )


def _review(args: argparse.Namespace) -> int:
    try:
        game = Game.from_game_string(args.game_string)
    except HiveError as error:
        return _fail(str(error))
    if args.depth < 2 or args.workers < 1:
        return _fail("--depth must be at least 2 and --workers at least 1")
    fields = args.game_string.split(";")
    moves = fields[3:] if game.moves else []
    with (
        _mapper(args.workers) as mapper,
        tqdm(total=len(moves), unit="ply", file=sys.stderr, disable=args.quiet) as bar,
    ):

        def progress(_: PlyReview) -> None:
            bar.update()

        done = review(game.game_type, moves, depth=args.depth, mapper=mapper, on_ply=progress)
    print(format_review(done))
    return 0


@contextmanager
def _mapper(workers: int) -> Iterator[Mapper]:
    """``map`` over ``workers`` processes (here, for one)."""
    if workers == 1:
        yield map
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield pool.map


def format_review(done: Review) -> str:
    """A review as a table: one row per move, then each player's marks and accuracy."""
    rows = [
        f"{'ply':>4} {'move':<12} {'white':>7} {'chance':>6}  {'best':<12} {'best':>7} "
        f"{'played':>7}  mark"
    ]
    for p in done.plies:
        rows.append(
            f"{p.ply + 1:>4} {p.move:<12} {_score(p.white_score, p.ply):>7} {p.chance:>6.0%}  "
            f"{'=' if p.best == p.move else p.best:<12} {_score(p.best_score, p.ply):>7} "
            f"{_score(p.played_score, p.ply):>7}  {_mark(p)}"
        )
    rows.extend(format_players(done))
    return "\n".join(rows)


def format_players(done: Review) -> list[str]:
    """Each player's line of a review: their accuracy and their marks."""
    rows = []
    for name, player in (("White", done.white), ("Black", done.black)):
        accuracy = "-" if player.accuracy is None else f"{player.accuracy:.1f}"
        rows.append(
            f"{name}: accuracy {accuracy}; {player.inaccuracies} inaccuracies, "
            f"{player.mistakes} mistakes, {player.blunders} blunders"
        )
    return rows


def _mark(p: PlyReview) -> str:
    return "" if p.mark is None else f"{p.mark} (-{p.drop:.0%})"


def _score(value: int, ply: int) -> str:
    """A score at ``ply`` for people: signed, ``win/N`` or ``loss/N`` for a result proved
    ``N`` plies ahead."""
    if abs(value) >= MATE_BOUND:
        return f"{'win' if value > 0 else 'loss'}/{WIN - abs(value) - ply}"
    return f"{value:+d}"


def _lines(args: argparse.Namespace) -> int:
    try:
        game = Game.from_game_string(args.game_string)
    except HiveError as error:
        return _fail(str(error))
    if game.is_over():
        return _fail(f"the game is over ({game.state}): there are no lines")
    if args.seconds <= 0 or args.count < 1 or (args.depth is not None and args.depth < 1):
        return _fail("--seconds must be positive, --count and --depth at least 1")
    deadline = time.monotonic() + args.seconds
    for found in generate_lines(
        game, count=args.count, max_depth=args.depth, deadline=deadline, clock=time.monotonic
    ):
        print(format_lines(game, found), flush=True)
    return 0


def format_lines(game: Game, found: DepthLines) -> str:
    """One depth's lines: a header, then each move's score (``win/N``: a win proved ``N``
    plies ahead), chance and variation (MoveStrings separated by ``;``, as in a GameString)."""
    rows = [f"depth {found.depth}: {found.nodes:,} nodes, {found.seconds:.2f} s"]
    for number, line in enumerate(found.lines, 1):
        pv = []
        for move in line.pv:
            pv.append(game.move_string(move))
            game.push(move)
        for _ in line.pv:
            game.pop()
        score = _score(line.score, game.ply)
        rows.append(f"  {number}. {score:>9} {line.chance:>4.0%}  {'; '.join(pv)}")
    return "\n".join(rows)


def _levels(args: argparse.Namespace) -> int:
    for level in LEVELS.values():
        print(level)
    for level in BASELINES.values():
        print(f"{level}  (arena baseline)")
    return 0


def _puzzles(args: argparse.Namespace) -> int:
    try:
        types = [str(GameType.parse(text)) for text in args.game_types.split(",")]
    except HiveError as error:
        return _fail(str(error))
    if args.games < 1 or args.parallel < 1:
        return _fail("--games and --parallel must be at least 1")
    try:
        out = open(args.out, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    except OSError as error:
        return _fail(f"cannot write the puzzles: {error}")
    found: Counter[str] = Counter()
    seen: set[tuple[int, int]] = set()
    again = done = 0
    started = time.monotonic()
    jobs = [(n, types[n % len(types)], args.seed) for n in range(args.games)]
    with (
        out,
        ProcessPoolExecutor(args.parallel) as pool,
        tqdm(total=args.games, unit="game", file=sys.stderr, disable=args.quiet) as bar,
    ):
        futures = [pool.submit(mine, *job) for job in jobs]
        try:
            for future in as_completed(futures):
                for puzzle in future.result():
                    if puzzle.position() in seen:
                        again += 1  # (another game reached the same position)
                        continue
                    seen.add(puzzle.position())
                    out.write(json.dumps(asdict(puzzle)) + "\n")
                    found[f"{puzzle.theme} {puzzle.game_type}"] += 1
                out.flush()
                done += 1
                bar.update()
                bar.set_postfix_str(f"{sum(found.values())} puzzles")
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
    minutes = (time.monotonic() - started) / 60
    total = sum(found.values())
    print(
        f"{total} puzzles from {done} games in {minutes:.1f} min ({total / minutes:.1f} a minute;"
        f" {again} found again in another game, left out)"
    )
    for kind, count in sorted(found.items()):
        print(f"  {kind}: {count}")
    return 0 if done == args.games else INTERRUPTED


def _fail(message: str) -> int:
    print(f"hive-ai: error: {message}", file=sys.stderr)
    return 2


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="hive-ai", description="Hive Arena bots")
    commands = top.add_subparsers(dest="command", required=True)

    best = commands.add_parser("bestmove", help="print the bot's move for a GameString")
    best.add_argument("game_string", help='a UHP GameString, e.g. "Base;InProgress;Black[1];wS1"')
    best.add_argument("--level", default="expert", choices=list(LEVELS))
    best.add_argument("--seed", type=int, default=None, help="seed for a reproducible choice")
    best.add_argument("--trace", metavar="FILE", help="write the search tree as JSON")
    best.add_argument("--trace-depth", type=int, default=2, help="plies stored in the trace")
    best.set_defaults(run=_bestmove)

    arena = commands.add_parser("arena", help="play games between two levels or an engine")
    arena.add_argument("a", help="player A: a level (LEVEL:best: with its randomness off)")
    arena.add_argument("b", nargs="?", help="player B: a level, or LEVEL:best (default: A again)")
    arena.add_argument("--games", type=int, default=100)
    arena.add_argument("--parallel", type=int, default=1, help="worker processes")
    arena.add_argument("--uhp", metavar="CMD", help="player B: an external UHP engine command")
    arena.add_argument(
        "--uhp-search",
        default=None,
        help="what follows bestmove for the external engine (default: time --seconds, or 1 s)",
    )
    arena.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="each bot's time a move (the levels' own budgets otherwise): equal time",
    )
    arena.add_argument(
        "--sprt",
        type=float,
        nargs=2,
        metavar=("ELO0", "ELO1"),
        help="stop once a sequential test decides between A +ELO0 and +ELO1 Elo",
    )
    arena.add_argument("--game-type", default="Base+MLP")
    arena.add_argument("--seed", type=int, default=0)
    arena.add_argument(
        "--max-plies",
        type=int,
        default=DEFAULT_MAX_PLIES,
        help="adjudicate a draw after this many plies",
    )
    arena.add_argument("--save", metavar="FILE", help="write every game's GameString")
    arena.add_argument("--quiet", action="store_true", help="no progress bar")
    arena.set_defaults(run=_arena)

    analyse = commands.add_parser("review", help="review a game: each move's mark, accuracies")
    analyse.add_argument("game_string", help="a UHP GameString of the game to review")
    analyse.add_argument("--depth", type=int, default=REVIEW_DEPTH, help="plies per position")
    analyse.add_argument("--workers", type=int, default=2, help="worker processes")
    analyse.add_argument("--quiet", action="store_true", help="no progress bar")
    analyse.set_defaults(run=_review)

    lines = commands.add_parser("lines", help="the best moves and their variations, by depth")
    lines.add_argument("game_string", help="a UHP GameString of the position")
    lines.add_argument("--seconds", type=float, default=5.0, help="time to search")
    lines.add_argument("--count", type=int, default=3, help="how many of the best moves")
    lines.add_argument("--depth", type=int, default=None, help="the deepest search")
    lines.set_defaults(run=_lines)

    puzzles = commands.add_parser(
        "puzzles", help="find puzzles in games the bots play (JSON lines, one a puzzle)"
    )
    puzzles.add_argument("--games", type=int, default=100, help="games to play and read")
    puzzles.add_argument(
        "--game-types", default="Base,Base+M,Base+L,Base+P,Base+MLP", help="played in turn"
    )
    puzzles.add_argument("--parallel", type=int, default=2, help="worker processes")
    puzzles.add_argument("--seed", type=int, default=0)
    puzzles.add_argument("--out", default="puzzles.jsonl", help="where the puzzles go")
    puzzles.add_argument("--quiet", action="store_true", help="no progress bar")
    puzzles.set_defaults(run=_puzzles)

    levels = commands.add_parser("levels", help="list the bot levels")
    levels.set_defaults(run=_levels)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
