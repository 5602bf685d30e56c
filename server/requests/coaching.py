"""The engine as a coach, built together: the analysis board's positions and engine lines
(``analysis``) and the computer analyses of finished games (``reviews``, which
``live.analyst`` makes), both searched on the bot pool's background workers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ai.pool import BotPool
from server.archive.db.database import Database
from server.game.record import Record
from server.live.analyst import Analyst
from server.requests.analysis import Analysis, Compute
from server.requests.reviews import Reviews
from server.settings import Settings
from server.storage.analyses import AnalysisQueue
from server.storage.store import Store


def coaching(
    settings: Settings,
    store: Store,
    database: Database,
    pool: BotPool,
    compute: Compute,
    counted: Callable[[], None],
    archive_now: Callable[[str], Awaitable[Record | None]],
) -> tuple[Analysis, Analyst, Reviews]:
    """The analysis board (its positions checked by ``compute``, the positions' worker), the
    analyst and the reviews' requests; ``counted`` is called for each position analysed,
    ``archive_now`` archives a game that just ended (``Reviews``)."""
    queue = AnalysisQueue(store, limit=settings.analyses_queued)
    analyst = Analyst(queue, database, pool, at_once=settings.analyses_at_once, counted=counted)
    reviews = Reviews(
        database,
        store,
        queue,
        archive_now,
        wake=analyst.wake,
        per_address=settings.analyses_per_address,
    )
    analysis = Analysis(
        compute,
        pool,
        seconds=settings.engine_seconds,
        depth=settings.engine_depth,
        runs=settings.engine_runs,
        per_address=settings.engine_runs_per_address,
    )
    return analysis, analyst, reviews
