"""Puzzles, players' puzzle ratings (guests' too) and their rated tries, one a player and
puzzle.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _rating() -> list[sa.Column[float]]:
    return [
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("game_type", sa.String(32), nullable=False),
        sa.Column("game_string", sa.Text(), nullable=False),
        sa.Column("solution", sa.Text(), nullable=False),
        sa.Column("theme", sa.String(16), nullable=False),
        sa.Column("bugs", sa.String(200), nullable=False),
        sa.Column("source", sa.String(200), nullable=False),
        *_rating(),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_puzzles"),
        sa.UniqueConstraint("key", name="uq_puzzles_key"),
    )
    op.create_index("ix_puzzles_rating", "puzzles", ["rating"])
    op.create_index("ix_puzzles_theme_rating", "puzzles", ["theme", "rating"])
    op.create_index("ix_puzzles_game_type_rating", "puzzles", ["game_type", "rating"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("player", sa.String(40), nullable=False),
        *_rating(),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("updated", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player", name="pk_puzzle_ratings"),
    )
    op.create_table(
        "puzzle_tries",
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("puzzle", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("rating_after", sa.Float(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["puzzle"], ["puzzles.id"], name="fk_puzzle_tries_puzzle_puzzles"),
        sa.PrimaryKeyConstraint("player", "puzzle", name="pk_puzzle_tries"),
    )
    op.create_index("ix_puzzle_tries_player_at", "puzzle_tries", ["player", "at"])


def downgrade() -> None:
    op.drop_index("ix_puzzle_tries_player_at", "puzzle_tries")
    op.drop_table("puzzle_tries")
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzles_game_type_rating", "puzzles")
    op.drop_index("ix_puzzles_theme_rating", "puzzles")
    op.drop_index("ix_puzzles_rating", "puzzles")
    op.drop_table("puzzles")
