"""The server with a probe: what it spends a change, counted rather than timed.

    python -m bench.load --runs 1 --quiet --no-relay --seconds 15 --server-module bench.probe

Runs ``python -m server`` and, once 95% of ``PROBE_GAMES`` games (1000) are in progress and
``PROBE_DELAY`` seconds (3) more have passed, looks at the process over ``PROBE_WINDOW``
seconds (10) of moves, as ``PROBE_MODE`` says, writing to files named ``PROBE_OUT`` (a path
prefix, /tmp/probe by default) and more:

- ``counters``: per change committed in the window (Redis's ``XADD`` count): the process's
  CPU (user and system clock ticks, 100 a second), its read and write system calls
  (``/proc/self/io``), its context switches, each Redis command's calls and Redis's bytes in
  and out (``INFO``), the tasks the event loop started and the garbage collector's runs and
  seconds (``gc.callbacks``): ``OUT.counters.json``. The machine's other work moves the CPU
  a little; the calls and bytes not at all.
- ``profile``: ``cProfile`` over the window (``OUT.prof``, read with ``pstats``: the calls of
  each function; a coroutine counts once per resumption) and the commands (``OUT.stats.json``).
- ``memory``: ``tracemalloc`` from the start; one snapshot in the window, by file and line
  (``OUT.memory.txt``; the server pauses for it).
- ``stalls``: every time the event loop goes ``PROBE_STALL`` ms (15) or more without a turn,
  over the window: how long, the garbage collections within it, and where the loop's thread
  was, sampled every millisecond from another thread (``OUT.stalls.txt``, longest first).

The process's stderr goes to ``OUT.stderr``. To probe another checkout (one without this
file), run its bench with ``PYTHONPATH=/path/to/this/bench`` and ``--server-module probe``:
the probe imports the ``server`` of the directory it runs in. docs/load.md, "Where the speed
went (issue 34)", has what it found.
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import json
import os
import signal
import sys
import threading
import time
import tracemalloc
from collections import Counter
from types import FrameType
from typing import Any, Final

import redis

MODE: Final = os.environ.get("PROBE_MODE", "counters")
OUT: Final = os.environ.get("PROBE_OUT", "/tmp/probe")
WINDOW: Final = float(os.environ.get("PROBE_WINDOW", "10"))
GAMES: Final = int(os.environ.get("PROBE_GAMES", "1000"))
DELAY: Final = float(os.environ.get("PROBE_DELAY", "3"))

START: Final = signal.SIGRTMIN + 1
"""Starts the probe's look (not SIGUSR1: the server prints its threads' stacks on that one)."""
STOP: Final = signal.SIGRTMIN + 2
"""Ends it."""

_profile = cProfile.Profile()
_loop: dict[str, float] = {"tasks": 0, "collections": 0, "collected_seconds": 0.0, "since": 0.0}


def _count_task(loop: asyncio.AbstractEventLoop, coro: Any, **options: Any) -> asyncio.Task[Any]:
    _loop["tasks"] += 1
    return asyncio.Task(coro, loop=loop, **options)


def _timed_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _loop["since"] = time.perf_counter()
    else:
        _loop["collections"] += 1
        _loop["collected_seconds"] += time.perf_counter() - _loop["since"]


def _start_counting(signum: int, frame: FrameType | None) -> None:
    asyncio.get_running_loop().set_task_factory(_count_task)
    gc.callbacks.append(_timed_collection)


def _stop_counting(signum: int, frame: FrameType | None) -> None:
    asyncio.get_running_loop().set_task_factory(None)
    gc.callbacks.remove(_timed_collection)
    with open(f"{OUT}.loop.json", "w") as out:
        json.dump({key: value for key, value in _loop.items() if key != "since"}, out)


def _redis_url() -> str:
    return sys.argv[sys.argv.index("--redis-url") + 1]


def _redis_figures(client: redis.Redis) -> dict[str, Any]:
    commands: dict[str, Any] = client.info("commandstats")
    stats: dict[str, Any] = client.info("stats")
    return {
        "commands": {name: figures["calls"] for name, figures in commands.items()},
        "in": stats["total_net_input_bytes"],
        "out": stats["total_net_output_bytes"],
    }


def _process_figures() -> dict[str, int]:
    found: dict[str, int] = {}
    with open("/proc/self/io") as io:
        for line in io:
            key, value = line.split(":")
            found[key] = int(value)
    with open("/proc/self/status") as status:
        for line in status:
            if "ctxt_switches" in line:
                key, value = line.split(":")
                found[key] = int(value)
    with open("/proc/self/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()
    found["utime"], found["stime"] = int(fields[11]), int(fields[12])
    return found


def _per_change(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    commands = {
        name: after["commands"][name] - before["commands"].get(name, 0)
        for name in after["commands"]
    }
    changes = commands.get("cmdstat_xadd", 0) or 1
    return {
        "changes": changes,
        "redis_in": (after["in"] - before["in"]) / changes,
        "redis_out": (after["out"] - before["out"]) / changes,
        "commands": {name: n / changes for name, n in commands.items() if n},
    }


def _memory(signum: int, frame: FrameType | None) -> None:
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    with open(f"{OUT}.memory.txt", "w") as out:
        by_file = snapshot.statistics("filename")
        out.write(f"traced {sum(s.size for s in by_file)} bytes\nby file:\n")
        for found in by_file[:50]:
            out.write(f"  {found.size:11d} {found.count:8d} {found.traceback}\n")
        out.write("by line:\n")
        for found in snapshot.statistics("lineno")[:80]:
            out.write(f"  {found.size:11d} {found.count:8d} {found.traceback}\n")


def _start_profile(signum: int, frame: FrameType | None) -> None:
    _profile.enable()


def _stop_profile(signum: int, frame: FrameType | None) -> None:
    _profile.disable()
    _profile.dump_stats(f"{OUT}.prof")


STALL: Final = float(os.environ.get("PROBE_STALL", "15")) / 1000
LONG_TURN: Final = 0.005
"""A turn of the loop this long or longer is counted (``stalls``)."""
_beat = [0.0]  # when the loop last took its turn
_long_turns: list[float] = []
_stalls: list[dict[str, Any]] = []  # from, to, and the samples taken: where -> count
_ran: Counter[str] = Counter()  # what the stalled loop ran: the three calls from the loop
_collections: list[tuple[float, float, int]] = []  # from, to, generation


def _tick() -> None:
    now = time.perf_counter()
    if now - _beat[0] >= LONG_TURN:
        _long_turns.append(now - _beat[0])
    _beat[0] = now
    asyncio.get_running_loop().call_later(0.001, _tick)


def _collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _loop["since"] = time.perf_counter()
    else:
        _collections.append((_loop["since"], time.perf_counter(), info["generation"]))


def _start_stalls(signum: int, frame: FrameType | None) -> None:
    sys.setswitchinterval(0.0002)  # for the sampling thread to get the interpreter in time
    gc.callbacks.append(_collection)
    _tick()


def _calls(frame: FrameType | None) -> list[str]:
    """The calls of a thread's stack, innermost first, down to the event loop's runner."""
    calls = []
    while frame is not None and not (
        frame.f_code.co_name == "run" and frame.f_code.co_filename.endswith("runners.py")
    ):
        code = frame.f_code
        calls.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return calls


def _sample(main: int, stall: dict[str, Any]) -> None:
    frames = sys._current_frames()
    calls = _calls(frames.get(main))
    others = [
        " < ".join(_calls(found)[:4])
        for ident, found in frames.items()
        if ident not in (main, threading.get_ident())
    ]
    in_c = "(in C: I/O, or waiting for the interpreter)"
    where = " < ".join(calls[:12]) or in_c
    where += "".join(f"\n         other thread: {other}" for other in others)
    stall["samples"][where] += 1
    _ran[" < ".join(calls[-3:]) or in_c] += 1


def _watch_stalls(main: int) -> None:
    """Over the window: sample the loop's thread while its turn is overdue; then write what
    was found."""
    end = time.perf_counter() + WINDOW
    stall: dict[str, Any] | None = None
    while time.perf_counter() < end:
        if time.perf_counter() - _beat[0] >= STALL:
            if stall is None:
                stall = {"from": _beat[0], "samples": Counter()}
                _stalls.append(stall)
            _sample(main, stall)
        elif stall is not None:
            stall["to"] = _beat[0]
            stall = None
        time.sleep(0.001)
    gc.callbacks.remove(_collection)
    done = [found for found in _stalls if "to" in found]
    with open(f"{OUT}.stalls.txt", "w") as out:
        held = sum(found["to"] - found["from"] for found in done)
        out.write(f"{len(done)} stalls over {WINDOW} s, {1000 * held:.0f} ms in all\n")
        longest = [round(1000 * turn) for turn in sorted(_long_turns)[-20:]]
        out.write(f"{len(_long_turns)} turns of {1000 * LONG_TURN:.0f} ms or more: {longest}\n")
        out.write("what the stalled loop ran (samples):\n")
        for calls, count in _ran.most_common(25):
            out.write(f"  {count:5d} {calls}\n")
        slow = [(a, b, g) for a, b, g in _collections if b - a >= LONG_TURN]
        out.write(f"{len(_collections)} collections, of 5 ms or more: ")
        out.write(", ".join(f"gen {g} {1000 * (b - a):.0f} ms" for a, b, g in slow) + "\n")
        for found in sorted(done, key=lambda found: found["from"] - found["to"]):
            ms = 1000 * (found["to"] - found["from"])
            out.write(f"\n{ms:.1f} ms:\n")
            for where, count in found["samples"].most_common(4):
                out.write(f"  {count:4d} {where}\n")


def _watch(main: int) -> None:
    """Wait for the games, then look at the process over the window (in a thread)."""
    client = redis.Redis.from_url(_redis_url())
    while client.zcard("hive:live") < GAMES * 0.95:
        time.sleep(0.5)
    time.sleep(DELAY)
    before, process = _redis_figures(client), _process_figures()
    if MODE == "memory":
        signal.pthread_kill(main, START)
        return
    if MODE == "stalls":
        _beat[0] = time.perf_counter()
        signal.pthread_kill(main, START)
        _watch_stalls(main)
        return
    signal.pthread_kill(main, START)
    time.sleep(WINDOW)
    signal.pthread_kill(main, STOP)
    found = _per_change(before, _redis_figures(client))
    if MODE == "counters":
        after = _process_figures()
        time.sleep(0.5)  # for the loop's own figures (``_stop_counting``)
        with open(f"{OUT}.loop.json") as written:
            loop = json.load(written)
        found["loop"] = {key: value / found["changes"] for key, value in loop.items()}
        found["process"] = {key: (after[key] - process[key]) / found["changes"] for key in after}
    with open(f"{OUT}.{MODE}.json", "w") as out:
        json.dump(found, out, indent=1)


def main() -> int:
    if MODE not in ("counters", "profile", "memory", "stalls"):
        raise SystemExit(f"PROBE_MODE is counters, profile, memory or stalls, not {MODE!r}")
    if MODE == "memory":
        tracemalloc.start()
        signal.signal(START, _memory)
    elif MODE == "stalls":
        signal.signal(START, _start_stalls)
    elif MODE == "profile":
        signal.signal(START, _start_profile)
        signal.signal(STOP, _stop_profile)
    else:
        signal.signal(START, _start_counting)
        signal.signal(STOP, _stop_counting)
    errors = open(f"{OUT}.stderr", "w")  # noqa: SIM115 (open for the process's life)
    os.dup2(errors.fileno(), 2)
    threading.Thread(target=_watch, args=(threading.get_ident(),), daemon=True).start()
    from server.__main__ import main as serve

    return serve()


if __name__ == "__main__":
    sys.exit(main())
