"""The state the server sends agrees with the rules engine, over real games."""

from __future__ import annotations

from dataclasses import replace

from hive import Game, Piece
from hive.hexes import hex_at
from protocol import GameState
from tests.server.conftest import StartServer
from tests.server.support import play, start_game, updated
from tests.vectors import tsv_rows


def real_games() -> list[list[str]]:
    """The move lists of the real games in the shared vectors (longest prefix of each)."""
    games: list[list[str]] = []
    for fields in tsv_rows("mzinga_validmoves_realgames.tsv"):
        moves = fields[0].split(";")[3:]
        if games and moves[: len(games[-1])] == games[-1]:
            games[-1] = moves
        elif moves:
            games.append(moves)
    return games


def assert_agrees(state: GameState, game: Game) -> None:
    """Every piece's plain coordinates and every legal move's ends name the engine's hexes (the
    plain coordinates taken modulo the engine's wrapping grid)."""
    board = game.board
    placed = {Piece(p) for p in range(len(board.hex_of)) if board.hex_of[p] >= 0}
    assert {Piece[p.piece] for p in state.pieces} == placed
    for p in state.pieces:
        h = board.hex_of[Piece[p.piece]]
        assert hex_at(p.q, p.r) == h
        assert board.stack(h).index(Piece[p.piece]) == p.height
    expected = {(m.piece, m.source, m.destination) for m in game.legal_moves() if not m.is_pass}
    sent = {
        (
            Piece[m.piece],
            -1 if m.from_q is None or m.from_r is None else hex_at(m.from_q, m.from_r),
            hex_at(m.to_q, m.to_r),
        )
        for m in state.legal
    }
    assert sent == expected
    assert len(state.legal) == len(expected)
    for m in state.legal:  # each MoveString names the move it comes with
        move = game.parse_move(m.move)
        assert (Piece(move.piece).name, hex_at(m.to_q, m.to_r)) == (m.piece, move.destination)


async def test_coordinates_and_legal_moves_agree_with_the_engine_over_real_games(
    start_server: StartServer,
) -> None:
    games = real_games()
    assert len(games) >= 4 and max(map(len, games)) > 40
    async with (
        start_server(message_rate=10_000, games_per_minute=10_000) as srv,  # as fast as it may
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        for moves in games:
            game_id, w, b = await start_game(white, black, game_type="Base+MLP")
            engine = Game("Base+MLP")
            assert_agrees(w.state, engine)
            for move in moves:
                await play(
                    white if engine.ply % 2 == 0 else black, w if engine.ply % 2 == 0 else b, move
                )
                engine.play(move)
                w, b = await updated(white, game_id), await updated(black, game_id)
                # the legal moves go to the player to move only
                mover, other = (w, b) if engine.ply % 2 == 0 else (b, w)
                assert other.state.legal == [] and not other.state.must_pass
                assert replace(mover.state, legal=[], must_pass=False) == other.state
                assert w.state.game_string == engine.game_string()
                assert_agrees(mover.state, engine)
