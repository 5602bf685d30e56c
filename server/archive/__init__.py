"""The archive: SQL. The database and its migrations (``db``), finished games written there
once and read back (``games``), the ratings rows (``ratings``, in the archive's write
transaction), the queries behind profiles, leaderboards and downloads (``queries``), the
computer analyses of finished games (``analyses``), puzzles with their players' ratings
and tries (``puzzles``), and the puzzle miner's walk over the archived games (``mining``).

May import ``game``, and ``storage``: the sweep moves finished games from Redis to the
database (the two sit side by side, under ``live`` and ``requests``).
"""
