"""The edge: what faces the network. A websocket connection and its dispatch
(``connection``), the HTTP routes (``http``; the web client's files in ``static``; the
positions of a game's review, computed in a process pool, in ``review``), who is asking and
from where (``addresses``), the headers every answer carries (``answers``), ``health`` and
``metrics`` (served on a port of its own).

May import ``requests``, ``live``, ``storage``, ``archive``, ``game`` and ``server.settings``;
nothing below imports it.
"""
