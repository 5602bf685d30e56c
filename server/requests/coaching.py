"""The engine as a coach, built together: the analysis board's positions and engine lines
(``analysis``) and the computer analyses of finished games (``reviews``, which
``live.analyst`` makes), both searched on the bot pool's background workers."""

from __future__ import annotations

import functools
from collections.abc import Callable

from ai.pool import BotPool
from server.archive.db.database import Database
from server.archive.games import Archive
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
    archive: Archive,
    pool: BotPool,
    compute: Compute,
    counted: Callable[[], None],
) -> tuple[Analysis, Analyst, Reviews]:
    """The analysis board (its positions checked by ``compute``, the positions' worker), the
    analyst and the reviews' requests (which have ``archive`` archive a game that just ended);
    ``counted`` is called for each position analysed."""
    queue = AnalysisQueue(store, limit=settings.analyses_queued)
    analyst = Analyst(queue, database, pool, at_once=settings.analyses_at_once, counted=counted)
    reviews = Reviews(
        database,
        store,
        queue,
        functools.partial(archive.archive_finished, grace=int(settings.archive_grace)),
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
