"""Ratings: a Glicko-2 rating per account and speed, its history, and each archived game's
speed and rating changes.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_GAME_COLUMNS = (
    "white_rating",
    "white_rd",
    "white_change",
    "black_rating",
    "black_rd",
    "black_change",
)


def upgrade() -> None:
    op.add_column("games", sa.Column("speed", sa.String(16), nullable=True))
    for name in _GAME_COLUMNS:
        op.add_column("games", sa.Column(name, sa.Float(), nullable=True))
    op.create_table(
        "ratings",
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("speed", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["player"], ["accounts.player"], name="fk_ratings_player_accounts"),
        sa.PrimaryKeyConstraint("player", "speed", name="pk_ratings"),
    )
    op.create_index("ix_ratings_speed_rating", "ratings", ["speed", "rating"])
    op.create_table(
        "rating_history",
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("speed", sa.String(16), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player"], ["accounts.player"], name="fk_rating_history_player_accounts"
        ),
        sa.ForeignKeyConstraint(["game"], ["games.id"], name="fk_rating_history_game_games"),
        sa.PrimaryKeyConstraint("player", "game", name="pk_rating_history"),
    )
    op.create_index("ix_rating_history_player_at", "rating_history", ["player", "at"])


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_table("ratings")
    with op.batch_alter_table("games") as batch:
        for name in ("speed", *_GAME_COLUMNS):
            batch.drop_column(name)
