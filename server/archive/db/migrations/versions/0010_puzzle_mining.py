"""The puzzle miner's cursor over the archived games, and the index it walks.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    mining = op.create_table(
        "puzzle_mining",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("archived", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("games", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_puzzle_mining"),
    )
    op.bulk_insert(mining, [{"id": 1, "archived": 0, "game": "", "games": 0}])
    op.create_index("ix_games_archived_id", "games", ["archived", "id"])


def downgrade() -> None:
    op.drop_index("ix_games_archived_id", "games")
    op.drop_table("puzzle_mining")
