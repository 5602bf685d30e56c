"""Tournament pairings and scores, as properties over many tournaments (Hypothesis): Swiss rounds
and arena pairs are checked against every other pairing the players allowed (all of them
enumerated), and the points against a count written another way."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game import arena, pairing, swiss
from server.game.pairing import colours, least_cost_pairs

T = TypeVar("T")
RESULTS = st.sampled_from([1.0, 0.5, 0.0])


def matchings(players: Sequence[T]) -> Iterator[list[tuple[T, T]]]:
    """Every way to pair all of ``players`` (an even number)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for n, other in enumerate(rest):
        for more in matchings([*rest[:n], *rest[n + 1 :]]):
            yield [(first, other), *more]


def test_matchings_are_all_there() -> None:
    assert sum(1 for _ in matchings(list(range(8)))) == 105  # 7 * 5 * 3
    assert sum(1 for _ in matchings([1, 2])) == 1


def test_the_least_cost_comes_first_place_by_place() -> None:
    """A repeat costs more than any number of rank steps: four players where 0-1 and 2-3 met
    already are paired 0-2, 1-3 (or 0-3, 1-2), though 0-1 are the nearest."""
    met = {(0, 1), (2, 3)}

    def cost(a: int, b: int) -> tuple[int, int]:
        return (int((a, b) in met), (a - b) ** 2)

    assert least_cost_pairs([0, 1, 2, 3], cost) == [(0, 2), (1, 3)]
    with pytest.raises(ValueError, match="odd number"):
        least_cost_pairs([0, 1, 2], cost)


def test_white_goes_to_fewer_whites_then_to_black_last_then_to_the_higher_ranked() -> None:
    assert colours("a", "b", ["w"], ["b"]) == ("b", "a")
    assert colours("a", "b", ["w", "b"], ["b", "w"]) == ("a", "b")  # a had black last
    assert colours("a", "b", [], ["w"]) == ("a", "b")
    assert colours("a", "b", [], []) == ("a", "b")


# -- Swiss ----------------------------------------------------------------------------------


def swiss_faults(games: Sequence[swiss.Pairing], past: dict[str, swiss.Record]) -> tuple[int, int]:
    """Repeated opponents and colour faults (whites less blacks past one) of a round."""
    repeats = faults = 0
    for game in games:
        white, black = past.get(game.white, swiss.Record()), past.get(game.black, swiss.Record())
        repeats += game.black in white.opponents
        faults += abs(white.balance + 1) > 1
        faults += abs(black.balance - 1) > 1
    return repeats, faults


@settings(max_examples=60, deadline=None)
@given(data=st.data(), count=st.integers(2, 10), rounds=st.integers(1, 6))
def test_swiss_rounds_are_the_best_the_players_allow(
    data: st.DataObject, count: int, rounds: int
) -> None:
    ratings = data.draw(st.lists(st.integers(1000, 2000), min_size=count, max_size=count))
    joins = data.draw(st.lists(st.integers(0, rounds - 1), min_size=count, max_size=count))
    everyone = [swiss.Entrant(f"p{n}", r) for n, r in enumerate(ratings)]
    played: list[swiss.Round] = []
    for number in range(rounds):
        entrants = [e for e, join in zip(everyone, joins, strict=True) if join <= number]
        if len(entrants) < 2:
            continue
        past = swiss.records(played)
        new = swiss.pair_round(entrants, played)
        names = [e.name for e in entrants]
        assert sorted(new.players()) == sorted(names)  # each once, no one else
        byes = {n: (past.get(n) or swiss.Record()).byes for n in names}
        if len(names) % 2:
            assert new.bye is not None and byes[new.bye] == min(byes.values())  # they rotate
            points = {n: (past.get(n) or swiss.Record()).points for n in names}
            rank = {e.name: (-points[e.name], -e.rating, e.name) for e in entrants}
            due = [n for n in names if byes[n] == byes[new.bye]]
            assert rank[new.bye] == max(rank[n] for n in due)  # the lowest ranked of them
        else:
            assert new.bye is None
        playing = [n for n in names if n != new.bye]
        best = min(
            swiss_faults(
                [
                    swiss.Pairing(
                        *colours(a, b, *(past.get(x, swiss.Record()).colours for x in (a, b)))
                    )
                    for a, b in pairs
                ],
                past,
            )
            for pairs in matchings(playing)
        )
        assert swiss_faults(new.games, past) == best  # no repeat, then colours, while avoidable
        results = data.draw(st.lists(RESULTS, min_size=len(new.games), max_size=len(new.games)))
        played.append(
            swiss.Round(
                tuple(
                    swiss.Pairing(g.white, g.black, s)
                    for g, s in zip(new.games, results, strict=True)
                ),
                new.bye,
            )
        )
    table = swiss.standings(everyone, played)
    games = sum(len(r.games) for r in played)
    assert sum(s.points for s in table) == games + sum(r.bye is not None for r in played)
    assert [s.points for s in table] == sorted((s.points for s in table), reverse=True)


