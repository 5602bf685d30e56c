"""Players who signed up before ``players.kind`` said ``account``: their rows say so now.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "UPDATE players SET kind = 'account' WHERE kind = 'guest' AND id IN "
        "(SELECT player FROM accounts WHERE NOT bot)"
    )


def downgrade() -> None:
    pass  # an account's row says account: nothing to take back
