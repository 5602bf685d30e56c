"""A game's computer analysis as a client sees it (``GameAnalysis``): every move's review with
the best move's hexes (for an arrow on the review's board, in the coordinates of
``/games/ID/positions.json``: ``hive.Layout``), and each player's marks and accuracy."""

from __future__ import annotations

from collections.abc import Sequence

from ai.review import PlayerReview, PlyReview, summarize
from hive import Game, Layout
from protocol import GameAnalysis, MoveAnalysis, PlayerAnalysis


def analysis_view(
    game_id: str, game_type: str, moves: Sequence[str], depth: int, plies: Sequence[PlyReview]
) -> GameAnalysis:
    """The finished analysis of a game of ``game_type`` played with ``moves``: ``plies``, the
    review of each of its moves in order, searched ``depth`` plies."""
    game = Game(game_type, repetition_draw=True)
    shown = []
    for review, played in zip(plies, moves, strict=True):
        source, target = Layout(game.moves).endpoints(game.parse_move(review.best))
        shown.append(
            MoveAnalysis(
                ply=review.ply,
                move=review.move,
                best=review.best,
                best_score=review.best_score,
                played_score=review.played_score,
                chance=round(review.chance, 4),
                played_chance=round(review.played_chance, 4),
                mark=None if review.mark is None else review.mark.value,
                accuracy=round(review.accuracy, 1),
                best_from=None if source is None else list(source),
                best_to=None if target is None else list(target),
            )
        )
        game.play_unchecked(played)
    return GameAnalysis(
        game=game_id,
        status="done",
        done=len(plies),
        total=len(plies),
        depth=depth,
        moves=shown,
        white=_player(summarize(plies[0::2])),
        black=_player(summarize(plies[1::2])),
    )


def _player(review: PlayerReview) -> PlayerAnalysis:
    accuracy = None if review.accuracy is None else round(review.accuracy, 1)
    return PlayerAnalysis(review.inaccuracies, review.mistakes, review.blunders, accuracy)
