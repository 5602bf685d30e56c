"""A real PostgreSQL server of the tests' own (Debian's ``postgresql`` package): a cluster made
by ``initdb`` in a temporary folder, listening on 127.0.0.1 on a free port (never the machine's
own server), stopped and removed at the end. As root, it runs as the ``postgres`` user, since
PostgreSQL refuses to run as root."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Final

from tests.support import until_blocking

NEEDED: Final = ("initdb", "postgres", "pg_ctl", "createdb", "pg_isready")
START_SECONDS: Final = 30.0


def binaries() -> Path | None:
    """The folder of Debian's PostgreSQL programs (the newest version), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))
    for folder in reversed(found):
        if all((Path(folder) / name).exists() for name in NEEDED):
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PostgresProcess:
    """A PostgreSQL server in a folder of its own (``start``, ``create``, ``stop``).

    Raises:
        RuntimeError: (from ``start``) PostgreSQL is not installed (``make test`` installs
            Debian's ``postgresql``) or would not start.
    """

    def __init__(self) -> None:
        self.port = _free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="hive-pg-"))
        self.bin = binaries()
        self.process: subprocess.Popen[bytes] | None = None
        self.user: dict[str, Any] = {}
        self._made = 0

    def _run(self, name: str, *args: str) -> None:
        assert self.bin is not None
        subprocess.run([str(self.bin / name), *args], check=True, capture_output=True, **self.user)

    def start(self) -> None:
        if self.bin is None:
            raise RuntimeError(
                "the storage tests need Debian's postgresql (initdb, postgres): "
                "'make test' installs it, or run 'apt-get install postgresql'"
            )
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self.user = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
        self._run("initdb", "-D", str(self.folder / "data"), "-U", "hive", "--auth=trust", "-N")
        self._launch()

    def _launch(self) -> None:
        """Start ``postgres`` on the cluster and wait until it accepts connections."""
        assert self.bin is not None
        with open(self.folder / "log", "ab") as log:
            self.process = subprocess.Popen(
                [
                    str(self.bin / "postgres"),
                    *("-D", str(self.folder / "data"), "-p", str(self.port)),
                    *("-k", str(self.folder)),  # its unix socket here, not /var/run/postgresql
                    *("-c", "listen_addresses=127.0.0.1"),
                    *("-c", "fsync=off"),  # throwaway data: no waiting on the disk
                    *("-c", "max_connections=200"),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                **self.user,
            )
        process = self.process

        def ready() -> bool:
            if process.poll() is not None:
                raise AssertionError("postgres exited")
            return self._ready()

        try:
            until_blocking(ready, "PostgreSQL accepts connections", timeout=START_SECONDS)
        except AssertionError as error:
            self.stop()
            raise RuntimeError(
                f"PostgreSQL did not start ({error}): {self.log()[-2000:]}"
            ) from None

    def _ready(self) -> bool:
        assert self.bin is not None
        answer = subprocess.run(
            [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"],
            check=False,
        )
        return answer.returncode == 0

    def log(self) -> str:
        try:
            return (self.folder / "log").read_text(errors="replace")
        except OSError:
            return ""

    def create(self) -> str:
        """A new empty database; its URL (asyncpg)."""
        self._made += 1
        name = f"test{self._made}"
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "hive", name)
        return self.url(name)

    def url(self, name: str = "postgres") -> str:
        return f"postgresql+asyncpg://hive@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the server (fast shutdown: connections are cut) and wait for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: fast shutdown
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        """Start the stopped server again, on its port, with its databases."""
        self._launch()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
