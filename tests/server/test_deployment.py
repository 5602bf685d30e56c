"""What docker-compose.yml and the Dockerfile tell Docker, read as Docker reads them (no Docker
daemon runs here): ``docker-compose config`` resolves the file, and what can run without
Docker runs for real (the bot's token check, Redis on the compose file's arguments)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from server.embedded import redis_server_binary
from server.settings import Settings, available_cores
from tests.server.conftest import free_port
from tests.server.test_topology import COMPOSE_FILE, ROOT, system_tool

DOCKERFILE = ROOT / "Dockerfile"
TO_JSON = "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"


def compose_config(*profiles: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The compose file as ``docker-compose config`` resolves it, read with the PyYAML that
    docker-compose itself runs on (the interpreter its first line names)."""
    compose = system_tool("docker-compose")
    extra = [arg for profile in profiles for arg in ("--profile", profile)]
    resolved = subprocess.run(
        [compose, "-f", str(COMPOSE_FILE), *extra, "config"],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    interpreter = Path(compose).read_text(errors="replace").split("\n", 1)[0].removeprefix("#!")
    as_json = subprocess.run(
        [
            *interpreter.split(),
            "-c",
            "import json,sys,yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)",
        ],
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
        give_up = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                assert process.poll() is None, "redis-server refused the compose arguments"
                assert time.monotonic() < give_up, "redis-server does not answer"
                time.sleep(0.05)  # polling another process until it listens
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
