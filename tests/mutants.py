"""Mutation testing by hand: plant each bug below in a copy of the checkout, run the tests
that should catch it, and report whether they went red.

    python -m tests.mutants            # every mutant (about ten minutes on two cores)
    python -m tests.mutants 3 7        # mutants 3 and 7 only

The mutants of ``ai/`` come first, then those of ``server/`` and the web client, each a bug
that once left every test green; their tests start Redis and Chromium as the suite does.

Each mutant is one textual change that must match exactly once in its file, so a mutant that
no longer applies (the code moved on) is reported as such instead of passing silently. A
mutant is *caught* when its tests fail; the exit status is 1 if any mutant survives or no
longer applies.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SEARCH = ["tests/ai/test_search_mutations.py", "tests/ai/test_table.py", "tests/ai/test_search.py"]
FORCED = ["tests/ai/test_forced_wins.py"]
BOTS = ["tests/ai/test_bots.py"]
BOOK = ["tests/ai/test_book.py"]
LIMITS = ["tests/server/test_limits.py"]
ACTIONS = ["tests/server/test_actions.py"]
LISTENER = [
    "tests/server/test_faults.py::"
    "test_a_listener_back_from_losing_redis_brings_its_watchers_up_to_date"
]
"""(The file's test of Redis going away catches no resync only when its move is made before the
listener is back: by chance.)"""
CLOCKS = ["tests/server/test_clocks.py", "tests/server/test_restart.py"]
PROCESSES = ["tests/server/test_processes.py"]
CONNECTION = ["tests/client/test_connection.py"]
PYTEST = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-o", "timeout=240"]
"""Stop at the first failure; a test that a mutant slows past 4 minutes fails too (caught)."""


@dataclass(frozen=True)
class Mutant:
    path: str
    old: str
    new: str
    what: str
    tests: list[str]


MUTANTS = [
    # ai/search.py
    Mutant(
        "ai/search.py",
        "if self._queen_free(game.board.hex_of[QUEENS[1 - (game.ply & 1)]]) != 1:",
        "if self._queen_free(game.board.hex_of[QUEENS[game.ply & 1]]) != 1:",
        "a leaf looks for a win at once beside its own Queen's last gap, not the enemy's",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "            return WIN - game.ply - 1\n",
        "            return WIN - game.ply\n",
        "a leaf's win at once is scored a ply early",
        SEARCH,
    ),
    Mutant(
        "ai/table.py",
        "            or threats != self.threats\n",
        "",
        "a table kept across searches with and without threats",
        SEARCH,
    ),
    Mutant(
        "ai/table.py",
        "            or null_move != self.null_move\n",
        "",
        "a table kept across searches with and without null moves",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "            game.last_moved < 0\n            or ",
        "            ",
        "a null move tried right after a pass (two passes in a row)",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "            or self.leaf() < beta\n",
        "",
        "a null move tried where the static score is already below beta",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "if cutoff or not rest or best > -MATE_BOUND:",
        "if True:",
        "cut defences never searched: a loss is believed from the K best replies alone",
        FORCED + SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "                    ranked, partial = led, True",
        "                    pass",
        "a depth cut short is thrown away even when it proved a move better than the last best",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "floor = -(WIN - ply - 1) if self._one_gap() else -(WIN - ply - 2)",
        "floor = -(WIN - ply - 2)",
        "the mate-distance floor forgets that a move can fill its own Queen's last gap",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "or (e_bound == LOWER and value >= beta)\n"
        "                        or (e_bound == UPPER and value <= alpha)",
        "or (e_bound == UPPER and value >= beta)\n"
        "                        or (e_bound == LOWER and value <= alpha)",
        "the table's lower and upper bounds swapped when an entry is read",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "table.entries[key] = (depth, to_table(best, ply), bound, best_move)",
        "table.entries[key] = (depth, best, bound, best_move)",
        "mate scores stored without their ply adjustment",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "bound = EXACT if best <= floor else UPPER",
        "bound = EXACT",
        "a node that failed low stored as exact",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "if alpha < value < beta:\n                        child.reset()",
        "if alpha < value < beta and False:\n                        child.reset()",
        "no re-search after a null window fails high (PVS)",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "order, rest = order[:limit], order[limit:]",
        "order, rest = order[: limit + 1], order[limit + 1 :]",
        "the branching limit searches K + 1 children",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "if not ranked or abs(ranked[0][1]) >= MATE_BOUND:  # no move, or proved",
        "if not ranked:",
        "iterative deepening goes on past a proved result",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "tied.sort(key=lambda pair: replies[pair[0]])",
        "tied.sort(key=lambda pair: -replies[pair[0]])",
        "the aggressive tie-break prefers the most holding replies",
        SEARCH,
    ),
    Mutant(
        "ai/search.py",
        "                    exact = value >= floor\n",
        "                    exact = value > floor\n",
        "a root move tied with the exact_top-th best keeps its null-window bound",
        SEARCH,
    ),
    # ai/bots.py
    Mutant(
        "ai/bots.py",
        "while i < n - 1 and rng.randrange(quotient) == 0:",
        "while i < n - 1 and rng.randrange(quotient) != 0:",
        "the randomness steps down the ranking with probability (Q-1)/Q",
        BOTS,
    ),
    Mutant(
        "ai/bots.py",
        "        return sum(1 for _, value in ranked if value == best)\n",
        "        return len(ranked)\n",
        "a bot that can force a win may pick a move that does not",
        BOTS + FORCED,
    ),
    Mutant(
        "ai/bots.py",
        "return sum(1 for _, value in ranked if value > -MATE_BOUND)",
        "return len(ranked)",
        "a bot may pick a move that loses by force when another does not",
        BOTS,
    ),
    Mutant(
        "ai/bots.py",
        "quotient = min(quotient, OPENING_QUOTIENT)",
        "quotient = quotient",
        "no high-randomness third move",
        BOTS,
    ),
    Mutant(
        "ai/bots.py",
        "if self._table_game_type != game.game_type:",
        "if self._table_game_type is None:",
        "the table is kept across game types",
        BOTS,
    ),
    Mutant(
        "ai/bots.py",
        "index = min(walk, candidates(result.ranked, result.exact, level.tolerance) - 1)",
        "index = min(walk, len(result.ranked) - 1)",
        "the index may fall on a move whose score is only an upper bound",
        BOTS,
    ),
    Mutant(
        "ai/bots.py",
        "candidates(result.ranked, result.exact, level.tolerance)",
        "candidates(result.ranked, result.exact)",
        "the randomness picks moves far below the best",
        BOTS,
    ),
    Mutant(
        "ai/bots.py",
        "                threats=level.threats,\n",
        "",
        "a timed level's search ignores its threats",
        BOTS,
    ),
    Mutant(
        "ai/bots.py",
        "            null_move=level.null_move,\n        )",
        "        )",
        "a fixed-depth level's search ignores its null moves",
        BOTS,
    ),
    # ai/book.py
    Mutant(
        "ai/book.py",
        "if game.ply >= 4 or game.is_over():",
        "if game.ply >= 6 or game.is_over():",
        "the book plays a third placement",
        BOOK + BOTS,
    ),
    Mutant(
        "ai/book.py",
        "shape = rng.choices(shapes, weights)[0]",
        "shape = rng.choice(shapes)",
        "the second placement ignores the book's shape weights",
        BOOK,
    ),
    Mutant(
        "ai/book.py",
        "return Shape.C if at_w1 == at_b1 else Shape.Z",
        "return Shape.Z if at_w1 == at_b1 else Shape.C",
        "C and Z openings named the wrong way round",
        BOOK,
    ),
    Mutant(
        "ai/book.py",
        "return rng.choices(items, ws)[0]",
        "return rng.choice(items)",
        "the book's weights ignored",
        BOOK,
    ),
    # server/
    Mutant(
        "server/requests/commands.py",
        "if not session.chats.take(time.monotonic()):",
        "if False:",
        "no per-connection chat limit: a connection's flood is counted against its player",
        LIMITS,
    ),
    Mutant(
        "server/requests/seating.py",
        "if not watched:  # a refused join leaves nothing behind",
        "if False:",
        "a refused join leaves its watch behind: the connection hears of the game's changes",
        ACTIONS,
    ),
    Mutant(
        "server/live/listener.py",
        "for game_id in list(self.cache.games):",
        "for game_id in []:",
        "no resync after the listener loses Redis: what was published meanwhile never comes",
        LISTENER,
    ),
    Mutant(
        "server/live/recovery.py",
        'its expiry."""\n    if record.status == "live":',
        'its expiry."""\n    return record\n    if record.status == "live":',
        "no outage credit: a restart after an outage charges the clocks for it",
        CLOCKS,
    ),
    Mutant(
        "server/storage/store.py",
        "elseif v ~= ARGV[1] then",
        "elseif false then",
        "the commit script does not compare versions: a process commits over a change",
        PROCESSES,
    ),
    Mutant(
        "server/storage/store.py",
        'events_channel = self.channels.events if lobby else ""',
        "events_channel = self.channels.events",
        "every change is heard by every process, not only by those that follow its game",
        PROCESSES,
    ),
    Mutant(
        "server/live/fanout.py",
        "        if not cache.advance(record, event):\n            return False\n",
        "        cache.advance(record, event)\n",
        "a change is passed on by whatever brings it, the cache moved forward or not: twice",
        PROCESSES,
    ),
    Mutant(
        "server/live/changes.py",
        "                if stored is not None:\n"
        "                    await self.fanout.pass_on(stored)",
        "                if stored is not None:\n                    pass",
        "no read from Redis after a commit's lost answer: the change waits for the listener",
        PROCESSES,
    ),
    Mutant(
        "server/live/lobby.py",
        "            if not self.made:\n                continue",
        "            if True:\n                continue",
        "the moves of a process's games in progress never reach the other processes' lobbies",
        PROCESSES,
    ),
    Mutant(
        "client/js/app.js",
        'if (route.page === "game") this.conn.moveTo(this.urlFor(route));',
        "",
        "a game's page goes on on the lobby's connection: a proxy cannot route it by game",
        CONNECTION,
    ),
    Mutant(
        "server/live/fanout.py",
        "moving = mover is not None and session.player == mover",
        "moving = True",
        "every watcher is sent the legal moves, not only the player to move",
        ["tests/server/test_game.py", "tests/server/test_state.py"],
    ),
    Mutant(
        "server/live/fanout.py",
        "self.follow_rematch(record, rematch)  # before the event goes out",
        "pass",
        "the players' connections do not follow a rematch: the new game goes unseen",
        ACTIONS,
    ),
    # client/
    Mutant(
        "client/js/play.js",
        "if (!pending || !conn.online || pending.sentOn === conn.number) return;",
        "if (!pending || !conn.online) return;",
        "the pending move is sent again on the connection it went on",
        CONNECTION,
    ),
]


