"""Profiles: each player's record read from an index alone (games by player, result and the
opponent's bot level), not from 10,000 rows of the table.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_games_white_result_black_level", "games", ["white", "result", "black_level"]
    )
    op.create_index(
        "ix_games_black_result_white_level", "games", ["black", "result", "white_level"]
    )


def downgrade() -> None:
    op.drop_index("ix_games_black_result_white_level", "games")
    op.drop_index("ix_games_white_result_black_level", "games")
