"""The clocks after a restart, without any IO: the time no server ran is given back, and the
clock of a person to move waits for their client to come back (up to a bound) before it runs
again.

When no server ran for a while (``server.live.recovery`` tells from the heartbeat), every game
in progress is ``given_back`` the part of the outage its turn ran. Clients then reconnect, with
a backoff of a few seconds: the person to move is not charged for that either. Their clock is
``held`` until ``hold_ms`` after the recovery: the time the turn had used before the outage
goes into their stored clock, and ``turn_started`` moves to the hold's end, so that nothing
runs meanwhile (deadlines move with it). When their client is back (it watches the game) the
hold is ``resume``\\ d: the clock runs from then. A client not back by the hold's end is charged
from then on, as usual. One of the server's bots to move is never held (it is always there).
"""

from __future__ import annotations

from dataclasses import replace

from protocol import Event
from server.game.clock import clocks_started, time_left
from server.game.record import Record


def given_back(record: Record, last_seen: int, now: int) -> Record:
    """``record`` with the time no server ran (from ``last_seen``, the last heartbeat, to
    ``now``) given back: to the side on move, the part of it its clock ran (never more: a
    move made after the last heartbeat ran it for less); to an open game, its expiry."""
    if record.status == "live":
        lost = now - max(record.turn_started, last_seen)
        return replace(record, turn_started=record.turn_started + max(0, lost))
    if record.expires is not None:
        return replace(record, expires=record.expires + (now - last_seen))
    return record


def held(record: Record, now: int, hold_ms: int) -> Record:
    """``record`` (given back at ``now``) with the clock of its person to move held until
    ``now + hold_ms`` (the same record when nobody is: a game not in progress, a bot to move,
    no hold)."""
    seat = record.seat(record.turn)
    if record.status != "live" or seat is None or seat.bot is not None or hold_ms <= 0:
        return record
    until = now + hold_ms
    if record.time.kind == "none" or not clocks_started(record):  # the first move's timeout
        return replace(record, turn_started=record.turn_started + hold_ms, held=until)
    left = time_left(record, record.turn, now)  # what the turn used goes into the clock
    changed = {"clock_white" if record.turn == "white" else "clock_black": left}
    return replace(record, turn_started=until, held=until, **changed)  # type: ignore[arg-type]


def is_held(record: Record, now: int) -> bool:
    """Whether the clock of the side to move waits for its player at ``now``."""
    return record.status == "live" and record.held is not None and record.held > now


def resume(record: Record, player: str, now: int) -> tuple[Record, Event] | None:
    """``player``'s client is back at ``now``: if their clock is held, it runs from now (event
    ``resumed``, ``by`` their colour). None: nothing to resume."""
    seat = record.seat(record.turn)
    if not is_held(record, now) or seat is None or seat.player != player:
        return None
    assert record.held is not None
    version = record.version + 1
    started = record.turn_started - (record.held - now)
    resumed = replace(record, turn_started=started, held=None, version=version)
    return resumed, Event(version, "resumed", now, by=record.turn)