def test_swiss_standings_break_ties_by_buchholz_then_sonneborn_berger() -> None:
    """a beats b, c beats d; then a beats c, b beats d: a 2, b 1, c 1, d 0. b and c are level
    on points; b met a (2) and d (0), c met d (0) and a (2): equal Buchholz 2; b's
    Sonneborn-Berger is 0 (lost to a, beat d: 0 points) and c's 0 too (beat d: 0, lost to a):
    the rating decides."""
    players = [swiss.Entrant(n, r) for n, r in [("a", 1500), ("b", 1400), ("c", 1600), ("d", 1500)]]
    rounds = [
        swiss.Round((swiss.Pairing("a", "b", 1.0), swiss.Pairing("c", "d", 1.0))),
        swiss.Round((swiss.Pairing("a", "c", 1.0), swiss.Pairing("d", "b", 0.0))),
    ]
    table = swiss.standings(players, rounds)
    assert [(s.name, s.points, s.buchholz) for s in table] == [
        ("a", 2.0, 2.0),
        ("c", 1.0, 2.0),
        ("b", 1.0, 2.0),
        ("d", 0.0, 2.0),
    ]
    drawn = [*rounds[:1], swiss.Round((swiss.Pairing("a", "c", 1.0), swiss.Pairing("d", "b", 0.5)))]
    table = swiss.standings(players, drawn)  # b 0.5 + 0.5 * d's 0.5: SB 0.25 against c's 0.5
    assert [s.name for s in table] == ["a", "c", "b", "d"]
    assert (table[1].sonneborn_berger, table[2].sonneborn_berger) == (0.5, 0.25)


def test_a_swiss_round_waits_for_the_last_one_to_end() -> None:
    players = [swiss.Entrant("a", 1500), swiss.Entrant("b", 1500)]
    with pytest.raises(ValueError, match="every game of the last one has ended"):
        swiss.pair_round(players, [swiss.Round((swiss.Pairing("a", "b"),))])


# -- arena ----------------------------------------------------------------------------------


def reference_points(scores: Sequence[float]) -> int:
    """Points counted another way: a run of wins doubles from its third win on."""
    total, run = 0, 0
    for score in scores:
        base = {1.0: 2, 0.5: 1, 0.0: 0}[score]
        total += base * 2 if run >= 2 else base
        run = run + 1 if score == 1.0 else 0
    return total


@given(st.lists(RESULTS, max_size=30))
def test_arena_points_double_on_a_streak_of_two_wins(scores: list[float]) -> None:
    assert sum(arena.game_points(scores)) == reference_points(scores)


def test_arena_points_of_a_known_run() -> None:
    assert arena.game_points([1, 1, 1, 0.5, 1, 1, 0.5, 0]) == [2, 2, 4, 2, 2, 2, 2, 0]


