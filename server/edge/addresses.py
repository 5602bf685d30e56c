"""Who sent an HTTP request or opened a websocket, and from where: the client's address behind
trusted proxies (``client_address``), what the limits per address count it as
(``address_block``), and whether a web page's origin may connect (``is_allowed_origin``)."""

from __future__ import annotations

import ipaddress
import urllib.parse
from typing import Final

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request

from server.settings import DEFAULT_PORTS, origin_of

IPV6_BLOCK: Final = 64
"""The prefix length of the IPv6 block that the limits per address count as one address."""

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def client_address(
    connection: ServerConnection, request: Request, proxies: tuple[Network, ...]
) -> str:
    """Who sent ``request``: the peer's address, or, when the peer is a trusted proxy, the
    nearest address of its ``X-Forwarded-For`` that is not one (a client may send a forged
    header of its own: only what trusted proxies added is believed)."""
    peer = connection.remote_address[0] if connection.remote_address else "unknown"
    if not proxies or not _is_in(peer, proxies):
        return str(peer)
    forwarded = [
        part.strip()
        for value in request.headers.get_all("X-Forwarded-For")
        for part in value.split(",")
    ]
    address = str(peer)
    for hop in reversed(forwarded):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            break  # a garbled header: believe nothing further back
        address = hop
        if not _is_in(hop, proxies):
            break
    return address


def address_block(address: str) -> str:
    """What the limits per address count ``address`` as: an IPv4 address itself (an
    IPv4-mapped IPv6 address, ``::ffff:a.b.c.d``, as its IPv4 address), an IPv6 address as its
    /64 (``2001:db8:1:2::/64``: the least a site gets from its provider, and what one client
    takes its addresses from at will), anything else as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_BLOCK), strict=False))
    return str(ip)


def is_allowed_origin(request: Request, allowed: frozenset[tuple[str, str, int]]) -> bool:
    """Whether a websocket handshake may come from where it says: a client that sends no
    ``Origin`` (a bot, ``protocol.client``; a browser always sends one) may; a web page may when
    its origin is the server's own (the host and port it asked for, its ``Host`` header, which
    a page elsewhere cannot choose) or one of ``allowed`` (``Settings.origins``). The scheme is
    not compared with the server's own: a proxy in front may take https for it."""
    origins = request.headers.get_all("Origin")
    if not origins:
        return True
    if len(origins) > 1:
        return False
    try:
        scheme, host, port = origin_of(origins[0])
        if (scheme, host, port) in allowed:
            return True
        asked = urllib.parse.urlsplit("//" + request.headers.get("Host", ""))
        return (asked.hostname, asked.port or DEFAULT_PORTS[scheme]) == (host, port)
    except ValueError:  # "null" (a sandboxed page, a file), a malformed origin or host
        return False


def _is_in(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)
