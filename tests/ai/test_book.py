"""The weighted opening book: shapes, weighted choices, the data file."""

import math
import random
import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ai.book import (
    BookError,
    BookLevel,
    OpeningBook,
    Shape,
    classify,
    turn_at,
)
from ai.bots import LEVELS as BOT_LEVELS
from hive import Bug, Game, GameType, Move, Piece
from hive.board import HAND
from hive.hexes import NEIGHBORS, ORIGIN, hex_at
from hive.pieces import ALL_GAME_TYPES, BASE, BASE_MLP, BUG_COUNTS, BUG_OF
from tests.ai.chisquare import chi_squared_pvalue

C, I, L, Z, X = Shape.C, Shape.I, Shape.L, Shape.Z, Shape.X  # noqa: E741 (shape names)
GEOMETRIC = (C, I, L, Z)
LEVELS = tuple(OpeningBook.load().levels)  # the shipped book's levels
DRAWS = 4000
P_MIN = 0.001

# The nine openings with Black's first piece East of White's: the turns at w1 and b1 are the
# marks of wQ (- straight, \ bent left, / bent right) and of bQ (- straight, / left, \ right).
EAST_OPENINGS = [
    ("wS1;bS1 wS1-;wQ -wS1;bQ bS1-", I),
    ("wG1;bS1 wG1-;wQ -wG1;bQ bS1/", L),  # bend at b1, to the left
    ("wB1;bB1 wB1-;wQ -wB1;bQ bB1\\", L),  # bend at b1, to the right
    ("wS1;bG1 wS1-;wQ \\wS1;bQ bG1-", L),  # bend at w1, to the left
    ("wA1;bA1 wA1-;wQ /wA1;bQ bA1-", L),  # bend at w1, to the right
    ("wS1;bS1 wS1-;wQ \\wS1;bQ bS1/", C),  # both to the left
    ("wG1;bB1 wG1-;wQ /wG1;bQ bB1\\", C),  # both to the right
    ("wS1;bG1 wS1-;wQ \\wS1;bQ bG1\\", Z),  # left, then right
    ("wB1;bS1 wB1-;wQ /wB1;bQ bS1/", Z),  # right, then left
]

# The shape of each pair of turns (at w1, at b1): +1 left, -1 right, 0 straight.
TURN_SHAPES = {
    (0, 0): I,
    (0, 1): L,
    (0, -1): L,
    (1, 0): L,
    (-1, 0): L,
    (1, 1): C,
    (-1, -1): C,
    (1, -1): Z,
    (-1, 1): Z,
}

_AFTER = {"-": 0, "/": 1, "\\": 5}
_BEFORE = {"\\": 2, "-": 3, "/": 4}


def turned(move: str, rotation: int, *, mirror: bool = False) -> str:
    """A MoveString turned by ``rotation`` sixths of a turn counterclockwise, after a
    reflection across the East-West axis if ``mirror``."""
    match = re.fullmatch(r"(\w+) ([-/\\]?)(\w+)([-/\\]?)", move)
    if match is None:
        return move  # the first move names no reference
    piece, before, reference, after = match.groups()
    direction = _BEFORE[before] if before else _AFTER[after]
    if mirror:
        direction = -direction % 6
    direction = (direction + rotation) % 6
    mark = "-/\\-/\\"[direction]
    return f"{piece} {reference}{mark}" if direction in (0, 1, 5) else f"{piece} {mark}{reference}"


def from_moves(moves: str, game_type: str = "Base") -> Game:
    count = len(moves.split(";"))
    turn = f"{'White' if count % 2 == 0 else 'Black'}[{count // 2 + 1}]"
    return Game.from_game_string(f"{game_type};InProgress;{turn};{moves}")


def built_opening(
    direction: int, at_w1: int, at_b1: int, pieces: tuple[Piece, ...] | None = None
) -> Game:
    """The opening with b1 in ``direction`` from w1, turning by ``at_w1`` and ``at_b1``."""
    b1 = NEIGHBORS[ORIGIN][direction]
    w2 = NEIGHBORS[ORIGIN][(direction - at_w1 + 3) % 6]
    b2 = NEIGHBORS[b1][(direction + at_b1) % 6]
    game = Game()
    for piece, h in zip(
        pieces or (Piece.wS1, Piece.bS1, Piece.wQ, Piece.bQ), (0, b1, w2, b2), strict=True
    ):
        move = Move(piece, HAND, h)
        assert move in game.legal_moves()
        game.push(move)
    return game