def rematches(pairs: Sequence[tuple[str | None, str | None]], last: dict[str, str]) -> int:
    """Pairs of two players who met in the last game of either."""
    return sum(
        a is not None and b is not None and (last.get(a) == b or last.get(b) == a) for a, b in pairs
    )


@settings(max_examples=60, deadline=None)
@given(data=st.data(), count=st.integers(2, 9), steps=st.integers(1, 40))
def test_arena_pairs_only_players_waiting_and_avoids_the_last_opponent(
    data: st.DataObject, count: int, steps: int
) -> None:
    ratings = data.draw(st.lists(st.integers(1000, 2000), min_size=count, max_size=count))
    rating = {f"p{n}": r for n, r in enumerate(ratings)}
    waiting = list(rating)  # in the order they began to wait
    playing: list[tuple[str, str]] = []
    ended: list[arena.Game] = []
    for _ in range(steps):
        if not playing or (bool(waiting) and data.draw(st.booleans())):
            last: dict[str, str] = {}
            for game in ended:
                last[game.white], last[game.black] = game.black, game.white
            pairs = arena.pair([arena.Waiting(n, rating[n]) for n in waiting], ended)
            paired = [n for pair in pairs for n in pair]
            assert len(paired) == len(set(paired)) and set(paired) <= set(waiting)
            assert all(a != b for a, b in pairs)
            assert len(pairs) == len(waiting) // 2

            seats: list[str | None] = [*waiting, *([None] if len(waiting) % 2 else [])]
            least = min(rematches(m, last) for m in matchings(seats))
            assert (
                rematches(pairs, last) == least
            )  # their last opponent only when no one else is free
            if len(waiting) % 2 and least == 0:
                free_of_rematch = [
                    next(x for pair in m for x in pair if x is not None and None in pair)
                    for m in matchings(seats)
                    if rematches(m, last) == 0
                ]
                (sitting,) = set(waiting) - set(paired)
                assert waiting.index(sitting) == max(waiting.index(s) for s in free_of_rematch)
            playing += pairs
            waiting = [n for n in waiting if n not in paired]
        else:
            white, black = playing.pop(data.draw(st.integers(0, len(playing) - 1)))
            ended.append(arena.Game(white, black, data.draw(RESULTS)))
            waiting += [white, black]
    totals = arena.totals(ended)
    for name, scores in arena.scores_of(ended).items():
        assert totals[name] == reference_points(scores)


def test_an_arena_of_many_waiting_is_matched_in_groups_of_neighbours_in_rank(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above ``GROUP`` waiting (a 200-player arena's first pairing, or its waves), the last
    to begin waiting sits out, and the others are paired within groups of neighbours in rank
    (no matching of more than a group and a half: one of 200 takes a quarter-second),
    never with the opponent of their last game."""
    sizes: list[int] = []

    def least_cost_pairs(players: list[str], cost: Any) -> list[tuple[str, str]]:
        sizes.append(len(players))
        return pairing.least_cost_pairs(players, cost)

    monkeypatch.setattr(arena, "least_cost_pairs", least_cost_pairs)
    count = 3 * arena.GROUP + 7  # odd, and a last group too small to stand alone
    waiting = [arena.Waiting(f"p{n:03d}", 2000 - n) for n in range(count)]  # ranked by rating
    ended = [arena.Game(f"p{n:03d}", f"p{n + 1:03d}", 0.5) for n in range(0, count - 1, 2)]
    pairs = arena.pair(waiting, ended)
    paired = [name for pair in pairs for name in pair]
    assert sorted(paired) == sorted(w.name for w in waiting[:-1])  # the last sits out
    assert rematches(pairs, {g.white: g.black for g in ended}) == 0
    rank = {w.name: n for n, w in enumerate(waiting)}
    assert max(abs(rank[a] - rank[b]) for a, b in pairs) < 2 * arena.GROUP
    assert sizes == [arena.GROUP, arena.GROUP, arena.GROUP + 6]  # (the last 6 merged)
