"""A UHP engine against one of the server's levels, through a real server, with the clocks.

    python -m bench.engine_match --uhp "DIR/nokamute uhp --num-threads=1 --table-mb=32" \\
        --level expert --games 10 --time 5+3

Starts ``hive-server`` on its embedded Redis in a temporary folder, makes a bot account
(``hive-server create-bot``), and runs ``hive-bot --uhp ENGINE --challenge LEVEL --games N``,
as an engine author would; prints a line per game and the score, and how many games were lost
on time by either side (the issue's measure: none at 5+3).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


async def _line(stream: asyncio.StreamReader, pattern: str) -> re.Match[str]:
    while raw := await stream.readline():
        found = re.search(pattern, raw.decode())
        if found:
            return found
    raise RuntimeError(f"the process ended before {pattern!r}")


def _ending(http: str, game_id: str) -> tuple[str, str]:
    with urllib.request.urlopen(f"{http}/games/{game_id}.txt", timeout=10) as answer:
        return answer.headers.get("Hive-Result", "?"), answer.headers.get("Hive-Reason", "?")


async def match(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as folder:
        data = str(Path(folder) / "data")
        server = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server", "--port", "0", "--data", data, "--bot-workers", "2",
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            assert server.stderr is not None
            ready = await _line(server.stderr, r"open (http://[\d.]+:\d+)/")
            http = ready[1]
            made = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "server", "create-bot", "engine", "--data", data,
                stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            token = (await made.communicate())[0].decode().strip()
            bot = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "hivebot",
                "--server", http.replace("http", "ws") + "/ws", "--token", token,
                "--uhp", args.uhp, "--uhp-search", args.uhp_search,
                "--challenge", args.level, "--games", str(args.games),
                "--challenge-time", args.time, "--challenge-type", args.game_type,
                stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            assert bot.stderr is not None
            started, timeouts = time.monotonic(), 0
            for n in range(1, args.games + 1):
                over = await _line(bot.stderr, r"game (\w+) over: (\w+) \((\w+)\)")
                result, reason = _ending(http, over[1])
                timeouts += reason == "timeout"
                minutes = (time.monotonic() - started) / 60
                print(f"game {n}/{args.games} {over[1]}: {result} ({reason}), {minutes:.1f} min")
            summary = await _line(bot.stderr, r"challenge of .* over: .*")
            print(summary[0].strip())
            print(f"lost on time: {timeouts} of {args.games}")
            await bot.wait()
            return 0 if timeouts == 0 else 1
        finally:
            server.terminate()
            await server.wait()


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m bench.engine_match", description=__doc__)
    p.add_argument("--uhp", required=True, help="the UHP engine's command")
    p.add_argument("--uhp-search", default="time 00:00:01", help="its bestmove ceiling")
    p.add_argument("--level", default="expert")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--time", default="5+3", help="MINUTES+SECONDS")
    p.add_argument("--game-type", default="Base+MLP")
    return asyncio.run(match(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
