"""Server load: moves per second and latency with many games, players and spectators.

    python -m bench.load [--games 1000] [--spectators 1000] [--rate 500] [--seconds 20]
                         [--runs 3] [--sweep] [--bots 20] [--procs 1] [--profile FILE]
                         [--servers 1] [--together] [--kill] [--server-arg ARG]

Each run starts a Redis (``server.embedded.RedisProcess``, no persistence) and ``--servers``
server processes on it (``python -m server``; one by default), connects two players per game
(on different processes when there are two or more; ``--together``: a game's players and
spectators all on one, as haproxy's routing by game places them) and the spectators
(``bench.loadgen``, in ``--procs`` processes of its own), and has the players replay real
games from ``../shared/hive-vectors`` through the real protocol at ``--rate`` moves per second
over all games (an open-loop schedule; a move waits only for the update of the move before
it). It measures, over ``--seconds`` after a warm-up:

- the moves per second sustained (moves whose update reached the opponent);
- p50 and p99 from a move sent to the opponent receiving the update with its version, p99 to
  the spectators;
- the server's memory per live game (its RSS with every game live, less its RSS before any
  connection, over the games) and the CPU used by each server process, Redis and the
  generator, and which of them is the limit (the one nearest a full core, or the machine when
  all its cores are busy);
- the same schedule through a bare ``websockets`` relay (``bench.relay``: no Redis, no rules),
  each move a frame of the size of the server's updates: our p99 over the relay's.

``--sweep`` then starts a fresh server at ``--sweep-from`` moves per second and raises the
rate by ``--sweep-factor`` until a window misses p99 < 100 ms: the highest rate that held;
with ``--servers N`` above 1 it sweeps one process and then N, and prints how many times one
process's rate N carry. ``--kill`` (with ``--servers 2`` or more) kills server 1 (SIGKILL) in
the middle of the window: its clients reconnect to the next process (``hello`` with their
token, ``watch`` since the last version seen) and go on, and every move a mover saw
acknowledged must then be in its game's record in Redis, exactly once (exit status 1 if not).
``--bots N`` runs N games against bots (``--level``, people thinking ``--think`` seconds a
move) and reports the bots' time per move against the level's budget. ``--profile FILE``
samples the server with ``py-spy`` over the first run's window (collapsed stacks in FILE) and
prints where its time goes. Prints the figures of each run and their medians; docs/load.md
has the figures and what they mean.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Final

import redis

from ai.bots import LEVELS, Bot
from ai.pool import TRACE_DEPTH
from ai.trace import TraceRecorder
from bench.loadgen import (
    CONNECT_AT_ONCE,
    Acks,
    Mode,
    Plan,
    Window,
    generator_process,
    real_games,
)
from hive import Game
from server.embedded import RedisProcess, die_with_parent
from server.storage.codec import unpack
from server.storage.keys import game_key

ROOT: Final = Path(__file__).resolve().parent.parent
P99_TARGET: Final = 0.100
RATIO_TARGET: Final = 3.0
BOT_MARGIN: Final = 1.2
BUDGETS: Final = {"beginner": 0.5, "easy": 0.5, "medium": 0.5, "hard": 2.0, "expert": 2.0}
"""Seconds per move (median) each fixed-depth level must keep to (issue 3 set medium at 0.5 s
and the top level at 2 s); a level with a time budget (``Level.seconds``) keeps to that."""
WARMUP: Final = 5.0
SCALE_TARGET: Final = 1.6
"""Two server processes must carry at least this many times what one carries (issue 11)."""
CORES: Final = len(os.sched_getaffinity(0))
CORE_FULL: Final = 0.85
"""A process using this share of a core or more is at its limit."""
MACHINE_FULL: Final = 0.9
"""The machine is full when this share of its cores is busy."""
MSGPACK_OVERHEAD: Final = 24
"""Bytes a relay frame adds around its payload (a 3-array, the game name, the version)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (NaN for no values)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


# -- processes ---------------------------------------------------------------------------------


