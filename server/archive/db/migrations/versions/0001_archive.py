"""The archive: players, finished games, and their bots' search traces.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("game_type", sa.String(16), nullable=False),
        sa.Column("white", sa.String(40), nullable=False),
        sa.Column("black", sa.String(40), nullable=False),
        sa.Column("white_name", sa.String(64), nullable=False),
        sa.Column("black_name", sa.String(64), nullable=False),
        sa.Column("white_level", sa.String(16), nullable=True),
        sa.Column("black_level", sa.String(16), nullable=True),
        sa.Column("result", sa.String(16), nullable=True),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("time_kind", sa.String(8), nullable=False),
        sa.Column("time_base", sa.Integer(), nullable=False),
        sa.Column("time_increment", sa.Integer(), nullable=False),
        sa.Column("time_days", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Text(), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.Column("ended", sa.BigInteger(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rematch_of", sa.String(16), nullable=True),
        sa.Column("archived", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["white"], ["players.id"], name="fk_games_white_players"),
        sa.ForeignKeyConstraint(["black"], ["players.id"], name="fk_games_black_players"),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_index("ix_games_white_ended", "games", ["white", "ended"])
    op.create_index("ix_games_black_ended", "games", ["black", "ended"])
    op.create_index("ix_games_ended", "games", ["ended"])
    op.create_table(
        "traces",
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("expires", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["game"], ["games.id"], name="fk_traces_game_games"),
        sa.PrimaryKeyConstraint("game", "ply", name="pk_traces"),
    )


def downgrade() -> None:
    op.drop_table("traces")
    op.drop_index("ix_games_ended", "games")
    op.drop_index("ix_games_black_ended", "games")
    op.drop_index("ix_games_white_ended", "games")
    op.drop_table("games")
    op.drop_table("players")
