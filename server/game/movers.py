"""Who played a move: a person, a bot account (a program signed in as a player, ``hive-bot``),
or one of the server's own bots (``server.live.botturns``). The moves are counted by who played
them (the label ``player`` of ``hive_moves_total``, ``server.edge.metrics``)."""

from __future__ import annotations

from typing import Final

PERSON: Final = "person"
BOT_ACCOUNT: Final = "bot_account"
SERVER_BOT: Final = "server_bot"
