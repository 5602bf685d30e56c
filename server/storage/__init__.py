"""Storage: Redis. How a process reaches it, one Redis or a primary through Sentinel (``connect``),
the store (``store``: games, the commit, with its parts ``players``, ``liveness``, ``archiving``
(finished games on their way to the archive, the bots' traces) and ``replicas`` (what a change
waits for); a game's keys named in ``keys``), the pub/sub channels (``channels``), the computer
analyses waiting and running (``analyses``), the tournaments (``tournaments``: their players,
pairings and games, each pairing committed at once), the leases of work one process does at
a time (``leases``), how a record is packed for Redis (``codec``), and the limits counted
there across processes (``limits``).

May import ``game`` only; every part above reaches Redis through it.
"""