@cache
def default_book() -> OpeningBook:
    return OpeningBook.load()


def custom_book(
    first: Mapping[Bug, float] | None = None,
    second: Mapping[Bug, float] | None = None,
    shapes: Mapping[Shape, float] | None = None,
) -> OpeningBook:
    level = BookLevel(
        first=first or {Bug.SPIDER: 1.0},
        second=second or {Bug.QUEEN: 1.0},
        shapes=shapes or dict.fromkeys(GEOMETRIC, 1.0),
    )
    return OpeningBook({"custom": level})


def play_opening(book: OpeningBook, game: Game, level: str, rng: random.Random) -> list[Move]:
    moves = []
    while game.ply < 4:
        move = book.choose(game, level, rng)
        assert move is not None
        game.push(move)
        moves.append(move)
    return moves


def assert_fits(observed: Counter[Any], expected: Mapping[Any, float]) -> None:
    """Chi-squared goodness of fit of ``observed`` counts to ``expected`` probabilities."""
    assert set(observed) <= {key for key, p in expected.items() if p > 0}
    keys = sorted(key for key, p in expected.items() if p > 0)
    total = sum(observed.values())
    f_obs = [observed[key] for key in keys]
    f_exp = [expected[key] / sum(expected.values()) * total for key in keys]
    assert min(f_exp) >= 5, "too few draws for a chi-squared test"
    pvalue = chi_squared_pvalue(f_obs, f_exp)
    assert pvalue > P_MIN, (dict(zip(keys, f_obs, strict=True)), pvalue)


def normalised(weights: Mapping[Any, float], keep: Any) -> dict[Any, float]:
    kept = {key: w for key, w in weights.items() if key in keep}
    total = sum(kept.values())
    return {key: w / total for key, w in kept.items()}


def expected_first(level: BookLevel, game_type: GameType) -> dict[Bug, float]:
    return normalised(level.first, set(game_type.bugs) - {Bug.QUEEN})


def expected_second(level: BookLevel, game_type: GameType) -> dict[Bug, float]:
    """The second bug's odds: a bug with one piece that came first cannot come second."""
    odds: dict[Bug, float] = dict.fromkeys(game_type.bugs, 0.0)
    for first, p in expected_first(level, game_type).items():
        left = {b for b in game_type.bugs if b != first or BUG_COUNTS[b] > 1}
        for bug, q in normalised(level.second, left).items():
            odds[bug] += p * q
    return odds


def expected_shapes(level: BookLevel, game_type: GameType) -> dict[Shape, float]:
    """The shape's odds when both sides play ``level``: White's second piece goes straight for
    I, bent for C and Z, and to any of its three hexes (one straight) for L; Black then draws
    among the shapes still possible."""
    p = normalised(level.shapes, GEOMETRIC)
    straight = p[I] + p[L] / 3
    bent = 1 - straight
    after_bent = p[L] + p[C] + p[Z]
    geometry = {
        I: straight * p[I] / (p[I] + p[L]),
        L: straight * p[L] / (p[I] + p[L]) + bent * p[L] / after_bent,
        C: bent * p[C] / after_bent,
        Z: bent * p[Z] / after_bent,
    }
    queen = expected_second(level, game_type)[Bug.QUEEN]
    both_queens = queen * queen
    return {X: 1 - both_queens} | {s: both_queens * q for s, q in geometry.items()}


# -- classify ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("moves", "shape"), EAST_OPENINGS)
@pytest.mark.parametrize("rotation", range(6))
@pytest.mark.parametrize("mirror", [False, True], ids=["direct", "mirrored"])
def test_classify_hand_built_game_strings_in_every_orientation(
    moves: str, shape: Shape, rotation: int, mirror: bool
) -> None:
    game = from_moves(";".join(turned(m, rotation, mirror=mirror) for m in moves.split(";")))
    assert classify(game) is shape


def test_rotated_game_strings_cover_the_six_orientations() -> None:
    moves = EAST_OPENINGS[5][0].split(";")
    black_first = {
        from_moves(";".join(turned(m, k) for m in moves)).board.hex_of[Piece.bS1] for k in range(6)
    }
    assert black_first == set(NEIGHBORS[ORIGIN])


@pytest.mark.parametrize(("turns", "shape"), TURN_SHAPES.items(), ids=str)
@pytest.mark.parametrize("direction", range(6))
def test_classify_openings_rotated_through_the_six_directions(
    turns: tuple[int, int], shape: Shape, direction: int
) -> None:
    game = built_opening(direction, *turns)
    assert classify(game) is shape
    assert classify(from_moves(game.game_string().split(";", 3)[3])) is shape


