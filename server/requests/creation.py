"""What may be created: the limits on open games and on games against the server's bots (the
player's, the address's, the whole lobby's, as this process's lobby counts them), the daily cap
of the games between two bots, and who may play a rated game or one with a rating range."""

from __future__ import annotations

from protocol import CreateGame, ErrorCode, ProtocolError, Seat
from server.live.lobby import LobbyBoard
from server.live.session import Session
from server.settings import Settings


def bot_pair(session: Session, message: CreateGame, challenge: Seat | None) -> str | None:
    """The key of the daily cap when a bot account challenges a server level or another
    bot account (None otherwise): the two players, in either order."""
    if not session.bot or session.player is None:
        return None
    if message.opponent == "bot" and message.level is not None:
        other = f"bot:{message.level}"
    elif challenge is not None:
        other = challenge.player
    else:
        return None
    return "pair:" + ":".join(sorted((session.player, other)))


def may_create(
    board: LobbyBoard, settings: Settings, session: Session, message: CreateGame
) -> None:
    """Refuse a game past the limits on open games (the player's, the address's, the
    whole lobby's) or on games against the server's bots (the player's, the address's).

    Raises:
        ProtocolError: NOT_ALLOWED.
    """
    player = session.player
    assert player is not None
    if message.opponent == "bot":
        checks = [
            (board.bot_games_of[player], settings.bot_games, "you play"),
            (
                board.bot_games_from[session.origin],
                settings.bot_games_per_address,
                "your address plays",
            ),
        ]
        for count, limit, who in checks:
            if count >= limit:
                raise ProtocolError(
                    ErrorCode.NOT_ALLOWED,
                    f"{who} {count} games against the server's bots (the most allowed): "
                    "finish one first",
                )
        return
    mine = sum(1 for r in board.open.values() if r.creator == player)
    if mine >= settings.open_games:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED,
            f"you have {mine} open games (the most allowed): cancel one first",
        )
    if board.open_from[session.origin] >= settings.open_games_per_address:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED,
            f"your address has {settings.open_games_per_address} open games (the most "
            "allowed): cancel one first",
        )
    if len(board.open) >= settings.open_games_total:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED,
            "the lobby is full: join one of its open games, or try again shortly",
        )


def may_rate(session: Session, message: CreateGame) -> None:
    """Refuse a rated game or a rating range where it cannot be: against the server's bots
    (casual), without a clock (no speed, so no rating), an empty range (BAD_MESSAGE: the
    request contradicts itself, whoever sends it); a rated game made by a guest
    (ACCOUNT_REQUIRED).

    Raises:
        ProtocolError: BAD_MESSAGE, ACCOUNT_REQUIRED.
    """
    low, high = message.rating_min, message.rating_max
    if not message.rated and low is None and high is None:
        return
    what = "a rated game" if message.rated else "a rating range"
    if message.opponent == "bot":
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"games against the server's bots are casual: {what} is for opponent "
            "'anyone' or 'bots'",
        )
    if message.time.kind == "none":
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"a game without a clock has no rating: {what} needs a clock or days per move",
        )
    if low is not None and high is not None and low > high:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"rating_min {low} is above rating_max {high}")
    if message.rated and not (session.account or session.bot):
        raise ProtocolError(ErrorCode.ACCOUNT_REQUIRED, "sign up or log in to play rated games")