def _proc_stat(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = _proc_stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _started(pid: int) -> int:
    """When a process started (clock ticks after boot): with its pid, who it is."""
    return int(_proc_stat(pid)[19])


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def py_spy() -> Path | None:
    """The ``py-spy`` beside this Python, or on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    found = shutil.which("py-spy")
    return beside if beside.exists() else Path(found) if found else None


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _descendants(pid: int) -> list[int]:
    found = []
    for child in _children(pid):
        found += [child, *_descendants(child)]
    return found


class ServerProcess:
    """``python -m server`` on a free port, on the Redis at ``redis_url``."""

    def __init__(
        self,
        folder: Path,
        redis_url: str,
        *,
        bot_workers: int,
        module: str = "server",
        name: str = "server",
        extra: tuple[str, ...] = (),
    ) -> None:
        self.folder = folder
        self.extra = extra
        self.redis_url = redis_url
        self.module = module
        self.name = name
        self.port = free_port()
        self.metrics_port = free_port()
        self.bot_workers = bot_workers
        self.process: subprocess.Popen[bytes] | None = None
        self.pid = 0
        self.log = folder / f"{name.replace(' ', '')}.log"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def launch(self) -> None:
        """Start the process (``wait_ready`` waits until it answers)."""
        command = [
            sys.executable,
            "-m",
            self.module,
            "--port",
            str(self.port),
            "--metrics-port",
            str(self.metrics_port),
            "--redis-url",
            self.redis_url,
            "--bot-workers",
            str(self.bot_workers),
            "--data",
            str(self.folder / f"{self.log.stem}-data"),
            # Each simulated person comes from an address of their own (bench.loadgen's
            # X-Forwarded-For): the bench is their proxy.
            "--trusted-proxies",
            "127.0.0.1",
            *self.extra,
        ]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                preexec_fn=die_with_parent,
            )
        self.pid = self.process.pid

    def wait_ready(self, timeout: float = 60.0) -> None:
        assert self.process is not None
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log.read_text()[-2000:]}")
            with (
                contextlib.suppress(OSError, urllib.error.URLError),
                urllib.request.urlopen(f"{self.http_url}/healthz", timeout=2) as answer,
            ):
                if answer.status == 200:
                    return
            time.sleep(0.1)  # polling a process that is starting up
        raise RuntimeError(f"{self.name} did not answer /healthz in {timeout} s")

    def log_summary(self, top: int = 3) -> str:
        """The server's warnings and errors, the most frequent first (numbers blanked)."""
        found: Counter[str] = Counter()
        for line in self.log.read_text(errors="replace").splitlines():
            if " WARNING " in line or " ERROR " in line:
                found[re.sub(r"[0-9a-f]{8}|\d+", "N", line.split(" ", 2)[-1])[:160]] += 1
        return "; ".join(f"{n} x {text}" for text, n in found.most_common(top))

    def kill(self) -> list[tuple[int, int]]:
        """SIGKILL the server (not its children: they find out as they would on a real
        machine); the children it had (pid, start time), to clean up after the run."""
        children = [(pid, _started(pid)) for pid in _descendants(self.pid)]
        os.kill(self.pid, signal.SIGKILL)
        return children

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


class Servers:
    """A Redis of their own (on a free TCP port, no persistence) and ``count`` server
    processes on it (``server`` alone, or ``server 1``, ``server 2``...)."""

    def __init__(
        self,
        folder: Path,
        count: int,
        *,
        bot_workers: int,
        module: str,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.redis = RedisProcess(folder / "redis", port=free_port(), persist=False)
        self.all = [
            ServerProcess(
                folder,
                self.redis.url,
                bot_workers=bot_workers,
                module=module,
                name="server" if count == 1 else f"server {n + 1}",
                extra=extra,
            )
            for n in range(count)
        ]
        self.orphans: list[tuple[int, int]] = []
        """Children of killed servers (pid, start time), ended with the run."""

    @property
    def ws_urls(self) -> tuple[str, ...]:
        return tuple(server.ws_url for server in self.all)

    @property
    def redis_pid(self) -> int:
        assert self.redis.process is not None
        return self.redis.process.pid

    def start(self) -> None:
        self.redis.start()
        for server in self.all:
            server.launch()
        for server in self.all:
            server.wait_ready()

    def rss(self) -> int:
        """The servers' RSS together (those alive)."""
        total = 0
        for server in self.all:
            with contextlib.suppress(OSError, RuntimeError):
                total += rss_bytes(server.pid)
        return total

    def stop(self, *, logs: bool = True) -> None:
        """Stop everything (``logs``: print each server's warnings and errors)."""
        for server in self.all:
            server.stop()
        for pid, started in self.orphans:
            with contextlib.suppress(OSError, IndexError, ValueError):
                if _started(pid) == started:  # still that process, not a new one on its pid
                    os.kill(pid, signal.SIGTERM)
        self.redis.stop()
        for server in self.all if logs else ():
            logged = server.log_summary()
            if logged:
                print(f"    {server.name} log: {logged}", flush=True)


class RelayProcess:
    """``python -m bench.relay`` on a free port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.relay", "--port", str(self.port)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
        self.pid = self.process.pid
        give_up = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            if time.monotonic() > give_up or self.process.poll() is not None:
                raise RuntimeError("the relay did not start")
            time.sleep(0.05)  # polling a process that is starting up

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


# -- the generator processes -------------------------------------------------------------------


class Fleet:
    """The generator processes, and the progress line while they work."""

    def __init__(self, plans: list[Plan], *, quiet: bool) -> None:
        context = multiprocessing.get_context("fork")
        self.pipes: list[Connection] = []
        self.processes = []
        for plan in plans:
            mine, theirs = context.Pipe()
            process = context.Process(target=generator_process, args=(plan, theirs), daemon=True)
            process.start()
            self.pipes.append(mine)
            self.processes.append(process)
        self.done = [0] * len(plans)
        self.errors = [0] * len(plans)
        self.quiet = quiet or not sys.stderr.isatty()

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes if p.pid is not None]

    def send(self, command: tuple[Any, ...]) -> None:
        for pipe in self.pipes:
            pipe.send(command)

    def collect(
        self,
        kind: str,
        label: str,
        until: float | None = None,
        timers: Sequence[tuple[float, Callable[[], None]]] = (),
    ) -> list[Any]:
        """Each process's answer ``kind`` (showing progress meanwhile, the seconds left until
        ``until``); each of ``timers`` is called once ``time.perf_counter()`` passes its
        time."""
        timers = sorted(timers, key=lambda timer: timer[0])
        answers: dict[int, Any] = {}
        started = time.perf_counter()
        last = (started, sum(self.done))
        rate = 0.0
        while len(answers) < len(self.pipes):
            for pipe in wait(self.pipes, timeout=0.05):
                assert isinstance(pipe, Connection)
                index = self.pipes.index(pipe)
                message = pipe.recv()
                if message[0] == "progress":
                    self.done[index], self.errors[index] = message[1], message[2]
                elif message[0] == "failed":
                    raise RuntimeError(f"generator {index} failed: {message[1]}")
                elif message[0] == kind:
                    answers[index] = message[1] if len(message) > 1 else None
                elif kind != "stopped":  # on the way out, an answer nobody awaits any more
                    raise RuntimeError(f"generator {index}: unexpected {message!r:.200}")
            for index, process in enumerate(self.processes):
                if index not in answers and not process.is_alive() and not self.pipes[index].poll():
                    raise RuntimeError(f"generator {index} died (exit code {process.exitcode})")
            now = time.perf_counter()
            while timers and now >= timers[0][0]:
                timers.pop(0)[1]()
            if now - last[0] >= 1.0:
                rate = (sum(self.done) - last[1]) / (now - last[0])
                last = (now, sum(self.done))
            if not self.quiet:
                left = f"{max(0.0, until - now):5.1f} s left  " if until is not None else ""
                line = (
                    f"\r  {label}: {now - started:5.1f} s  {left}{rate:7.0f} moves/s  "
                    f"errors {sum(self.errors)}   "
                )
                print(line, end="", file=sys.stderr, flush=True)
        if not self.quiet:
            print("\r" + " " * 78 + "\r", end="", file=sys.stderr, flush=True)
        return [answers[i] for i in range(len(self.pipes))]

    def stop(self) -> None:
        """Close the connections and end the processes (killed if they do not end)."""
        with contextlib.suppress(OSError, EOFError, RuntimeError):
            self.send(("stop",))
            self.collect("stopped", "closing connections")
        for process in self.processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()


def plans(
    args: argparse.Namespace,
    mode: Mode,
    urls: tuple[str, ...],
    padding: int = 0,
    *,
    reconnect: bool = False,
) -> list[Plan]:
    games, procs = args.games, max(1, min(args.procs, args.games))
    spectators = Counter(s % games for s in range(args.spectators))
    return [
        Plan(
            mode=mode,
            urls=urls,
            slots=list(range(p, games, procs)),
            spectators={n: spectators[n] for n in range(p, games, procs) if spectators[n]},
            games=games,
            padding=padding,
            at_once=max(1, CONNECT_AT_ONCE // procs),
            reconnect=reconnect,
            together=args.together and mode == "server",
        )
        for p in range(procs)
    ]


# -- measuring ---------------------------------------------------------------------------------


@dataclass
class Figures:
    """One measured window."""

    rate: float
    seconds: float
    moves: int = 0
    sent: int = 0
    lost: int = 0
    late: int = 0
    opponent: list[float] = field(default_factory=list)
    spectator: list[float] = field(default_factory=list)
    update_bytes: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    """Share of one core used over the window, by group of processes (``server``: all the
    server processes together; ``others``: the rest of the machine)."""
    processes: dict[str, float] = field(default_factory=dict)
    """Share of one core used over the window by each process watched."""
    cores_busy: float = float("nan")
    """Cores the whole machine kept busy over the window, on average."""
    lag_p99: float = 0.0
    bot_reply: list[float] = field(default_factory=list)
    bot_search: list[tuple[str, float, str]] = field(default_factory=list)

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds

    @property
    def p50(self) -> float:
        return percentile(self.opponent, 0.50)

    @property
    def p99(self) -> float:
        return percentile(self.opponent, 0.99)

    @property
    def spectator_p99(self) -> float:
        return percentile(self.spectator, 0.99)

    def holds(self) -> bool:
        """p99 under 100 ms at the rate asked (95% of it sustained), nothing lost or refused."""
        return (
            self.p99 < P99_TARGET
            and (not self.spectator or self.spectator_p99 < P99_TARGET)
            and self.moves_per_second >= 0.95 * self.rate
            and self.lost == 0
            and not self.errors
        )

    @property
    def cpu_per_move(self) -> float:
        """Seconds of server (or relay) CPU per move sustained."""
        used = self.cpu.get("server", self.cpu.get("relay", float("nan")))
        return used / self.moves_per_second if self.moves else float("nan")

    def limit(self) -> str:
        """Where the limit is: a process near a full core (the busiest), else the machine when
        all its cores are busy, else none (the latency then comes from pauses, not from
        throughput)."""
        if not self.processes:
            return "limit: no CPU figures"
        name, share = max(self.processes.items(), key=lambda item: item[1])
        machine_full = self.cores_busy >= MACHINE_FULL * CORES
        if share >= CORE_FULL:
            found = f"{name}, at {share:.0%} of a core"
        elif machine_full:
            found = f"the machine: all {CORES} cores busy, no process alone near a full core"
        else:
            found = "none: no process near a full core, and a core to spare"
        shares = ", ".join(f"{n} {v:.0%}" for n, v in self.processes.items())
        others = self.cpu.get("others", float("nan"))
        return (
            f"limit: {found} ({shares}; the rest of the machine {others:.0%}; "
            f"{self.cores_busy:.2f} of {CORES} cores busy in all)"
        )

    def line(self) -> str:
        cpu = "  ".join(f"{name} {share:4.0%}" for name, share in self.cpu.items())
        errors = f"  errors {self.errors}" if self.errors else ""
        return (
            f"rate {self.rate:6.0f}: {self.moves_per_second:6.0f} moves/s  "
            f"p50 {self.p50 * 1000:6.1f} ms  p99 {self.p99 * 1000:6.1f} ms  "
            f"spectators p99 {self.spectator_p99 * 1000:6.1f} ms  late {self.late}  "
            f"lost {self.lost}  cpu: {cpu} ({self.cpu_per_move * 1000:.2f} ms a move)  "
            f"generator lag p99 {self.lag_p99 * 1000:.0f} ms"
            f"{errors}"
        )


Watched = dict[str, list[int]]
"""Groups of processes whose CPU time is measured, by name."""


def every_process_cpu() -> dict[int, float]:
    """CPU seconds so far of every process on the machine, by pid. (The machine's own figures
    in /proc/stat are sampled at the scheduler's ticks, which a tickless kernel misses for
    short bursts of work: on this machine they came out up to 40% of a core below the sum of
    the processes'. A process's own figure is its exact run time.)"""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                found[int(entry.name)] = cpu_seconds(int(entry.name))
    return found


def busy_since(before: dict[int, float]) -> float:
    """CPU seconds the machine's processes used since ``before`` (``every_process_cpu``; a
    process started since counts from zero, one ended since is missed)."""
    return sum(used - before.get(pid, 0.0) for pid, used in every_process_cpu().items())


def _cpu(pids: list[int], last: dict[int, float]) -> dict[int, float]:
    """CPU seconds so far of each process (a process gone since: its ``last`` figure, which
    this call updates)."""
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            last[pid] = cpu_seconds(pid)
    return {pid: last.get(pid, 0.0) for pid in pids}


def measure(
    fleet: Fleet,
    rate: float,
    seconds: float,
    watched: Watched | Callable[[], Watched],
    label: str,
    profile: tuple[int, Path] | None = None,
    midway: Callable[[], None] | None = None,
) -> Figures:
    """One window of ``seconds`` after a warm-up, at the pace already set (``profile``: the
    process to sample with py-spy over the window, and the file for its stacks; ``midway``:
    called in the middle of the window, once the CPU figures so far are read, so that a
    process it kills is counted until then)."""
    start = time.perf_counter() + WARMUP
    end = start + seconds
    fleet.send(("window", start, end))
    while time.perf_counter() < start:
        time.sleep(0.01)  # the window's CPU figures start with it
    if callable(watched):
        watched = watched()
    fixed = {**watched, "generator": fleet.pids}
    pids = [pid for group in fixed.values() for pid in group]
    last: dict[int, float] = {}
    before = _cpu(pids, last)
    busy = every_process_cpu()
    cpu: dict[str, float] = {}
    processes: dict[str, float] = {}
    machine: list[float] = []
    spy = None
    if profile is not None:
        spy = subprocess.Popen(
            [
                str(py_spy()),
                "record",
                f"--pid={profile[0]}",
                f"--duration={round(seconds)}",
                "--rate=100",
                "--nonblocking",
                "--format=raw",
                f"--output={profile[1]}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )

    def at_end() -> None:
        after = _cpu(pids, last)
        machine.append(busy_since(busy) / seconds)
        for name, group in fixed.items():
            used = [(after[pid] - before[pid]) / seconds for pid in group]
            cpu[name] = sum(used)
            for number, share in enumerate(used, 1):
                processes[name if len(group) == 1 else f"{name} {number}"] = share
        cpu["others"] = machine[0] - sum(cpu.values())
        servers = [name for name in fixed if name.startswith("server ")]
        if servers:  # several processes: their total first (the CPU per move is of them all)
            ordered = {"server": sum(cpu[name] for name in servers), **cpu}
            cpu.clear()
            cpu.update(ordered)

    def at_middle() -> None:
        _cpu(pids, last)
        assert midway is not None
        midway()

    timers = [(end, at_end)]
    if midway is not None:
        timers.append((start + seconds / 2, at_middle))
    windows: list[Window] = fleet.collect("result", label, end, timers)
    if spy is not None and spy.wait(timeout=60) != 0:
        raise RuntimeError("py-spy failed (is it installed? pip install py-spy)")
    figures = Figures(rate, seconds, cpu=cpu, processes=processes, cores_busy=machine[0])
    errors: Counter[str] = Counter()
    lags: list[float] = []
    sizes: list[int] = []
    for window in windows:
        figures.moves += window.moves
        figures.sent += window.sent
        figures.lost += window.lost
        figures.late += window.late
        figures.opponent += window.opponent
        figures.spectator += window.spectator
        figures.bot_reply += window.bot_reply
        figures.bot_search += window.bot_search
        errors.update(window.errors)
        lags += window.lag
        sizes += window.update_bytes
    figures.errors = dict(errors)
    figures.lag_p99 = percentile(lags, 0.99) if lags else 0.0
    figures.update_bytes = statistics.fmean(sizes) if sizes else 0.0
    return figures


@dataclass
class Run:
    """The figures of one run."""

    main: Figures
    relay: Figures | None = None
    sweeps: dict[int, list[Figures]] = field(default_factory=dict)
    """Each sweep's windows, by the number of server processes."""
    memory: dict[str, int] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.main.p99 / self.relay.p99 if self.relay is not None else float("nan")

    @property
    def per_game(self) -> float:
        """Server bytes per live game (its connections included)."""
        return (self.memory["live"] - self.memory["idle"]) / self.memory["games"]

    def highest(self, servers: int) -> float | None:
        """The highest rate of the sweep with ``servers`` processes that held (a sweep stops
        at its first miss)."""
        held = [f.rate for f in self.sweeps.get(servers, []) if f.holds()]
        return max(held) if held else None