@pytest.mark.parametrize(
    ("turns", "seconds"),
    [((1, 1), "wQ \\wS1;bQ bS1/"), ((-1, 1), "wQ /wS1;bQ bS1/"), ((0, -1), "wQ -wS1;bQ bS1\\")],
)
def test_left_is_counterclockwise(turns: tuple[int, int], seconds: str) -> None:
    game = built_opening(0, *turns)
    assert game.game_string().split(";")[3:] == ["wS1", "bS1 wS1-", *seconds.split(";")]


@pytest.mark.parametrize(
    "moves",
    [
        "wS1;bS1 wS1-;wG1 -wS1;bQ bS1-",  # White's second is not the Queen
        "wS1;bS1 wS1-;wQ \\wS1;bA1 bS1/",  # Black's second is not the Queen
        "wS1;bS1 wS1-;wS2 /wS1;bB1 bS1/",  # neither
        "wM;bP wM-;wQ -wM;bL bP-",
    ],
)
def test_classify_x_when_a_second_placement_is_not_the_queen(moves: str) -> None:
    assert classify(from_moves(moves, "Base+MLP")) is X


@pytest.mark.parametrize("turns", TURN_SHAPES)
@pytest.mark.parametrize("white_queen", [True, False])
def test_x_whatever_the_geometry(turns: tuple[int, int], white_queen: bool) -> None:
    white_second = Piece.wQ if white_queen else Piece.wG1
    black_second = Piece.bB1 if white_queen else Piece.bQ
    pieces = (Piece.wS1, Piece.bS1, white_second, black_second)
    assert classify(built_opening(3, *turns, pieces)) is X


def test_classify_is_none_before_four_plies_and_stays_after() -> None:
    moves = EAST_OPENINGS[7][0].split(";")
    game = Game()
    for move in moves:
        assert classify(game) is None
        game.play(move)
    assert classify(game) is Z
    for move in ("wA1 \\wQ", "bA1 bQ\\", "wA1 bA1\\"):  # the Ant moves away last
        game.play(move)
        assert classify(game) is Z


def test_turn_at() -> None:
    east, north_east = NEIGHBORS[ORIGIN][0], NEIGHBORS[ORIGIN][1]
    west = NEIGHBORS[ORIGIN][3]
    assert turn_at(west, ORIGIN, east) == 0
    assert turn_at(west, ORIGIN, north_east) == 1
    assert turn_at(north_east, ORIGIN, east) is None  # 120 degrees
    assert turn_at(hex_at(5, 5), ORIGIN, east) is None  # not neighbours


# -- choose: legality ----------------------------------------------------------------------------


def test_a_book_that_weighs_the_queen_first_still_opens_with_another_bug() -> None:
    """The Queen may not be placed on the first turn: a book weighing it first has its
    weight dropped (the other bugs, unweighted, are drawn uniformly)."""
    book = custom_book(first={Bug.QUEEN: 1.0})
    firsts = set()
    for seed in range(100):
        rng = random.Random(seed)
        game = Game()
        for _ in range(2):
            move = book.choose(game, "custom", rng)
            assert move is not None and BUG_OF[move.piece] != Bug.QUEEN
            firsts.add(BUG_OF[move.piece])
            game.push(move)
    assert firsts == set(GameType().bugs) - {Bug.QUEEN}


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=str)
def test_choose_plays_legal_placements_then_nothing(game_type: GameType) -> None:
    book = default_book()
    for seed in range(50):
        rng = random.Random(seed)
        level = LEVELS[seed % len(LEVELS)]
        game = Game(game_type)
        for ply in range(4):
            before = game.game_string()
            move = book.choose(game, level, rng)
            assert game.game_string() == before
            assert move is not None and move.is_placement
            assert move in game.legal_moves()
            assert game_type.has_piece(move.piece)
            if ply < 2:
                assert BUG_OF[move.piece] != Bug.QUEEN
            game.push(move)
        assert classify(game) in set(Shape)
        for _ in range(4):
            assert book.choose(game, level, rng) is None
            game.push(rng.choice(game.legal_moves()))


