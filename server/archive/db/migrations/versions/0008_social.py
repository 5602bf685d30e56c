"""Who follows whom, who blocked whom, and whose challenges by name an account takes.

After 0007 (made alongside it): it touches only tables of its own.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _pair(table: str, first: str, second: str) -> None:
    op.create_table(
        table,
        sa.Column(first, sa.String(40), nullable=False),
        sa.Column(second, sa.String(40), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint([first], ["accounts.player"], name=f"fk_{table}_{first}_accounts"),
        sa.ForeignKeyConstraint(
            [second], ["accounts.player"], name=f"fk_{table}_{second}_accounts"
        ),
        sa.PrimaryKeyConstraint(first, second, name=f"pk_{table}"),
    )
    op.create_index(f"ix_{table}_{second}", table, [second])


def upgrade() -> None:
    _pair("follows", "follower", "followed")
    _pair("blocks", "blocker", "blocked")
    op.create_table(
        "social_settings",
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("challenges", sa.String(10), nullable=False),
        sa.ForeignKeyConstraint(
            ["player"], ["accounts.player"], name="fk_social_settings_player_accounts"
        ),
        sa.PrimaryKeyConstraint("player", name="pk_social_settings"),
    )


def downgrade() -> None:
    op.drop_table("social_settings")
    op.drop_index("ix_blocks_blocked", "blocks")
    op.drop_table("blocks")
    op.drop_index("ix_follows_followed", "follows")
    op.drop_table("follows")