def _processes(count: int) -> str:
    return f"{count} server process{'es' if count > 1 else ''}"


@contextlib.contextmanager
def server_session(
    args: argparse.Namespace, servers: int, *, reconnect: bool = False
) -> Iterator[tuple[Servers, Fleet, Watched, dict[str, int]]]:
    """A fresh Redis and ``servers`` server processes on it, every client connected and every
    game started; the servers' RSS on the way (``idle``, ``connected``, ``live``: all the
    processes together). Everything is stopped on exit."""
    with tempfile.TemporaryDirectory(prefix="hive-load-") as folder:
        cluster = Servers(
            Path(folder),
            servers,
            bot_workers=1,
            module=args.server_module,
            extra=tuple(args.server_arg),
        )
        try:
            cluster.start()
            watched = {server.name: [server.pid] for server in cluster.all}
            watched["redis"] = [cluster.redis_pid]
            memory = {"idle": cluster.rss(), "games": args.games}
            fleet = Fleet(
                plans(args, "server", cluster.ws_urls, reconnect=reconnect), quiet=args.quiet
            )
            try:
                fleet.collect("connected", "connecting")
                memory["connected"] = cluster.rss()
                fleet.send(("setup",))
                fleet.collect("live", "starting games")
                memory["live"] = cluster.rss()
                yield cluster, fleet, watched, memory
            finally:
                fleet.stop()
        finally:
            cluster.stop()


