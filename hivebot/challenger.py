"""``hive-bot --challenge NAME --games N``: the challenge's games, their score, and when it
gives up. ``botsession`` sends its requests; ``botgame`` tells it of each game's start and end.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from protocol import Color, CreateGame, Error, ErrorCode, GameState, TimeControl

log = logging.getLogger("hive-bot")

CHALLENGE_RETRY_SECONDS: Final = 10.0
"""Wait before challenging again after a refusal (the bot challenged was busy...)."""
CHALLENGE_REFUSALS: Final = 6
"""Refusals in a row after which ``--challenge`` gives up."""


@dataclass
class Challenger:
    """``--challenge NAME --games N``: play ``games`` games against ``name`` (a server level,
    or a bot account), one at a time, colours alternating, then stop and say the score.

    A bot that challenges plays only its challenges (it joins nothing from the lobby and
    accepts no rematch)."""

    name: str
    games: int
    game_type: str = "Base+MLP"
    time: TimeControl = field(default_factory=TimeControl)
    created: int = 0
    pending: bool = False  # a create sent, its game not seen yet
    refusals: int = 0
    score: Counter[str] = field(default_factory=Counter)  # win, draw, loss, none
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def is_due(self, *, busy: bool) -> bool:
        """Whether to create the next game now (``busy``: a game is in play or being joined)."""
        return not (self.pending or busy or self.created >= self.games or self.done.is_set())

    def request(self, levels: list[str]) -> CreateGame:
        color: Color = "white" if self.created % 2 == 0 else "black"
        if self.name in levels:
            return CreateGame(self.game_type, self.time, color, opponent="bot", level=self.name)
        return CreateGame(self.game_type, self.time, color, opponent="bots", challenge=self.name)

    def seen(self) -> None:
        """A game new to the bot arrived: if a create was pending, it is that game."""
        if self.pending:
            self.pending = False
            self.created += 1

    def ended(self, state: GameState, color: Color) -> None:
        if state.result is None:
            outcome = "none"
        elif state.result == "Draw":
            outcome = "draw"
        else:
            outcome = "win" if state.result == f"{color.title()}Wins" else "loss"
        self.score[outcome] += 1
        if sum(self.score.values()) >= self.games:
            self.done.set()

    def refused(self, error: Error) -> bool:
        """The create was refused; returns whether to try again (after
        ``CHALLENGE_RETRY_SECONDS``), or gives up (an unknown name, or ``CHALLENGE_REFUSALS``
        refusals) and sets ``done``."""
        self.pending = False
        self.refusals += 1
        log.warning("challenge to %s refused: %s", self.name, error.message)
        if error.code in (ErrorCode.UNKNOWN_BOT, ErrorCode.UNKNOWN_LEVEL) or (
            self.refusals >= CHALLENGE_REFUSALS
        ):
            log.error("giving up the challenge of %s", self.name)
            self.done.set()
            return False
        return True

    def summary(self) -> str:
        s = self.score
        return (
            f"challenge of {self.name} over: {s['win']} won, {s['draw']} drawn, {s['loss']} "
            f"lost, {s['none']} without a result"
        )
