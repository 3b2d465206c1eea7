"""Who a request comes from, for per-client limits (rate limits, open streams).

The peer's address, unless the peer is one of the proxies named in ``TRUSTED_PROXIES``: then
the ``X-Forwarded-For`` header, read from the right (each proxy appends the address it heard
from), skipping the trusted proxies, names the client. A client cannot spoof it: whatever it
writes in the header itself is to the left of the first address a trusted proxy appended.
Without trusted proxies the header is ignored.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any, Final

from litestar.connection import ASGIConnection

_UNKNOWN: Final = "unknown"

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class TrustedProxies:
    def __init__(self, networks: Iterable[str]) -> None:
        self._networks: tuple[_Network, ...] = tuple(
            ipaddress.ip_network(n, strict=False) for n in networks
        )

    def trusts(self, address: str) -> bool:
        if not self._networks:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self._networks)

    def client_of(self, connection: ASGIConnection[Any, Any, Any, Any]) -> str:
        """The client's address as this instance can trust it."""
        peer = connection.client.host if connection.client else _UNKNOWN
        if not self.trusts(peer):
            return peer
        forwarded = ",".join(connection.headers.getall("x-forwarded-for", []))
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        for hop in reversed(hops):
            if not self.trusts(hop):
                return hop
        return hops[0] if hops else peer