def sweep(args: argparse.Namespace, servers: int) -> list[Figures]:
    """On fresh servers, rates up from ``--sweep-from`` by ``--sweep-factor`` until a window
    misses p99 < 100 ms (or drops moves)."""
    found: list[Figures] = []
    label = _processes(servers)
    with server_session(args, servers) as (_, fleet, watched, _):
        rate = args.sweep_from
        fleet.send(("go", time.perf_counter() + 0.5, args.games / rate))
        for _ in range(args.sweep_steps):
            figures = measure(
                fleet, rate, args.sweep_seconds, watched, f"sweep, {label}, at {rate:.0f}/s"
            )
            print(f"    sweep, {label}: {figures.line()}", flush=True)
            found.append(figures)
            if not figures.holds():
                print(f"    sweep, {label}: {figures.limit()}", flush=True)
                break
            rate = round(rate * args.sweep_factor)
            fleet.send(("pace", args.games / rate))
    return found


def run_server(args: argparse.Namespace, number: int) -> Run:
    """One run: the servers at ``--rate``, the relay at the same rate, then the sweep if
    asked (with one process too when ``--servers`` is more, for the comparison)."""
    print(
        f"run {number}: {_processes(args.servers)}, {args.games} games, "
        f"{args.spectators} spectators",
        flush=True,
    )
    with server_session(args, args.servers) as (cluster, fleet, watched, memory):
        fleet.send(("go", time.perf_counter() + 0.5, args.games / args.rate))
        first = cluster.all[0]
        profile = (first.pid, args.profile) if args.profile and number == 1 else None
        main = measure(fleet, args.rate, args.seconds, watched, f"server at {args.rate}/s", profile)
        print(f"    server {main.line()}", flush=True)
        print(f"    server {main.limit()}", flush=True)
        memory["end"] = cluster.rss()
        fleet.send(("count",))
        memory["games started"] = sum(fleet.collect("count", "counting"))
    run = Run(main, memory=memory)
    if profile is not None:
        print("\n" + profile_summary(profile[1]) + "\n", flush=True)
    if not args.no_relay:
        run.relay = run_relay(args, max(0, round(main.update_bytes) - MSGPACK_OVERHEAD))
        print(f"    relay  {run.relay.line()}", flush=True)
    if args.sweep:
        for servers in sorted({1, args.servers}):
            run.sweeps[servers] = sweep(args, servers)
    return run


