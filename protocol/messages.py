"""What the server sends (server -> client): answers and the changes it passes on, each a
``Message`` registered in ``SERVER_MESSAGES`` by its tag. What a client sends is in
``protocol.requests``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from protocol.common import (
    CHALLENGE_SECONDS,
    CHALLENGES_IN,
    CHALLENGES_OUT,
    CHALLENGES_PER_MINUTE,
    MAX_BLOCKS,
    MAX_FOLLOWS,
    TOURNAMENT_PLAYERS,
    TOURNAMENTS_PER_DAY,
    ChallengeAllow,
    ChallengeOutcome,
    Color,
    ColorChoice,
    EngineEnd,
    ErrorCode,
    Message,
    PuzzleTheme,
    Speed,
    server,
)
from protocol.values import (
    ArchivedGame,
    BotInfo,
    EngineLine,
    Event,
    GameState,
    GameSummary,
    LeaderboardEntry,
    LegalMove,
    LevelRecord,
    MoveAnalysis,
    OnlinePlayer,
    PieceAt,
    PlayerAnalysis,
    PlayerTournament,
    PuzzleRating,
    PuzzleTry,
    RatingPoint,
    SpeedAccuracy,
    SpeedRating,
    TimeControl,
)


@dataclass(frozen=True)
class Limits:
    """What this server allows a connection (see ``Welcome``), from its settings.

    ``chat_length``: the longest chat line (characters). ``chat_burst`` lines at once, then one
    every ``chat_interval`` seconds on average. ``message_rate``: messages a second this
    connection may send on average, ``message_burst`` at once (a bot account's are higher).
    ``max_frame_bytes``: the largest frame it may send (a larger one closes it with 1009).
    ``max_watching``: games it may watch at once. ``nickname_length``: the longest nickname.
    ``first_move_timeout``: seconds each side has for its first move, with a clock or
    without one (with days per move the first moves have their days), before the game is
    aborted. ``challenges_per_minute``: challenges by name a player may make in a minute;
    ``challenges_out``/``challenges_in``: waiting for an answer at once, made and received;
    ``challenge_seconds``: how long one waits before it lapses; ``follows``, ``blocks``: the
    most players an account may follow, and block. ``tournaments_per_day``: tournaments an
    account may create in a day; ``tournament_players``: the most players of a tournament.
    """

    chat_length: int
    chat_interval: float
    chat_burst: int
    message_rate: float
    message_burst: int
    max_frame_bytes: int
    max_watching: int
    nickname_length: int
    first_move_timeout: float = 60.0
    challenges_per_minute: int = CHALLENGES_PER_MINUTE
    challenges_out: int = CHALLENGES_OUT
    challenges_in: int = CHALLENGES_IN
    challenge_seconds: int = CHALLENGE_SECONDS
    follows: int = MAX_FOLLOWS
    blocks: int = MAX_BLOCKS
    tournaments_per_day: int = TOURNAMENTS_PER_DAY
    tournament_players: int = TOURNAMENT_PLAYERS


@server("welcome")
@dataclass(frozen=True)
class Welcome(Message):
    """The answer to ``hello``: who you are, and the token to resume this session later (keep it
    secret). ``games``: your games in progress, to watch again after a reconnect. ``bot``: this
    is a bot account (created by the server's operator); ``account``: a person's account
    (``signup``, ``login``), not a guest. ``limits``: what this server allows
    this connection; ``game_types``: every game type it plays (GameTypeStrings, spelled as it
    lists them); ``levels``: the levels of its own bots (``CreateGame.level``), weakest first.
    A client takes these from here rather than knowing them itself."""

    player: str
    nickname: str
    token: str
    server_time: int
    games: list[str] = field(default_factory=list)
    bot: bool = False
    account: bool = False
    limits: Limits = field(kw_only=True)
    game_types: list[str] = field(kw_only=True)
    levels: list[str] = field(kw_only=True)


@server("account")
@dataclass(frozen=True)
class Account(Message):
    """This connection's player is the account ``name`` (after ``signup`` or
    ``change_password``)."""

    player: str
    name: str


@server("pong")
@dataclass(frozen=True)
class Pong(Message):
    t: float
    server_time: int


@server("error")
@dataclass(frozen=True)
class Error(Message):
    """A request was refused and changed nothing. ``request``: the refused message's type;
    ``game`` and ``tournament``: the game or tournament it named, if any."""

    code: ErrorCode
    message: str
    request: str | None = None
    game: str | None = None
    tournament: str | None = None


@server("lobby")
@dataclass(frozen=True)
class Lobby(Message):
    """The lobby as it stands (sent on ``lobby``, and again to a client that fell behind):
    the open games (``LOBBY_SHOWN`` at most: those for bot accounts first, then the oldest),
    the games in progress (the newest ``LOBBY_SHOWN``), the bot accounts ready to play, and
    how many open games and games in progress there are in all. ``LobbyChange`` messages
    follow it."""

    open: list[GameSummary]
    live: list[GameSummary]
    bots: list[BotInfo] = field(default_factory=list)
    open_total: int = 0
    live_total: int = 0


@server("lobby_change")
@dataclass(frozen=True)
class LobbyChange(Message):
    """What changed in the lobby since the last ``Lobby`` or ``LobbyChange``: games added to
    or changed in the open list (``open``) or the list of games in progress (``live``; a game
    listed there leaves the open list), the ids of games no longer listed (``gone``), the bot
    accounts when they changed (``bots``, the whole list; None: unchanged), and the totals."""

    open: list[GameSummary] = field(default_factory=list)
    live: list[GameSummary] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    bots: list[BotInfo] | None = None
    open_total: int = 0
    live_total: int = 0


@server("update")
@dataclass(frozen=True)
class Update(Message):
    """A game changed: the ``events`` since the recipient's last version, in order, and the
    state after them. ``snapshot`` True: the events are not given (first look, or too old);
    the state stands alone."""

    game: str
    version: int
    events: list[Event]
    state: GameState
    snapshot: bool = False


@server("profile")
@dataclass(frozen=True)
class Profile(Message):
    """A player's profile (the answer to ``profile``): ``name`` as the account spells it,
    ``player`` id, a ``bot`` account or a person, when the account was ``created``; a
    rating per speed it played rated games in; its ``wins``, ``draws`` and ``losses`` over
    every archived game; its record against each of the server's bot ``levels``; the
    ``history`` of its ratings (oldest first: its newest 500 points); ``page`` of its
    ``games`` (newest first; past the last page, none), ``total_games`` in all. An aborted
    game (no result) is neither counted nor listed."""

    name: str
    player: str
    bot: bool
    created: int
    ratings: list[SpeedRating]
    wins: int
    draws: int
    losses: int
    levels: list[LevelRecord]
    history: list[RatingPoint]
    games: list[ArchivedGame]
    page: int
    total_games: int
    accuracy: list[SpeedAccuracy] = field(default_factory=list)
    puzzles: PuzzleRating | None = None
    """Its puzzle rating (None: it never tried a puzzle); ``puzzle_tries``: its newest rated
    tries, newest first."""
    puzzle_tries: list[PuzzleTry] = field(default_factory=list)
    tournaments: list[PlayerTournament] = field(default_factory=list)
    """The ended tournaments it played in, newest first (at most ``PROFILE_TOURNAMENTS``)."""


@server("leaderboard")
@dataclass(frozen=True)
class Leaderboard(Message):
    """The leaderboard of ``speed``: at most ``LEADERBOARD_SHOWN`` players, highest rating
    first, whose rating is not provisional, who played a rated game of that speed within
    the last ``weeks`` weeks, and whose rated games of that speed were against at least
    ``opponents`` distinct opponents. ``provisional``: beside them, in a section of their
    own, at most ``LEADERBOARD_SHOWN`` players of that speed whose rating is still
    provisional (shown with a "?") and who played a rated game of it in the same weeks,
    highest rating first: a new server's players are listed before their ratings settle."""

    speed: Speed
    weeks: int
    players: list[LeaderboardEntry]
    opponents: int = 0
    provisional: list[LeaderboardEntry] = field(default_factory=list)


@server("presence")
@dataclass(frozen=True)
class Presence(Message):
    """Who is at a game, pushed to its watchers when it changes between updates (within a few
    seconds): the spectators, and each player's connection. ``white_gone``/``black_gone``:
    when that player's last connection closed (server time, ms; None: connected, or no such
    seat). A player may claim the win against an opponent gone ``claim_after`` ms or more."""

    game: str
    spectators: int
    white_gone: int | None = None
    black_gone: int | None = None
    claim_after: int = 0


@server("position")
@dataclass(frozen=True)
class Position(Message):
    """A position of the analysis board (the answer to ``position``): its ``game_type``, the
    ``moves`` from the start as the engine spells them, its ``game_string``, the UHP
    GameStateString ``state`` (``NotStarted``, ``InProgress``, ``WhiteWins``, ``BlackWins``,
    ``Draw``), whose ``turn``, the ``pieces`` (as in ``GameState``), the hands, the side to
    move's ``legal`` moves (``must_pass``: passing is its only one), and the ``last`` move
    with where it came from and went (None at the start or after a pass). ``id``: the
    request's."""

    id: int
    game_type: str
    moves: list[str]
    game_string: str
    state: str
    turn: Color
    pieces: list[PieceAt]
    legal: list[LegalMove]
    hand_white: list[str]
    hand_black: list[str]
    must_pass: bool = False
    last: LegalMove | None = None


@server("lines")
@dataclass(frozen=True)
class Lines(Message):
    """What an engine run found at one more ``depth`` (plies), sent as the depth completes:
    the best moves, best first (``EngineLine``), the ``nodes`` and ``seconds`` that depth
    took. ``id``: the ``engine`` request's."""

    id: int
    depth: int
    lines: list[EngineLine]
    nodes: int
    seconds: float


@server("engine_done")
@dataclass(frozen=True)
class EngineDone(Message):
    """An engine run ended: at the server's deepest search (``depth``), at its time limit
    (``time``), on a finished game (``over``: no lines), once every line was a proved win or
    loss (``proved``), by ``engine_stop`` (``stopped``), or when its work failed (``failed``).
    ``depth``: the deepest depth sent. ``id``: the ``engine`` request's."""

    id: int
    reason: EngineEnd
    depth: int = 0


@server("challenge")
@dataclass(frozen=True)
class ChallengeOffer(Message):
    """A challenge by name, sent to both its players as soon as it is made: its ``id``, who
    made it (``challenger``, the name, and ``challenger_player``) and whom it challenges
    (``challenged``, ``challenged_player``), the game offered (``color``: the challenger's),
    and when it lapses (``expires``, server time in ms)."""

    id: str
    challenger: str
    challenger_player: str
    challenged: str
    challenged_player: str
    game_type: str
    time: TimeControl
    color: ColorChoice
    rated: bool
    expires: int


@server("challenge_end")
@dataclass(frozen=True)
class ChallengeEnd(Message):
    """A challenge is over, sent to both its players: ``accepted`` (``game``: the game it
    started, both players in it), ``declined``, ``withdrawn`` or ``expired``."""

    id: str
    outcome: ChallengeOutcome
    game: str | None = None


@server("social")
@dataclass(frozen=True)
class Social(Message):
    """An account's own lists: the names of the players it follows (``following``) and has
    ``blocked``, and whose challenges it takes (``allow``)."""

    following: list[str]
    blocked: list[str]
    allow: ChallengeAllow = "everyone"


@server("online")
@dataclass(frozen=True)
class Online(Message):
    """Who is online now: the accounts of people connected (``ONLINE_SHOWN`` at most, by
    name; ``total`` in all), and the games in progress of the players the asker follows."""

    players: list[OnlinePlayer]
    total: int
    games: list[GameSummary] = field(default_factory=list)


@server("game_analysis")
@dataclass(frozen=True)
class GameAnalysis(Message):
    """The computer analysis of ``game``, to those who follow it (``analyse_game``).

    ``status``: ``none`` (not analysed: ``analyse_game`` with ``start`` asks for it),
    ``queued`` (waiting for a worker), ``running`` (``done`` of ``total`` positions searched),
    ``done`` (every move in ``moves``, and each player's figures). ``depth``: the plies each
    position was searched. Pushed as positions are done and once when it is finished."""

    game: str
    status: Literal["none", "queued", "running", "done"]
    done: int = 0
    total: int = 0
    depth: int = 0
    moves: list[MoveAnalysis] = field(default_factory=list)
    white: PlayerAnalysis | None = None
    black: PlayerAnalysis | None = None


@server("puzzle")
@dataclass(frozen=True)
class Puzzle(Message):
    """A puzzle (the answer to ``puzzle``): its ``id``, ``game_type``, ``theme``, its
    ``rating``, the ``position`` to solve (as ``position`` shows one: the side to move, its
    legal moves, the last move), whether it is the puzzle of the ``daily``, and the player's
    puzzle ``rating`` (``player``) and newest rated tries (``tries``, newest first). Not its
    solution."""

    id: int
    game_type: str
    theme: PuzzleTheme
    rating: int
    position: Position
    player: PuzzleRating
    daily: bool = False
    tries: list[PuzzleTry] = field(default_factory=list)


@server("puzzle_answer")
@dataclass(frozen=True)
class PuzzleAnswer(Message):
    """The answer to ``puzzle_move`` and ``puzzle_solution`` in ``puzzle``: the ``move`` as the
    engine spells it (empty: the solution was asked), ``correct``; ``frames``: the positions to
    show in turn (after a right move: after it, then after the defender's reply; with the
    solution: after each of its moves from the puzzle's position); ``done``: the line is over
    (``solved``: by the player, without a wrong move or asking). Once done, or after a wrong
    move, the try is rated when it is the player's first of the puzzle (``rated``): their
    puzzle rating after it (``player``) and its ``change``, and the puzzle's ``rating``.
    ``solution`` (the whole line) and ``bugs`` (the solver's) only once ``done``."""

    puzzle: int
    move: str
    correct: bool
    done: bool
    solved: bool
    frames: list[Position]
    rated: bool = False
    player: PuzzleRating | None = None
    change: int = 0
    rating: int = 0
    solution: list[str] = field(default_factory=list)
    bugs: list[str] = field(default_factory=list)
