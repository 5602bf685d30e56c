"""The edge: what faces the network. A websocket connection and its dispatch
(``connection``), the HTTP routes (``http``; the positions of a game's review, computed in a
process pool, in ``review``), ``health`` and ``metrics``.

May import ``requests``, ``live``, ``storage``, ``archive``, ``game`` and ``server.settings``;
nothing below imports it (but ``requests.commands``, for the labels of ``metrics``' move
counter, an arrow up left from the move).
"""