def run_relay(args: argparse.Namespace, padding: int) -> Figures:
    relay = RelayProcess()
    fleet = Fleet(plans(args, "relay", (relay.ws_url,), padding), quiet=args.quiet)
    try:
        fleet.collect("connected", "relay: connecting")
        fleet.send(("setup",))
        fleet.collect("live", "relay: joining")
        fleet.send(("go", time.perf_counter() + 0.5, args.games / args.rate))
        return measure(fleet, args.rate, args.seconds, {"relay": [relay.pid]}, "relay")
    finally:
        fleet.stop()
        relay.stop()


def run_bots(args: argparse.Namespace) -> Figures:
    """``--bots`` games against the ``--level`` bots (on one server process)."""
    print(
        f"bots: {args.bots} games against {args.level} bots ({args.bot_workers} workers), "
        f"people thinking {args.think} s a move on average",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="hive-load-") as folder:
        cluster = Servers(Path(folder), 1, bot_workers=args.bot_workers, module=args.server_module)
        server = cluster.all[0]
        try:
            cluster.start()
            plan = Plan(
                mode="bots",
                urls=(server.ws_url,),
                slots=list(range(args.bots)),
                spectators={},
                games=args.bots,
                level=args.level,
                think=args.think,
                http_url=server.http_url,
            )
            fleet = Fleet([plan], quiet=args.quiet)
            try:
                fleet.collect("connected", "connecting")
                fleet.send(("go", time.perf_counter(), 1.0))
                redis_pid = cluster.redis_pid

                def watched() -> Watched:
                    return {
                        "server": [server.pid],
                        "redis": [redis_pid],
                        "bot workers": _descendants(server.pid),
                    }

                return measure(fleet, 0, args.bot_seconds, watched, "bot games")
            finally:
                fleet.stop()
        finally:
            cluster.stop(logs=False)


# -- the kill check ----------------------------------------------------------------------------


@dataclass
class KillCheck:
    """What the kill check found."""

    figures: Figures
    killed: str
    acks: list[Acks]
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    """The acknowledged moves missing from their game's record (``game ply move``)."""
    misplaced: list[str] = field(default_factory=list)
    """Games whose record holds a move that was not sent at its ply (a move twice)."""
    games: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.lost or self.misplaced)


def check_acks(redis_url: str, acks: list[Acks]) -> tuple[int, list[str], list[str], int]:
    """Every acknowledged move against the game's record in Redis: it must be there at its
    ply, and the record must hold exactly the moves sent, in order (so no move twice). The
    acknowledged moves, the lost ones, the games with a move out of place, the games."""
    client = redis.Redis.from_url(redis_url)
    acknowledged, games = 0, 0
    lost: list[str] = []
    misplaced: list[str] = []
    try:
        for found in acks:
            for game, (sent, plies) in found.games.items():
                games += 1
                acknowledged += len(plies)
                data = client.hget(game_key(game), "r")
                moves = unpack(data).moves if isinstance(data, bytes) else []
                if moves != list(sent[: len(moves)]):
                    ply = next(
                        (n for n, m in enumerate(moves) if n >= len(sent) or sent[n] != m),
                        len(moves),
                    )
                    misplaced.append(
                        f"{game}: ply {ply} is {moves[ply]!r}, sent "
                        f"{sent[ply] if ply < len(sent) else None!r} ({len(moves)} moves in the "
                        f"record, {len(sent)} sent)"
                    )
                lost += [f"{game} {ply} {sent[ply]}" for ply in plies if ply >= len(moves)]
    finally:
        client.close()
    return acknowledged, lost, misplaced, games


def run_kill(args: argparse.Namespace) -> KillCheck:
    """``--servers`` processes at ``--rate``; in the middle of the window the first one is
    killed (SIGKILL). Its clients reconnect to the next process and go on; then every move a
    mover saw acknowledged is looked up in its game's record in Redis."""
    print(
        f"kill check: {_processes(args.servers)}, {args.games} games, {args.spectators} "
        f"spectators; server 1 killed (SIGKILL) {args.seconds / 2:.0f} s into the window",
        flush=True,
    )
    with server_session(args, args.servers, reconnect=True) as (cluster, fleet, watched, _):
        victim = cluster.all[0]
        killed: list[str] = []

        def kill() -> None:
            cluster.orphans += victim.kill()
            killed.append(f"{victim.name} (pid {victim.pid}) at {time.strftime('%H:%M:%S')}")

        fleet.send(("go", time.perf_counter() + 0.5, args.games / args.rate))
        figures = measure(
            fleet, args.rate, args.seconds, watched, f"kill check at {args.rate}/s", midway=kill
        )
        print(f"    server {figures.line()}", flush=True)
        fleet.send(("acks",))
        acks: list[Acks] = fleet.collect("acks", "collecting acknowledgements")
        acknowledged, lost, misplaced, games = check_acks(cluster.redis.url, acks)
    return KillCheck(
        figures, killed[0] if killed else "nothing", acks, acknowledged, lost, misplaced, games
    )


