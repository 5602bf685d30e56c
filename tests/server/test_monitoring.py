"""The monitoring of the deployment: deploy/prometheus.yml and deploy/alerts.yml pass Debian's
``promtool``, and Debian's ``prometheus``, run on them, scrapes two running ``hive-server``
processes on their metrics ports (both targets up) and loads the alerts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.embedded import RedisProcess
from tests.server.conftest import free_port
from tests.server.deployment import ROOT, compose_text, system_tool
from tests.server.support import ServerProcess
from tests.support import until

DEPLOY = ROOT / "deploy"
ALERTS = {
    "HiveProcessDown",
    "HiveRedisAway",
    "HiveMoveLatencyHigh",
    "HiveEventLoopLag",
    "HiveOpenFilesNearLimit",
    "HiveRedisFailover",
    "HiveRedisReplicaWaitsTimingOut",
}


@pytest.mark.parametrize(
    ("command", "file"), [("config", "prometheus.yml"), ("rules", "alerts.yml")]
)
def test_promtool_passes_the_configuration_and_the_rules(command: str, file: str) -> None:
    done = subprocess.run(
        [system_tool("promtool"), "check", command, str(DEPLOY / file)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout + done.stderr


def _api(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return json.load(answer)["data"]
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None  # not listening yet


@contextlib.asynccontextmanager
async def prometheus(folder: Path, targets: list[str]) -> AsyncIterator[str]:
    """Debian's prometheus on a copy of deploy/ whose hive-targets.yml lists ``targets``; its
    base URL."""
    config = folder / "config"
    shutil.copytree(DEPLOY, config)
    listed = "".join(f"    - {target}\n" for target in targets)
    (config / "hive-targets.yml").write_text(f"- targets:\n{listed}")
    port = free_port()
    log = folder / "prometheus.log"
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(
            system_tool("prometheus"),
            f"--config.file={config / 'prometheus.yml'}",
            f"--storage.tsdb.path={folder / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=asyncio.subprocess.STDOUT,
        )
    try:
        yield f"http://127.0.0.1:{port}"
    except BaseException:
        print("prometheus's log:", log.read_text(errors="replace"), sep="\n")
        raise
    finally:
        if process.returncode is None:
            process.terminate()
        async with asyncio.timeout(30):
            await process.wait()


async def test_prometheus_scrapes_every_server_process(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    servers = []
    for name in ("server1", "server2"):
        metrics = free_port()
        server = ServerProcess(
            "--port",
            str(free_port()),
            "--metrics-port",
            str(metrics),
            "--redis-url",
            redis_server.url,
            "--data",
            str(tmp_path / name),
            "--bot-workers",
            "1",
        )
        servers.append((server, f"127.0.0.1:{metrics}"))
    try:
        for server, _ in servers:
            await server.start()
            await server.wait_for(r"metrics for Prometheus: http://127\.0\.0\.1:\d+/metrics")
        targets = [address for _, address in servers]
        async with prometheus(tmp_path / "prometheus", targets) as url:
            # The first scrape comes within one scrape_interval (15 s) of the start.
            active: list[Any] = []

            async def all_up() -> bool:
                nonlocal active
                found = await asyncio.to_thread(_api, f"{url}/api/v1/targets")
                active = [] if found is None else found["activeTargets"]
                health = {t["labels"]["instance"]: t["health"] for t in active}
                return health == dict.fromkeys(targets, "up")

            await until(all_up, lambda: f"every target up: {active}", timeout=90, every=0.5)
            built = await asyncio.to_thread(_api, f"{url}/api/v1/query?query=hive_build_info")
            assert {r["metric"]["instance"] for r in built["result"]} == set(targets)
            rules = await asyncio.to_thread(_api, f"{url}/api/v1/rules")
            loaded = {rule["name"] for group in rules["groups"] for rule in group["rules"]}
            assert loaded == ALERTS
            up = await asyncio.to_thread(_api, f"{url}/api/v1/query?query=hive_redis_up")
            assert [r["value"][1] for r in up["result"]] == ["1", "1"]
    finally:
        for server, _ in servers:
            if server.process is not None:
                await server.stop()


def test_the_compose_files_prometheus_scrapes_every_server_on_its_metrics_port() -> None:
    """deploy/hive-targets.yml lists each server of docker-compose.yml at its --metrics-port,
    and the profile "monitoring" runs Prometheus on deploy/."""
    resolved = compose_text(env={"HIVE_BOT_TOKEN": "a-token"})
    servers = {
        name: int(port)
        for name, port in re.findall(
            r"^  (server\d+):\n(?:    .*\n)*?.*--metrics-port (\d+)", resolved, re.MULTILINE
        )
    }
    assert sorted(servers) == ["server1", "server2"]
    listed = re.findall(r"^    - (\S+)$", (DEPLOY / "hive-targets.yml").read_text(), re.MULTILINE)
    assert listed == [f"{name}:{port}" for name, port in sorted(servers.items())]
    prometheus = resolved.split("\n  prometheus:\n", 1)[1]
    assert "--config.file=/etc/hive/prometheus.yml" in prometheus
    mounted = r"/deploy:/etc/hive:ro\n|source: \S*/deploy\n\s+target: /etc/hive\n"  # 1.29 | v2
    assert re.search(mounted, prometheus)
