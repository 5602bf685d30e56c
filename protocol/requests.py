"""What a client sends (client -> server), each a ``Message`` registered in
``CLIENT_MESSAGES`` by its tag. What the server sends is in ``protocol.messages``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from protocol.common import (
    MAX_BOT_GAMES,
    ChallengeAction,
    ChallengeAllow,
    ColorChoice,
    DrawAction,
    Message,
    Opponent,
    PuzzleTheme,
    Speed,
    TimeKind,
    client,
)
from protocol.values import (
    TimeControl,
)


@client("hello")
@dataclass(frozen=True)
class Hello(Message):
    """The first message of a connection: a guest ``nickname``, or the ``token`` of an earlier
    session to resume it. Credentials travel here, never in the URL."""

    nickname: str | None = None
    token: str | None = None


@client("logout")
@dataclass(frozen=True)
class Logout(Message):
    """End this session (its token stops working), or with ``everywhere`` every session of
    this player. The connections of the sessions ended are closed with ``SIGNED_OUT``
    (4001), this one included."""

    everywhere: bool = False


@client("signup")
@dataclass(frozen=True)
class SignUp(Message):
    """Make this guest an account (after ``hello``): ``name`` (2-20 letters, digits, ``_``,
    ``-``; unique ignoring case; no bot's) and ``password`` (8 to 128 characters). The
    account keeps the guest's player id, so its games, and this session. Answered with
    ``account``."""

    name: str
    password: str


@client("login")
@dataclass(frozen=True)
class LogIn(Message):
    """Sign in to an account, instead of ``hello``: answered with ``welcome`` and a new
    session token. Attempts are limited per address and per address on one account (and slowed
    past a number on one account from everywhere: never refused for it)."""

    name: str
    password: str


@client("change_password")
@dataclass(frozen=True)
class ChangePassword(Message):
    """Change this account's password: every other session of it ends (this one goes on).
    Answered with ``account``."""

    old: str
    new: str


@client("ping")
@dataclass(frozen=True)
class Ping(Message):
    """Application-level ping; ``t`` (any number, e.g. the client's clock) comes back in Pong."""

    t: float = 0.0


@client("lobby")
@dataclass(frozen=True)
class WatchLobby(Message):
    """Receive the lobby lists now and whenever they change (``subscribe`` False: stop)."""

    subscribe: bool = True


@client("create")
@dataclass(frozen=True)
class CreateGame(Message):
    """Open a game. ``opponent``: ``anyone`` may join (people and bot accounts); ``bot`` seats
    one of the server's bots of ``level`` at once; ``bots``: only a bot account may join, and
    with ``challenge`` (a bot account's name) only that one. ``rated``: the game changes its
    players' ratings (only between accounts, with a clock or days per move; never against the
    server's bots). ``rating_min``/``rating_max``: only a player whose rating in the game's
    speed lies in this range may join an open game (a guest has none: it cannot)."""

    game_type: str = "Base+MLP"
    time: TimeControl = TimeControl()
    color: ColorChoice = "random"
    opponent: Opponent = "anyone"
    level: str | None = None
    challenge: str | None = None
    rated: bool = False
    rating_min: int | None = None
    rating_max: int | None = None


@client("bot_ready")
@dataclass(frozen=True)
class BotReady(Message):
    """A bot account says what it plays: these ``game_types``, time controls of these kinds
    (``times``), at most ``max_games`` at once. While it is connected it is listed in the
    lobby's ``bots``, and people may challenge it by name. Sent again, it replaces the last."""

    game_types: list[str]
    times: list[TimeKind] = field(default_factory=lambda: ["none", "clock", "days"])
    max_games: int = 1

    def __post_init__(self) -> None:
        if not self.game_types or not self.times:
            raise ValueError("a bot plays at least one game type and one kind of time control")
        if not 1 <= self.max_games <= MAX_BOT_GAMES:
            raise ValueError(f"max_games must lie in 1..{MAX_BOT_GAMES}")


@client("join")
@dataclass(frozen=True)
class JoinGame(Message):
    game: str


@client("cancel")
@dataclass(frozen=True)
class CancelGame(Message):
    game: str


@client("watch")
@dataclass(frozen=True)
class Watch(Message):
    """Follow a game (as a player after a reconnect, or as a spectator). With ``since``, the
    last version seen, the server sends exactly the events after it, or a snapshot when they
    are too old; without it, a snapshot."""

    game: str
    since: int | None = None


@client("unwatch")
@dataclass(frozen=True)
class Unwatch(Message):
    game: str


@client("play")
@dataclass(frozen=True)
class Play(Message):
    """Play ``move`` (a UHP MoveString, or ``pass``) in the position of ``version``."""

    game: str
    version: int
    move: str


@client("resign")
@dataclass(frozen=True)
class Resign(Message):
    game: str


@client("draw")
@dataclass(frozen=True)
class Draw(Message):
    """Offer a draw, or accept or decline the opponent's offer."""

    game: str
    action: DrawAction


@client("claim")
@dataclass(frozen=True)
class ClaimWin(Message):
    """Claim the win when the opponent has stayed disconnected past the limit."""

    game: str


@client("rematch")
@dataclass(frozen=True)
class Rematch(Message):
    """Offer a rematch of a finished game (colours swapped), or accept the opponent's offer."""

    game: str


@client("chat")
@dataclass(frozen=True)
class Chat(Message):
    game: str
    text: str


@client("mute")
@dataclass(frozen=True)
class Mute(Message):
    """Refuse ``player``'s chat lines in ``game`` from now on (``mute`` False: accept them
    again). Only the game's players may, and not themselves."""

    game: str
    player: str
    mute: bool = True


@client("spectator_chat")
@dataclass(frozen=True)
class SpectatorChat(Message):
    """Open (``open`` True) or close the game's chat to spectators. Only its players may; the
    players' own lines always go."""

    game: str
    open: bool


@client("profile")
@dataclass(frozen=True)
class GetProfile(Message):
    """Ask for the profile of the account ``name`` (any case): answered with ``profile``, its
    ``page`` of archived games (``PROFILE_PAGE`` a page, newest first; 0 the first)."""

    name: str
    page: int = 0


@client("leaderboard")
@dataclass(frozen=True)
class GetLeaderboard(Message):
    """Ask for the leaderboard of ``speed``: answered with ``leaderboard``."""

    speed: Speed


@client("position")
@dataclass(frozen=True)
class GetPosition(Message):
    """Ask for a position of the analysis board: the start of ``game_type``, or the UHP
    ``game_string`` (its game type then counts), followed by ``moves`` (MoveStrings; at
    most ``MAX_ANALYSIS_MOVES`` in all, else ``too_long``). The server's engine checks
    every move and answers with ``position`` (the pieces and the legal moves); nothing is
    stored. ``id``: any number, sent back in the answer."""

    game_type: str = "Base+MLP"
    game_string: str | None = None
    moves: list[str] = field(default_factory=list)
    id: int = 0


@client("engine")
@dataclass(frozen=True)
class StartEngine(Message):
    """Turn the engine on for a position (``game_type``, ``game_string`` and ``moves`` as in
    ``position``): answered with ``lines`` each time a depth completes (the best
    ``ENGINE_LINES`` moves), then ``engine_done``. A connection has one engine run at a time:
    a new ``engine`` replaces the one running, and a closed connection ends it. ``id``: any
    number, sent back in ``lines`` and ``engine_done``."""

    game_type: str = "Base+MLP"
    game_string: str | None = None
    moves: list[str] = field(default_factory=list)
    id: int = 0


@client("engine_stop")
@dataclass(frozen=True)
class StopEngine(Message):
    """Turn the engine off: the connection's engine run, if any, ends (``engine_done``,
    ``stopped``)."""

    id: int = 0


TakebackAction = Literal["ask", "accept", "decline"]


@client("takeback")
@dataclass(frozen=True)
class Takeback(Message):
    """Ask to take back one's last move in a casual game between people, or accept or decline
    the opponent's request. Accepted, the moves are taken back so that it is the asker's turn
    again (one ply, or two when the opponent has answered), the clocks as they were at the
    start of that turn. One request at a time, ``TAKEBACKS_PER_GAME`` (3) a side a game; a
    move withdraws it. Rated games and games against a bot refuse it (``not_allowed``)."""

    game: str
    action: TakebackAction


@client("challenge")
@dataclass(frozen=True)
class Challenge(Message):
    """Challenge the account ``name`` (any case; a person, connected now) to a game: they
    and this player get ``challenge`` at once, on whichever server process they are; it
    lapses after ``CHALLENGE_SECONDS``. ``color``: this player's colour. A bot account is
    challenged with ``create`` (``opponent`` ``bots``) instead."""

    name: str
    game_type: str = "Base+MLP"
    time: TimeControl = TimeControl()
    color: ColorChoice = "random"
    rated: bool = False


@client("answer_challenge")
@dataclass(frozen=True)
class AnswerChallenge(Message):
    """Answer the ``challenge`` (its id) sent to this player (``accept``: the game starts;
    ``decline``), or take back one this player made (``withdraw``). Both players get
    ``challenge_end``."""

    challenge: str
    action: ChallengeAction


@client("follow")
@dataclass(frozen=True)
class Follow(Message):
    """Follow the account ``name`` (``follow`` False: stop). Accounts only. Answered with
    ``social``."""

    name: str
    follow: bool = True


@client("block")
@dataclass(frozen=True)
class Block(Message):
    """Block the account ``name`` (``block`` False: unblock): no challenge from them, and no
    chat line of theirs in a game this player plays. Accounts only. Answered with
    ``social``."""

    name: str
    block: bool = True


@client("allow_challenges")
@dataclass(frozen=True)
class AllowChallenges(Message):
    """Whose challenges by name this account takes: ``everyone``, ``followed`` (the players
    it follows) or ``nobody``. Answered with ``social``."""

    allow: ChallengeAllow


@client("online")
@dataclass(frozen=True)
class GetOnline(Message):
    """Ask who is online: answered with the challenges still waiting that this player made
    or was sent (each a ``challenge``: a client that connects again learns of them so), then
    ``social`` (for an account) and ``online``."""


@client("analyse_game")
@dataclass(frozen=True)
class AnalyseGame(Message):
    """Follow the computer analysis of the archived game ``game`` (a player's or anyone's):
    answered with ``game_analysis`` (stored, queued or running with its progress, or none),
    which is pushed again as it runs and when it is done. With ``start``, start it when none
    is stored or running: every position searched at one fixed strength, once (a second
    request reads it). A connection follows one game's analysis at a time (the last asked).
    Limits (``rate_limited``, ``unavailable``): docs/protocol.md."""

    game: str
    start: bool = False


@client("leave_analysis")
@dataclass(frozen=True)
class LeaveAnalysis(Message):
    """Stop following the computer analysis of ``game`` (the review page closed)."""

    game: str


@client("puzzle")
@dataclass(frozen=True)
class GetPuzzle(Message):
    """Ask for a puzzle: answered with ``puzzle``. With ``daily``, the puzzle of the day (the
    same for everyone that day); with ``id``, that puzzle; else one near this player's puzzle
    rating, of ``theme`` and ``game_type`` when given, that they have not tried while some
    are left (and not ``after``, the one just played). Its solution is not sent: the player
    moves (``puzzle_move``) or asks for it (``puzzle_solution``)."""

    theme: PuzzleTheme | None = None
    game_type: str | None = None
    daily: bool = False
    id: int | None = None
    after: int | None = None


@client("puzzle_move")
@dataclass(frozen=True)
class PuzzleMove(Message):
    """Play ``move`` (a MoveString) in the open ``puzzle``: answered with ``puzzle_answer``
    at once, right or wrong (the server compares it with the solution by piece and
    destination), with the defender's reply when right. A wrong move fails the try (the
    puzzle stays open to try again, unrated)."""

    puzzle: int
    move: str


@client("puzzle_solution")
@dataclass(frozen=True)
class ShowSolution(Message):
    """Show the open ``puzzle``'s solution: answered with ``puzzle_answer``, ``done``, with
    the whole line. Before the puzzle is solved, it fails the try."""

    puzzle: int