def run(mutant: Mutant, scratch: Path) -> str:
    """Plant ``mutant`` in the scratch copy, run its tests, take it out; the verdict."""
    target = scratch / mutant.path
    original = target.read_text()
    if original.count(mutant.old) != 1:
        return "NO LONGER APPLIES"
    target.write_text(original.replace(mutant.old, mutant.new))
    try:
        done = subprocess.run(
            [*PYTEST, *mutant.tests],
            cwd=scratch,
            env={"PYTHONPATH": str(scratch), "PATH": "/usr/bin:/bin", "HOME": str(scratch)},
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        target.write_text(original)
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    if done.returncode == 1 and failed:
        return "caught by " + failed[0].removeprefix("FAILED ").split(" - ")[0]
    if done.returncode == 0:
        return "SURVIVED"
    return f"ERROR (pytest exit {done.returncode}): {done.stdout[-300:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("numbers", nargs="*", type=int, help="mutants to run (default: all)")
    args = parser.parse_args()
    chosen = args.numbers or list(range(1, len(MUTANTS) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "main"
        (Path(tmp) / "shared").symlink_to(ROOT.parent / "shared")
        for part in (
            "ai",
            "hive",
            "protocol",
            "server",
            "hivebot",
            "client",
            "bench",
            "docs",
            "tests",
            "pyproject.toml",
        ):
            source = ROOT / part
            if source.is_dir():
                skip = shutil.ignore_patterns("__pycache__", "*.so")  # the mutated sources run
                shutil.copytree(source, scratch / part, ignore=skip)
            else:
                shutil.copy(source, scratch / part)
        bad = 0
        for n in chosen:
            mutant = MUTANTS[n - 1]
            started = time.monotonic()
            verdict = run(mutant, scratch)
            bad += not verdict.startswith("caught")
            seconds = time.monotonic() - started
            print(f"{n:2}. {mutant.path}: {mutant.what}", flush=True)
            print(f"    {verdict} ({seconds:.0f} s)", flush=True)
    print(f"{len(chosen) - bad} of {len(chosen)} mutants caught")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