def test_never_the_queen_on_turn_one() -> None:
    book = custom_book(first={Bug.QUEEN: 1.0})  # dropped: nothing left, so drawn uniformly
    bugs: Counter[int] = Counter()
    for seed in range(300):
        game = Game(BASE)
        move = book.choose(game, "custom", random.Random(seed))
        assert move is not None
        bugs[BUG_OF[move.piece]] += 1
    assert set(bugs) == {Bug.SPIDER, Bug.BEETLE, Bug.GRASSHOPPER, Bug.ANT}


def test_weights_of_bugs_not_in_play_are_dropped() -> None:
    book = custom_book(
        first={Bug.MOSQUITO: 100.0, Bug.LADYBUG: 100.0, Bug.PILLBUG: 100.0, Bug.BEETLE: 1.0},
        second={Bug.MOSQUITO: 100.0, Bug.QUEEN: 1.0},
    )
    for seed in range(100):
        moves = play_opening(book, Game(BASE), "custom", random.Random(seed))
        assert [BUG_OF[m.piece] for m in moves] == [Bug.BEETLE, Bug.BEETLE, Bug.QUEEN, Bug.QUEEN]
    # With the Mosquito in play, a side whose first piece was its only Mosquito plays the Queen.
    game = from_moves("wM;bM wM-", "Base+M")
    move = book.choose(game, "custom", random.Random(1))
    assert move is not None and BUG_OF[move.piece] == Bug.QUEEN


def test_unknown_level_names_the_levels() -> None:
    with pytest.raises(KeyError, match=r"'grandmaster'.*beginner, easy, medium, hard, expert"):
        default_book().choose(Game(), "grandmaster", random.Random(0))
    with pytest.raises(KeyError, match="grandmaster"):  # even when the book would not play
        default_book().choose(from_moves(EAST_OPENINGS[0][0]), "grandmaster", random.Random(0))


def test_a_seeded_rng_reproduces_the_choices() -> None:
    book = default_book()

    def openings(seed: int) -> list[str]:
        rng = random.Random(seed)
        result = []
        for index in range(40):
            game = Game(BASE_MLP)
            play_opening(book, game, LEVELS[index % len(LEVELS)], rng)
            result.append(game.game_string())
        return result

    assert openings(7) == openings(7)
    assert openings(7) != openings(8)
    assert len(set(openings(7))) > 20


# -- choose: shapes ------------------------------------------------------------------------------


def white_turn(game: Game) -> int | None:
    w1, b1, w2 = (m.destination for m in game.moves[:3])
    return turn_at(w2, w1, b1)


def test_white_second_decides_the_turn_at_w1() -> None:
    for shapes, turns in (({I: 1.0}, {0}), ({C: 1.0}, {1, -1}), ({Z: 1.0}, {1, -1})):
        book = custom_book(shapes=shapes)
        seen = set()
        for seed in range(60):
            game = from_moves(turned("wS1;bS1 wS1-", seed % 6))
            move = book.choose(game, "custom", random.Random(seed))
            assert move is not None
            game.push(move)
            seen.add(white_turn(game))
        assert seen == turns


def test_white_second_for_l_may_go_either_way() -> None:
    book = custom_book(shapes={L: 1.0})
    seen: Counter[int | None] = Counter()
    for seed in range(300):
        game = from_moves("wS1;bS1 wS1/")
        move = book.choose(game, "custom", random.Random(seed))
        assert move is not None
        game.push(move)
        seen[white_turn(game)] += 1
    assert_fits(seen, {0: 1, 1: 1, -1: 1})


@pytest.mark.parametrize(
    ("shapes", "white", "realised"),
    [
        ({C: 1.0}, "wQ \\wS1", {C}),
        ({C: 1.0}, "wQ /wS1", {C}),
        ({Z: 1.0}, "wQ /wS1", {Z}),
        ({L: 1.0}, "wQ -wS1", {L}),
        ({I: 1.0, C: 1.0}, "wQ -wS1", {I}),  # C is out of reach: drawn again among I (and L)
        ({I: 1.0, C: 1.0}, "wQ \\wS1", {C}),
        ({I: 3.0, L: 1.0}, "wQ \\wS1", {L}),
        ({C: 1.0, Z: 1.0}, "wQ -wS1", {I, L}),  # nothing in reach: any hex of the drawn bug
    ],
)
def test_black_second_completes_the_shape(
    shapes: dict[Shape, float], white: str, realised: set[Shape]
) -> None:
    book = custom_book(shapes=shapes)
    seen = set()
    for seed in range(60):
        game = from_moves(f"wS1;bS1 wS1-;{white}")
        move = book.choose(game, "custom", random.Random(seed))
        assert move is not None and move in game.legal_moves()
        game.push(move)
        seen.add(classify(game))
    assert seen == realised


