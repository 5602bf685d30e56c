"""Ratings against real opponents: each rating counts the distinct opponents of its rated games
(a leaderboard lists a player only past a few), and the games of a pair of players are found
through an index (the rated games of a pair in a day are capped).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_games_white_black_ended", "games", ["white", "black", "ended"])
    op.add_column(
        "ratings", sa.Column("opponents", sa.Integer(), nullable=False, server_default="0")
    )
    op.execute(
        "UPDATE ratings SET opponents = (SELECT count(DISTINCT CASE WHEN games.white = "
        "ratings.player THEN games.black ELSE games.white END) FROM games WHERE games.rated "
        "AND games.speed = ratings.speed AND (games.white = ratings.player OR games.black = "
        "ratings.player))"
    )


def downgrade() -> None:
    with op.batch_alter_table("ratings") as batch:
        batch.drop_column("opponents")
    op.drop_index("ix_games_white_black_ended", "games")