def report_kill(check: KillCheck) -> None:
    reconnects = [s for a in check.acks for s in a.reconnects]
    welcomed = [s for a in check.acks for s in a.welcomed]
    resent = sum(a.resent for a in check.acks)
    unconfirmed = sum(a.unconfirmed for a in check.acks)
    resyncing = sum(a.resyncing for a in check.acks)
    print(f"killed {check.killed}")
    print(
        f"reconnects: {len(reconnects)} connections, from the lost connection to the answers of "
        f"their watches on the next process: p50 {_ms(percentile(reconnects, 0.5))} ms, "
        f"max {_ms(max(reconnects, default=float('nan')))} ms (to the welcome: p50 "
        f"{_ms(percentile(welcomed, 0.5))} ms, max {_ms(max(welcomed, default=float('nan')))} ms)"
        + (f"; {resyncing} still waiting for an answer" if resyncing else "")
    )
    print(
        f"moves sent again after a reconnect: {resent}"
        + (f"; updates at a move's version without it: {unconfirmed}" if unconfirmed else "")
    )
    print(
        f"acknowledged moves: {check.acknowledged}, lost: {len(check.lost)} "
        f"(looked up in the records of {check.games} games in Redis)"
    )
    for line in check.lost[:10]:
        print(f"  lost: {line}")
    if check.misplaced:
        print(f"records with a move twice or out of place: {len(check.misplaced)}")
        for line in check.misplaced[:5]:
            print(f"  {line[:300]}")


# -- the profile -------------------------------------------------------------------------------


TASKS: Final = (
    (("Connections.receive",), "requests (decode, handler, Redis commit)"),
    (
        ("Listener.listen", "Listener.published", "Fanout.deliver"),
        "delivery (listener: state, encode, send)",
    ),
    (("Heartbeat.beat",), "heartbeat (presence marks of every player, every second)"),
    (("Timers.sweep",), "deadline sweep"),
    (("LobbyFeed.broadcast",), "lobby broadcast"),
    (("Connections.drop",), "connections closing"),
    (("AbstractConnection._send_packed_command",), "Redis commands written (redis-py's task)"),
    (("EpollSelector.select",), "event loop: epoll"),
)
"""Markers of the server's tasks in a stack (the first found names the sample's task)."""
PACKAGES: Final = (
    ("_SelectorSocketTransport.write", "socket writes (send syscalls)"),
    ("EpollSelector.select", "waiting for sockets (epoll)"),
    ("hive/", "hive rules engine"),
    ("server/", "server code"),
    ("redis/", "redis-py"),
    ("websockets/", "websockets"),
    ("dataclasses.py", "dataclasses (asdict, replace, fields)"),
    ("asyncio/", "asyncio"),
)
"""The innermost frame's package (a few functions apart)."""
SHOWN: Final = ("server/", "hive/", "redis/", "websockets/", "msgpack")
"""Packages whose functions the costliest-functions list shows (not the loop's plumbing)."""


def _task(names: list[str], files: list[str]) -> str:
    for markers, label in TASKS:
        found = [names.index(m) for m in markers if m in names]
        if not found:
            continue
        if markers[0] == "Connections.receive":
            after = names[min(found) + 1 :]
            handlers = ("SignIn.", "Seating.", "Commands.")
            handler = next((n for n in after if n.startswith(handlers)), "decode")
            return f"{label}: {handler.split('.')[-1]}"
        return label
    if any(f.startswith("websockets/") for f in files):
        return "websockets outside the handlers (frames read, handshakes, keepalive)"
    if any(f.startswith("redis/") for f in files):
        return "redis-py outside the handlers (replies read, pool)"
    if "_find_and_load" in names:
        return "imports"
    return "event loop (callbacks, timers)"


def _frames(line: str) -> tuple[list[tuple[str, str]], int]:
    """The ``(function, file)`` frames of a collapsed stack, outermost first, and its count."""
    stack, _, count = line.rpartition(" ")
    frames = []
    for frame in stack.split(";"):
        name, _, where = frame.rpartition(" (")
        frames.append((name, where.rsplit(":", 1)[0]))
    return frames, int(count)


def _share(counter: Counter[str], total: int, top: int) -> list[str]:
    return [f"  {count / total:6.1%}  {name}" for name, count in counter.most_common(top)]


def profile_summary(path: Path, top: int = 20) -> str:
    """Where the server's CPU time went, from py-spy's collapsed stacks: by task (the
    server coroutine a sample is in, requests split by handler), by package (the innermost
    frame), and the costliest functions (inclusive) of the server and its libraries."""
    total = 0
    tasks: Counter[str] = Counter()
    packages: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        frames, count = _frames(line)
        total += count
        names = [name for name, _ in frames]
        files = [where for _, where in frames]
        tasks[_task(names, files)] += count
        name, where = frames[-1]
        package = where.split("/")[0] + "/" if "/" in where else where
        for marker, label in PACKAGES:
            if marker == name or where.startswith(marker):
                package = label
                break
        packages[package] += count
        for key in {f"{n} ({w})" for n, w in frames if w.startswith(SHOWN) and "__main__" not in w}:
            inclusive[key] += count
        if name == "_SelectorSocketTransport.write":
            inclusive["_SelectorSocketTransport.write (asyncio/selector_events.py)"] += count
    lines = [f"{total} samples of the server's CPU time (py-spy, {path})", "by task:"]
    lines += _share(tasks, total, top)
    lines.append("by package (innermost frame):")
    lines += _share(packages, total, 12)
    lines.append("costliest functions (inclusive):")
    lines += _share(inclusive, total, top)
    return "\n".join(lines)


# -- the report --------------------------------------------------------------------------------


