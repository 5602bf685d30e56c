"""The archive's schema, in SQLAlchemy Core (migrations/versions creates it; a change here
needs a new migration). Times are server wall-clock milliseconds, as in Redis.

- ``players``: everyone who sat in an archived game: a guest, a person's account, a bot
  account, or one of the server's bot levels (id ``bot:LEVEL``); ``kind`` says which.
- ``games``: a finished game that had both its players: who played it (with the names they
  had then), its type, time control, moves, result, reason and times; ``rated``, its
  ``speed`` (None: no clock), and for a rated game each side's rating and deviation before it
  and the change it made (``white_rating``, ``white_rd``, ``white_change``, and black's).
- ``traces``: the search traces of bots' moves still kept when their game was archived
  (gzipped JSON, as in Redis), until ``expires``.
- ``accounts``: a name and a password that last (``server.requests.accounts``), keyed by player id;
  ``name_key`` (the name in lower case) keeps names unique ignoring case. ``password`` is
  argon2id's encoded hash, never the password.
- ``ratings``: an account's Glicko-2 rating in one speed (``server.archive.ratings``): ``rating``,
  ``rd``, ``volatility`` on Glicko's scale, rated ``games`` played, the last one ``updated``,
  and the distinct ``opponents`` of those games.
- ``rating_history``: each rated game's rating after it, per player (the profile's chart).
- ``follows`` and ``blocks``: who follows, and who blocked, whom (accounts both), since when;
  ``social_settings``: whose challenges by name an account takes (no row: everyone's).
- ``analyses``: a finished game's computer analysis (``server.live.analyst``), written once:
  the plies each position was searched (``depth``), every move's review (``moves``: JSON, a
  list of ``ai.review.PlyReview``'s fields), each side's accuracy (None: no move) for the
  profile's averages, and when it was made.
- ``puzzles``: a puzzle of ``ai.puzzles`` (loaded by ``hive-server puzzles load``): its position
  (``game_string``), its ``solution`` (MoveStrings joined by ``;``), ``theme``, ``bugs``
  (joined by ``,``), ``source``; ``key``, a hash of position and solution, keeps it loaded
  once; its Glicko-2 ``rating``, ``rd``, ``volatility`` and the rated ``tries`` of it.
- ``puzzle_ratings``: a player's puzzle rating (a guest's too: keyed by player id, as the
  server keys guests), the rated tries, those solved, the current ``streak`` of solved.
- ``puzzle_tries``: each player's rated try of a puzzle, one at most (the key): solved or not,
  the player's rating before and after, when. Its key is what rates a try once.
- ``puzzle_mining``: one row (id 1, made by its migration): how far the puzzle miner
  (``server.live.miner``) read the archived games, in the order of (``archived``, ``id``):
  the last game it read (``archived``, ``game``), and the ``games`` read in all.
- ``tournaments``: an ended tournament (``server.archive.tournaments``), written once when it
  ends: its settings (``kind``, ``name``, its creator, ``game_type``, time control, ``rated``,
  the rating range, the cap), when it ``starts`` and ``ends`` (as set; a Swiss's ``ends`` is
  its start) and when it ``ended``, its ``winner`` (None: nobody played), its ``players``, a
  Swiss's ``rounds`` and the rounds ``played``.
- ``tournament_results``: each player's line of an ended tournament's final standings: its
  ``rank`` (from 1), ``name`` and ``rating`` then, ``points``, each game's ``scores`` (JSON),
  the ``games`` played, a Swiss's ``byes`` and tie-breaks (``buchholz``,
  ``sonneborn_berger``), the arena's ``streak`` and the ``status`` at the end; ``ended``
  repeated from ``tournaments`` for a profile's list (newest first, from an index).
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

# Constraint names fixed by convention, so that a migration can name what it changes.
metadata: Final = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

players: Final = Table(
    "players",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # "guest", "account", "bot" (an account), "level"
    Column("created", BigInteger, nullable=False),  # when first archived here
)

games: Final = Table(
    "games",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("game_type", String(16), nullable=False),
    Column("white", String(40), ForeignKey("players.id"), nullable=False),
    Column("black", String(40), ForeignKey("players.id"), nullable=False),
    Column("white_name", String(64), nullable=False),
    Column("black_name", String(64), nullable=False),
    Column("white_level", String(16)),  # a server bot's level
    Column("black_level", String(16)),
    Column("result", String(16)),  # WhiteWins, BlackWins, Draw; None: aborted
    Column("reason", String(32), nullable=False),
    Column("time_kind", String(8), nullable=False),  # none, clock, days
    Column("time_base", Integer, nullable=False),
    Column("time_increment", Integer, nullable=False),
    Column("time_days", Integer, nullable=False),
    Column("moves", Text, nullable=False),  # MoveStrings joined by ";"
    Column("plies", Integer, nullable=False),
    Column("created", BigInteger, nullable=False),
    Column("ended", BigInteger, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rematch_of", String(16)),
    Column("archived", BigInteger, nullable=False),
    Column("speed", String(16)),  # bullet ... correspondence; None: no clock
    Column("white_rating", Float),  # a rated game's ratings before it, and their changes
    Column("white_rd", Float),
    Column("white_change", Float),
    Column("black_rating", Float),
    Column("black_rd", Float),
    Column("black_change", Float),
    Column("tournament", String(16)),  # the tournament it was a game of (None: none)
    Index(None, "white", "ended"),
    Index(None, "black", "ended"),
    Index(None, "ended"),
    Index(None, "white", "black", "ended"),  # a pair's games (server.archive.ratings)
    # a profile's record: counted from the index alone (server.requests.profiles)
    Index(None, "white", "result", "black_level"),
    Index(None, "black", "result", "white_level"),
    Index(None, "archived", "id"),  # the puzzle miner's walk (server.archive.mining)
    Index(None, "tournament"),
)

traces: Final = Table(
    "traces",
    metadata,
    Column("game", String(16), ForeignKey("games.id"), primary_key=True),
    Column("ply", Integer, primary_key=True),
    Column("body", LargeBinary, nullable=False),
    Column("expires", BigInteger, nullable=False),
)

accounts: Final = Table(
    "accounts",
    metadata,
    Column("player", String(40), primary_key=True),  # a guest who signs up keeps their id
    Column("name", String(24), nullable=False),
    Column("name_key", String(24), nullable=False, unique=True),  # the name in lower case
    Column("password", String(200)),  # argon2id's encoded hash; None: a bot account
    Column("bot", Boolean, nullable=False),
    Column("created", BigInteger, nullable=False),
    Column("password_changed", BigInteger, nullable=False),
)

ratings: Final = Table(
    "ratings",
    metadata,
    Column("player", String(40), ForeignKey("accounts.player"), primary_key=True),
    Column("speed", String(16), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", BigInteger, nullable=False),  # when its last rated game ended
    Column("opponents", Integer, nullable=False, server_default="0"),  # distinct, rated against
    Index(None, "speed", "rating"),
)

rating_history: Final = Table(
    "rating_history",
    metadata,
    Column("player", String(40), ForeignKey("accounts.player"), primary_key=True),
    Column("game", String(16), ForeignKey("games.id"), primary_key=True),
    Column("speed", String(16), nullable=False),
    Column("at", BigInteger, nullable=False),  # when the game ended
    Column("rating", Float, nullable=False),  # after the game
    Column("rd", Float, nullable=False),
    Index(None, "player", "at"),
)

follows: Final = Table(
    "follows",
    metadata,
    Column("follower", String(40), ForeignKey("accounts.player"), primary_key=True),
    Column("followed", String(40), ForeignKey("accounts.player"), primary_key=True),
    Column("created", BigInteger, nullable=False),
    Index(None, "followed"),
)

blocks: Final = Table(
    "blocks",
    metadata,
    Column("blocker", String(40), ForeignKey("accounts.player"), primary_key=True),
    Column("blocked", String(40), ForeignKey("accounts.player"), primary_key=True),
    Column("created", BigInteger, nullable=False),
    Index(None, "blocked"),
)

social_settings: Final = Table(
    "social_settings",
    metadata,
    Column("player", String(40), ForeignKey("accounts.player"), primary_key=True),
    Column("challenges", String(10), nullable=False),  # everyone, followed or nobody
)

analyses: Final = Table(
    "analyses",
    metadata,
    Column("game", String(16), ForeignKey("games.id"), primary_key=True),
    Column("depth", Integer, nullable=False),
    Column("moves", Text, nullable=False),  # JSON: [[ply, move, best, ...], ...]
    Column("white_accuracy", Float),
    Column("black_accuracy", Float),
    Column("created", BigInteger, nullable=False),
)

puzzles: Final = Table(
    "puzzles",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(64), nullable=False, unique=True),  # sha256 of position and line
    Column("game_type", String(32), nullable=False),
    Column("game_string", Text, nullable=False),
    Column("solution", Text, nullable=False),  # MoveStrings joined by ";"
    Column("theme", String(16), nullable=False),
    Column("bugs", String(200), nullable=False),  # the solver's bugs joined by ","
    Column("source", String(200), nullable=False),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("tries", Integer, nullable=False),
    Index(None, "rating"),
    Index(None, "theme", "rating"),
    Index(None, "game_type", "rating"),
)

puzzle_ratings: Final = Table(
    "puzzle_ratings",
    metadata,
    Column("player", String(40), primary_key=True),  # an account's or a guest's player id
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("tries", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("streak", Integer, nullable=False),
    Column("updated", BigInteger, nullable=False),
)

puzzle_tries: Final = Table(
    "puzzle_tries",
    metadata,
    Column("player", String(40), primary_key=True),
    Column("puzzle", Integer, ForeignKey("puzzles.id"), primary_key=True),
    Column("solved", Boolean, nullable=False),
    Column("rating_before", Float, nullable=False),
    Column("rating_after", Float, nullable=False),
    Column("at", BigInteger, nullable=False),
    Index(None, "player", "at"),
)

puzzle_mining: Final = Table(
    "puzzle_mining",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),  # 1: the one row
    Column("archived", BigInteger, nullable=False),  # the last game read: when archived
    Column("game", String(16), nullable=False),  # and its id ("" before the first)
    Column("games", BigInteger, nullable=False),  # games read in all
)

tournaments: Final = Table(
    "tournaments",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # arena, swiss
    Column("creator", String(40), nullable=False),
    Column("creator_name", String(64), nullable=False),
    Column("game_type", String(32), nullable=False),
    Column("time_kind", String(8), nullable=False),
    Column("time_base", Integer, nullable=False),
    Column("time_increment", Integer, nullable=False),
    Column("time_days", Integer, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating_min", Integer),
    Column("rating_max", Integer),
    Column("max_players", Integer, nullable=False),
    Column("starts", BigInteger, nullable=False),
    Column("ends", BigInteger, nullable=False),  # as set (a Swiss: its start)
    Column("ended", BigInteger, nullable=False),  # when it was over
    Column("winner", String(40)),
    Column("players", Integer, nullable=False),
    Column("rounds", Integer, nullable=False),  # a Swiss's (an arena: 0)
    Column("played", Integer, nullable=False),  # a Swiss's rounds played
    Index(None, "ended"),  # the newest ended, for the list (server.requests.tournaments)
)

tournament_results: Final = Table(
    "tournament_results",
    metadata,
    Column("tournament", String(16), ForeignKey("tournaments.id"), primary_key=True),
    Column("player", String(40), primary_key=True),
    Column("rank", Integer, nullable=False),  # from 1
    Column("name", String(64), nullable=False),
    Column("rating", Integer),  # when they joined
    Column("points", Float, nullable=False),
    Column("scores", Text, nullable=False),  # JSON: each game's points, in order
    Column("games", Integer, nullable=False),
    Column("byes", Integer, nullable=False),
    Column("buchholz", Float, nullable=False),
    Column("sonneborn_berger", Float, nullable=False),
    Column("streak", Boolean, nullable=False),
    Column("status", String(8), nullable=False),  # waiting, paused (at the end)
    Column("ended", BigInteger, nullable=False),  # the tournament's
    Index(None, "player", "ended"),
)