def test_not_a_normal_opening_falls_back_to_any_legal_hex() -> None:
    book = custom_book(shapes={I: 1.0})
    hexes = set()
    for seed in range(200):
        game = Game()
        game.push(Move(Piece.wS1, HAND, ORIGIN))
        game.push(Move(Piece.bS1, HAND, hex_at(4, 4)))  # trusted: not next to White's piece
        move = book.choose(game, "custom", random.Random(seed))
        assert move is not None and move in game.legal_moves()
        assert BUG_OF[move.piece] == Bug.QUEEN
        hexes.add(move.destination)
    assert hexes == set(NEIGHBORS[ORIGIN])


# -- choose: the weights -------------------------------------------------------------------------


@cache
def self_play(level: str, game_type: GameType) -> dict[str, Counter[Any]]:
    """DRAWS openings of ``level`` against itself: first and second bugs (both sides) and
    realised shapes."""
    book = default_book()
    rng = random.Random(20240611)
    counts: dict[str, Counter[Any]] = {"first": Counter(), "second": Counter(), "shape": Counter()}
    for _ in range(DRAWS):
        game = Game(game_type)
        moves = play_opening(book, game, level, rng)
        counts["first"].update(Bug(BUG_OF[m.piece]) for m in moves[:2])
        counts["second"].update(Bug(BUG_OF[m.piece]) for m in moves[2:])
        counts["shape"][classify(game)] += 1
    return counts


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game_type", [BASE, BASE_MLP], ids=str)
def test_first_bugs_follow_the_book(level: str, game_type: GameType) -> None:
    expected = expected_first(default_book().level(level), game_type)
    assert_fits(self_play(level, game_type)["first"], expected)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game_type", [BASE, BASE_MLP], ids=str)
def test_second_bugs_follow_the_book(level: str, game_type: GameType) -> None:
    expected = expected_second(default_book().level(level), game_type)
    assert_fits(self_play(level, game_type)["second"], expected)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game_type", [BASE, BASE_MLP], ids=str)
def test_realised_shapes_follow_the_book(level: str, game_type: GameType) -> None:
    shapes = self_play(level, game_type)["shape"]
    assert_fits(shapes, expected_shapes(default_book().level(level), game_type))
    assert set(shapes) == set(Shape)
    assert shapes[X] / DRAWS < 0.1


@pytest.mark.parametrize("level", LEVELS)
def test_every_shape_is_played_and_x_is_rare(level: str) -> None:
    for game_type in ALL_GAME_TYPES:
        odds = expected_shapes(default_book().level(level), game_type)
        assert 0.01 < odds[X] < 0.08
        assert min(odds[s] for s in GEOMETRIC) > 0.03


def test_black_first_hex_is_uniform() -> None:
    book = default_book()
    rng = random.Random(5)
    hexes: Counter[int] = Counter()
    game = from_moves("wG1")
    for _ in range(DRAWS // 4):
        move = book.choose(game, "medium", rng)
        assert move is not None
        hexes[move.destination] += 1
    assert_fits(hexes, dict.fromkeys(NEIGHBORS[ORIGIN], 1.0))


def test_experts_favour_the_queen_and_strong_first_bugs() -> None:
    book = default_book()
    expert, beginner = book.level("expert"), book.level("beginner")
    assert expected_second(expert, BASE)[Bug.QUEEN] >= 0.95
    strong = {Bug.SPIDER, Bug.BEETLE, Bug.GRASSHOPPER}
    assert sum(expected_first(expert, BASE)[b] for b in strong) > 0.9
    assert (
        expected_second(beginner, BASE_MLP)[Bug.QUEEN]
        < expected_second(expert, BASE_MLP)[Bug.QUEEN]
    )


# -- the data file -------------------------------------------------------------------------------


def default_document() -> dict[str, Any]:
    return tomllib.loads(resources.files("ai").joinpath("book.toml").read_text())


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, str):
        return '"' + value + '"'
    return repr(value)


def toml_text(document: Mapping[str, Any]) -> str:
    """TOML for a book document: every dotted key first, then one header per weight table."""
    lines = []
    for name, level in document.items():
        if not isinstance(level, dict):
            lines.append(f"{name} = {toml_value(level)}")
            continue
        lines += [
            f"{name}.{k} = {toml_value(v)}" for k, v in level.items() if not isinstance(v, dict)
        ]
    for name, level in document.items():
        for table, weights in level.items() if isinstance(level, dict) else ():
            if isinstance(weights, dict):
                lines.append(f"[{name}.{table}]")
                lines += [f"{k} = {toml_value(v)}" for k, v in weights.items()]
    return "\n".join(lines) + "\n"