def median(values: Iterator[float] | list[float]) -> float:
    found = [v for v in values if v == v]
    return statistics.median(found) if found else float("nan")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def report(runs: list[Run], args: argparse.Namespace) -> None:
    """Each run's figures, and their medians."""
    print(
        f"\n{args.games} games ({args.games * 2} players), {args.spectators} spectators, "
        f"{args.rate:.0f} moves/s asked, {args.seconds:.0f} s measured per run, "
        f"{_processes(args.servers)} on one Redis"
    )
    header = (
        f"{'run':>6} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'spect p99':>9} "
        f"{'relay p99':>9} {'ratio':>6} {'KiB/game':>8} {'server':>6} {'ms/move':>7} {'redis':>6} "
        f"{'gen':>5} {'others':>6}"
    )
    print(header)
    rows = []
    for number, run in enumerate(runs, 1):
        main, relay = run.main, run.relay
        row = [
            main.moves_per_second,
            main.p50,
            main.p99,
            main.spectator_p99,
            relay.p99 if relay is not None else float("nan"),
            run.ratio,
            run.per_game / 1024,
            main.cpu.get("server", float("nan")),
            main.cpu_per_move * 1000,
            main.cpu.get("redis", float("nan")),
            main.cpu.get("generator", float("nan")),
            main.cpu.get("others", float("nan")),
        ]
        rows.append(row)
        _print_row(str(number), row)
    medians = [median([row[i] for row in rows]) for i in range(len(rows[0]))]
    _print_row("median", medians)
    print(
        "(CPU: share of one core over the window; ms/move: server CPU per move sustained; "
        "others: the rest of the machine)"
        if args.servers == 1
        else "(CPU: share of one core over the window, server: the processes together; ms/move: "
        "their CPU per move sustained; others: the rest of the machine)"
    )
    for number, run in enumerate(runs, 1):
        print(f"run {number}: {run.main.limit()}")
    p99, ratio = medians[2], medians[5]
    print(
        f"p99 to the opponent {_ms(p99)} ms at {args.rate:.0f} moves/s: target < "
        f"{_ms(P99_TARGET)} ms {'met' if p99 < P99_TARGET else 'NOT met'}; over the relay's: "
        f"{ratio:.1f}x, target <= {RATIO_TARGET:.0f}x "
        f"{'met' if ratio <= RATIO_TARGET else 'NOT met'}"
    )
    mib = {key: median([r.memory[key] / 2**20 for r in runs]) for key in runs[0].memory}
    games = args.games
    alone = median([(r.memory["live"] - r.memory["connected"]) / games / 1024 for r in runs])
    started = median([r.memory["games started"] - games for r in runs])
    print(
        f"server RSS: {mib['idle']:.0f} MiB idle, {mib['connected']:.0f} MiB with every client "
        f"connected, {mib['live']:.0f} MiB with every game live, {mib['end']:.0f} MiB at the "
        f"end ({started:.0f} more games started meanwhile): "
        f"{median([r.per_game for r in runs]) / 1024:.0f} KiB per live game with its 3 "
        f"connections, {alone:.0f} KiB for the game alone"
    )
    print(f"update frames: {median([r.main.update_bytes for r in runs]):.0f} bytes on average")
    errors: Counter[str] = Counter()
    for run in runs:
        errors.update(run.main.errors)
    lost = sum(r.main.lost for r in runs)
    if errors or lost:
        print(f"lost moves {lost}; errors {dict(errors)}")
    if args.sweep:
        report_sweeps(runs, args)


def report_sweeps(runs: list[Run], args: argparse.Namespace) -> None:
    """The highest rate each number of processes held, where the limit was when it broke,
    and (with more than one process) how many times one process's rate the others carry."""
    best: dict[int, float] = {}
    for servers in sorted(runs[0].sweeps):
        highest = [r.highest(servers) or 0.0 for r in runs]  # 0: the first rate missed
        shown = ", ".join(f"{h:.0f}" if h else f"< {args.sweep_from:.0f}" for h in highest)
        best[servers] = median(highest)
        print(
            f"highest rate with p99 < {_ms(P99_TARGET)} ms, {_processes(servers)}: "
            f"{f'{best[servers]:.0f}' if best[servers] else f'< {args.sweep_from:.0f}'} "
            f"moves/s (runs: {shown})"
        )
        for number, run in enumerate(runs, 1):
            last = run.sweeps[servers][-1]  # the first miss, or the last step when all held
            held = " (the last step; it held)" if last.holds() else ""
            print(f"  run {number}, at {last.rate:.0f}/s{held}: {last.limit()}")
    if len(best) > 1:
        many = max(best)
        ratios = []
        for run in runs:
            one, more = run.highest(1), run.highest(many)
            ratios.append((more or 0.0) / one if one else float("nan"))
        ratio = best[many] / best[1] if best[1] else float("nan")
        shown = (
            f"below {args.sweep_from / best[1]:.2f}x"
            if best[1] and not best[many]
            else f"{ratio:.2f}x"
        )
        print(
            f"{_processes(many)} over 1: {shown} (medians; runs: "
            f"{', '.join(f'{r:.2f}' for r in ratios)}), target >= {SCALE_TARGET}x "
            f"{'met' if ratio >= SCALE_TARGET else 'NOT met'}"
            + (
                f"; this machine has {CORES} cores for {many} servers, Redis and the generator"
                if many >= CORES
                else ""
            )
        )


def _print_row(label: str, row: list[float]) -> None:
    moves, p50, p99, spect, relay, ratio, kib, server, per_move, redis, gen, others = row
    print(
        f"{label:>6} {moves:8.0f} {_ms(p50):>7} {_ms(p99):>7} {_ms(spect):>9} {_ms(relay):>9} "
        f"{ratio:6.1f} {kib:8.0f} {server:6.0%} {per_move:7.2f} {redis:6.0%} {gen:5.0%} "
        f"{others:6.0%}"
    )


