"""Computer analyses of finished games: one row a game, written once.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("depth", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Text(), nullable=False),
        sa.Column("white_accuracy", sa.Float()),
        sa.Column("black_accuracy", sa.Float()),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["game"], ["games.id"], name="fk_analyses_game_games"),
        sa.PrimaryKeyConstraint("game", name="pk_analyses"),
    )


def downgrade() -> None:
    op.drop_table("analyses")
