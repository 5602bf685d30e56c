"""Accounts: a name and a password's hash, keyed by player id.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(24), nullable=False),
        sa.Column("password", sa.String(200), nullable=True),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.Column("password_changed", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player", name="pk_accounts"),
        sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
    )


def downgrade() -> None:
    op.drop_table("accounts")