def test_default_book_loads_from_a_path_too(tmp_path: Path) -> None:
    # each names a bot level (a misspelt one would leave its bot opening by search)
    assert set(LEVELS) <= set(BOT_LEVELS)
    assert "expert" in LEVELS and "beginner" in LEVELS
    path = tmp_path / "book.toml"
    path.write_text(toml_text(default_document()))
    assert OpeningBook.load(path) == default_book()


def _set(path: tuple[str, ...], value: object) -> Any:
    def change(document: dict[str, Any]) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(path: tuple[str, ...]) -> Any:
    def change(document: dict[str, Any]) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


def _zero(path: tuple[str, str]) -> Any:
    def change(document: dict[str, Any]) -> None:
        table = document[path[0]][path[1]]
        for key in table:
            table[key] = 0.0

    return change


BAD_CHANGES = [
    ("new level lacking tables", _set(("grandmaster",), {"first": {"S": 1.0}}), "grandmaster"),
    ("level not a table", _set(("medium",), 3), "medium"),
    ("unknown table", _set(("hard", "third"), {"S": 1.0}), "hard.third"),
    ("missing table", _delete(("easy", "shapes")), "easy.shapes"),
    ("table not a table", _set(("easy", "first"), 2.0), "easy.first"),
    ("unknown bug", _set(("expert", "first", "K"), 1.0), "expert.first.K"),
    ("unknown shape", _set(("expert", "shapes", "W"), 1.0), "expert.shapes.W"),
    ("X is not a weighted shape", _set(("beginner", "shapes", "X"), 0.1), "beginner.shapes.X"),
    ("negative", _set(("expert", "second", "Q"), -1.0), "expert.second.Q"),
    ("a string", _set(("expert", "first", "S"), "a lot"), "expert.first.S"),
    ("a boolean", _set(("medium", "first", "G"), True), "medium.first.G"),
    ("nan", _set(("medium", "shapes", "I"), math.nan), "medium.shapes.I"),
    ("all zero", _zero(("beginner", "shapes")), "beginner.shapes"),
    ("all zero bugs", _zero(("hard", "second")), "hard.second"),
    ("Queen first", _set(("hard", "first", "Q"), 0.5), "hard.first.Q"),
    ("no base bug", _set(("easy", "first"), {"M": 1.0, "P": 1.0}), "easy.first"),
]


@pytest.mark.parametrize(
    ("change", "key"), [c[1:] for c in BAD_CHANGES], ids=[c[0] for c in BAD_CHANGES]
)
def test_bad_data_files_name_the_key(tmp_path: Path, change: Any, key: str) -> None:
    document = default_document()
    change(document)
    path = tmp_path / "bad.toml"
    path.write_text(toml_text(document))
    with pytest.raises(BookError) as info:
        OpeningBook.load(path)
    assert str(path) in str(info.value)
    assert re.search(rf"\b{re.escape(key)}\b", str(info.value)), str(info.value)


def test_the_levels_are_the_files_tables(tmp_path: Path) -> None:
    """A book has the levels its file has: a new one is read like the others, and one left out
    is simply not in the book (its bot opens by search)."""
    document = default_document()
    del document["medium"]
    document["master"] = {
        "first": {"G": 1.0},
        "second": {"Q": 1.0},
        "shapes": {"C": 1.0},
    }
    path = tmp_path / "book.toml"
    path.write_text(toml_text(document))
    book = OpeningBook.load(path)
    assert list(book.levels) == ["beginner", "easy", "hard", "expert", "master"]
    assert book.level("hard") == default_book().level("hard")
    game = Game(BASE)
    moves = play_opening(book, game, "master", random.Random(3))
    assert [BUG_OF[move.piece] for move in moves] == [Bug.GRASSHOPPER, Bug.GRASSHOPPER] + [
        Bug.QUEEN
    ] * 2
    assert classify(game) == C
    with pytest.raises(KeyError, match="'medium'"):
        book.choose(Game(BASE), "medium", random.Random(0))


def test_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[expert.first\nS = 1\n")
    with pytest.raises(BookError, match=re.escape(str(path))):
        OpeningBook.load(path)
