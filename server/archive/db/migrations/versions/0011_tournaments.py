"""Ended tournaments and their final standings; each archived game's tournament.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("tournament", sa.String(16), nullable=True))
    op.create_index("ix_games_tournament", "games", ["tournament"])
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("creator", sa.String(40), nullable=False),
        sa.Column("creator_name", sa.String(64), nullable=False),
        sa.Column("game_type", sa.String(32), nullable=False),
        sa.Column("time_kind", sa.String(8), nullable=False),
        sa.Column("time_base", sa.Integer(), nullable=False),
        sa.Column("time_increment", sa.Integer(), nullable=False),
        sa.Column("time_days", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rating_min", sa.Integer(), nullable=True),
        sa.Column("rating_max", sa.Integer(), nullable=True),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("starts", sa.BigInteger(), nullable=False),
        sa.Column("ends", sa.BigInteger(), nullable=False),
        sa.Column("ended", sa.BigInteger(), nullable=False),
        sa.Column("winner", sa.String(40), nullable=True),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
    )
    op.create_index("ix_tournaments_ended", "tournaments", ["ended"])
    op.create_table(
        "tournament_results",
        sa.Column("tournament", sa.String(16), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("scores", sa.Text(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("byes", sa.Integer(), nullable=False),
        sa.Column("buchholz", sa.Float(), nullable=False),
        sa.Column("sonneborn_berger", sa.Float(), nullable=False),
        sa.Column("streak", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("ended", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament"], ["tournaments.id"], name="fk_tournament_results_tournament_tournaments"
        ),
        sa.PrimaryKeyConstraint("tournament", "player", name="pk_tournament_results"),
    )
    op.create_index("ix_tournament_results_player_ended", "tournament_results", ["player", "ended"])


def downgrade() -> None:
    op.drop_index("ix_tournament_results_player_ended", "tournament_results")
    op.drop_table("tournament_results")
    op.drop_index("ix_tournaments_ended", "tournaments")
    op.drop_table("tournaments")
    op.drop_index("ix_games_tournament", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("tournament")