def unloaded_seconds(level: str, positions: list[str]) -> list[float]:
    """Seconds a fresh bot of ``level`` takes on each position here, with nothing else
    running (as a worker does, tracing; no book, as the trace showed a search)."""
    times = []
    for number, position in enumerate(positions):
        game = Game.from_game_string(position, repetition_draw=True)
        bot = Bot(level, seed=number, use_book=False)
        started = time.perf_counter()
        bot.choose(game, trace=TraceRecorder(max_depth=TRACE_DEPTH))
        times.append(time.perf_counter() - started)
    return times


def report_bots(figures: Figures, args: argparse.Namespace) -> None:
    """The bots' time per move against their level's budget."""
    level = LEVELS[args.level]
    budget = level.seconds if level.seconds is not None else BUDGETS[args.level]
    limit = budget * BOT_MARGIN
    replies = figures.bot_reply
    searched = [(s, position) for source, s, position in figures.bot_search if source == "search"]
    loaded = [s for s, _ in searched]
    sample = searched[:: max(1, len(searched) // args.bot_recheck)][: args.bot_recheck]
    alone = unloaded_seconds(args.level, [position for _, position in sample])
    inflation = [s / a for (s, _), a in zip(sample, alone, strict=True) if a > 0]
    reply_median = median(replies)
    print(
        f"  {len(replies)} bot moves in {figures.seconds:.0f} s; {args.level}'s budget {budget} s"
    )
    print(
        f"  reply (person's move sent -> the bot's move received): median {reply_median:.3f} s, "
        f"p95 {percentile(replies, 0.95):.3f} s, max {max(replies, default=float('nan')):.3f} s: "
        f"median {'within' if reply_median <= limit else 'NOT within'} budget + 20% = {limit:.2f} s"
    )
    print(
        f"  search in the worker ({len(loaded)} searched moves, from the traces): median "
        f"{median(loaded):.3f} s, p95 {percentile(loaded, 0.95):.3f} s, max "
        f"{max(loaded, default=float('nan')):.3f} s"
    )
    print(
        f"  the same {len(alone)} positions searched alone here afterwards: median "
        f"{median(alone):.3f} s, p95 {percentile(alone, 0.95):.3f} s; under load / alone: "
        f"median {median(inflation):.2f}x, p95 {percentile(inflation, 0.95):.2f}x"
    )
    print(
        "  CPU (share of one core): "
        + ", ".join(f"{name} {share:.0%}" for name, share in figures.cpu.items())
    )
    if figures.errors:
        print(f"  errors: {figures.errors}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument(
        "--games", type=int, default=1000, help="concurrent games (default %(default)s)"
    )
    parser.add_argument("--spectators", type=int, default=1000, help="(default %(default)s)")
    parser.add_argument(
        "--rate", type=float, default=500, help="moves per second asked (default %(default)s)"
    )
    parser.add_argument(
        "--seconds", type=float, default=20, help="measured seconds (default %(default)s)"
    )
    parser.add_argument("--runs", type=int, default=3, help="(default %(default)s)")
    parser.add_argument(
        "--procs", type=int, default=1, help="generator processes (default %(default)s)"
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        help="server processes on the one Redis; a game's players are on different ones "
        "(default %(default)s; with --sweep, one process is swept too, for the comparison)",
    )
    parser.add_argument(
        "--together",
        action="store_true",
        help="every connection of a game on one process, as haproxy's routing by game "
        "places them (by default a game's players are on different processes)",
    )
    parser.add_argument(
        "--kill",
        action="store_true",
        help="the kill check (--servers 2 or more): SIGKILL server 1 in the middle of the "
        "window, its clients reconnect to the next; no acknowledged move may be lost",
    )
    parser.add_argument(
        "--sweep", action="store_true", help="find the highest rate with p99 < 100 ms"
    )
    parser.add_argument(
        "--sweep-from", type=float, default=500, help="the sweep's first rate (default %(default)s)"
    )
    parser.add_argument(
        "--sweep-factor", type=float, default=1.15, help="rate step (default %(default)s)"
    )
    parser.add_argument("--sweep-steps", type=int, default=10, help="(default %(default)s)")
    parser.add_argument("--sweep-seconds", type=float, default=10, help="(default %(default)s)")
    parser.add_argument("--no-relay", action="store_true", help="skip the relay comparison")
    parser.add_argument(
        "--profile", type=Path, help="sample the server with py-spy over the first window, to FILE"
    )
    parser.add_argument("--bots", type=int, default=0, help="games against bots (0: none)")
    parser.add_argument("--level", default="medium", choices=list(LEVELS))
    parser.add_argument(
        "--think",
        type=float,
        default=5.0,
        help="a person's mean seconds a move (default %(default)s)",
    )
    parser.add_argument("--bot-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--bot-seconds", type=float, default=60, help="(default %(default)s)")
    parser.add_argument(
        "--bot-recheck",
        type=int,
        default=30,
        help="positions searched again alone to compare (default %(default)s)",
    )
    parser.add_argument(
        "--server-module",
        default="server",
        help="the module run as the server, e.g. an instrumented wrapper (default %(default)s)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="one more argument for each server process (again for more: "
        "--server-arg=--archive-interval --server-arg=3600)",
    )
    args = parser.parse_args(argv)
    if args.games < 0 or args.spectators < 0 or args.rate <= 0 or args.runs < 1:
        parser.error("games and spectators must be >= 0, rate > 0, runs >= 1")
    if args.servers < 1:
        parser.error("--servers must be at least 1")
    if args.kill and (args.servers < 2 or args.games == 0):
        parser.error("--kill needs --servers 2 (or more) and games")
    if args.games == 0 and args.bots == 0:
        parser.error("nothing to do: --games 0 and no --bots")
    if args.profile is not None and py_spy() is None:
        parser.error("--profile needs py-spy: .venv/bin/pip install py-spy")
    print(
        f"CPython {sys.version.split()[0]}, {os.cpu_count()} cores; "
        f"{len(real_games())} real games to replay"
    )
    if args.kill:
        check = run_kill(args)
        report_kill(check)
        return 1 if check.failed else 0
    if args.games:
        runs = [run_server(args, n + 1) for n in range(args.runs)]
        report(runs, args)
    if args.bots:
        report_bots(run_bots(args), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
