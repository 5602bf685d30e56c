"""The edge: what faces the network. A websocket connection and its dispatch
(``connection``), the HTTP routes (``http``; the positions of a game's review, computed in a
process pool, in ``review``), ``health`` and ``metrics``.

May import ``requests``, ``live``, ``storage``, ``archive``, ``game`` and ``server.settings``;
nothing below imports it.
"""
