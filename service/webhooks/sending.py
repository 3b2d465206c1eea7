"""One attempt at one delivery: sign the body as the Standard Webhooks specification says (the
``standardwebhooks`` library: ``webhook-id``, ``webhook-timestamp``, ``webhook-signature``,
HMAC-SHA256 over ``id.timestamp.body``) and POST it, within ``WEBHOOK_TIMEOUT`` in all.

The HTTP client is httpcore's connection pool with a network backend of our own
(``CheckedAddresses``): it resolves the host itself, refuses when any address is not public
(``service.webhooks.addresses``), and connects to the address it checked; TLS still verifies
the certificate against the URL's host name. httpcore never follows a redirect (a 3xx is a
failed attempt), never reads proxy settings from the environment, and the answer's body is
never read.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import httpcore
from standardwebhooks.webhooks import Webhook

from service.webhooks.addresses import public

USER_AGENT: Final = b"three-thirteen-webhooks/1"
_MAX_ERROR: Final = 200


@dataclass(frozen=True, slots=True)
class Outcome:
    status: int | None
    error: str | None
    duration_ms: int

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300  # noqa: PLR2004


class AddressRefused(httpcore.ConnectError):
    """The host resolves to an address webhooks may not reach."""


class CheckedAddresses(httpcore.AsyncNetworkBackend):
    """httpcore's own backend, connecting only to addresses that pass the check."""

    def __init__(self, *, allow_private: bool) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._allow_private = allow_private

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = await self._address_of(host, port, timeout)
        return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)

    async def _address_of(self, host: str, port: int, timeout: float | None) -> str:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, TimeoutError) as error:
            raise httpcore.ConnectError(f"cannot resolve {host}: {error}") from error
        addresses = [ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in found]
        if not addresses:
            raise httpcore.ConnectError(f"{host} has no address")
        refused = [a for a in addresses if not public(a)]
        if refused and not self._allow_private:
            raise AddressRefused(
                f"{host} resolves to {refused[0]}, not a public address (WEBHOOK_ALLOW_PRIVATE)"
            )
        return str(addresses[0])

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:  # pragma: no cover - a webhook URL is never a socket path
        raise httpcore.ConnectError("webhooks connect over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class Sender:
    """This instance's HTTP client for deliveries: at most ``connections`` open at once."""

    def __init__(self, *, timeout: float, connections: int, allow_private: bool) -> None:
        self._timeout = timeout
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl.create_default_context(),
            max_connections=connections,
            keepalive_expiry=30.0,
            network_backend=CheckedAddresses(allow_private=allow_private),
        )

    async def send(self, url: str, secret: str, message_id: str, body: bytes) -> Outcome:
        """POST ``body`` to ``url``, signed with ``secret`` as message ``message_id`` now."""
        started = time.perf_counter()
        moment = datetime.now(UTC)
        headers = [
            (b"content-type", b"application/json"),
            (b"user-agent", USER_AGENT),
            (b"webhook-id", message_id.encode()),
            (b"webhook-timestamp", str(int(moment.timestamp())).encode()),
            (b"webhook-signature", Webhook(secret).sign(message_id, moment, body).encode()),
        ]
        seconds = self._timeout
        limits = {"connect": seconds, "read": seconds, "write": seconds, "pool": seconds}
        status: int | None = None
        error: str | None = None
        try:
            async with asyncio.timeout(seconds):  # a receiver that drips its answer too
                async with self._pool.stream(
                    "POST", url, headers=headers, content=body, extensions={"timeout": limits}
                ) as response:
                    status = response.status  # its body is never read
            if 300 <= status < 400:  # noqa: PLR2004
                error = f"HTTP {status}: redirects are not followed"
            elif not 200 <= status < 300:  # noqa: PLR2004
                error = f"HTTP {status}"
        except TimeoutError:
            error = f"no answer within {seconds:g} s"
        except httpcore.TimeoutException:
            error = f"no answer within {seconds:g} s"
        except (httpcore.NetworkError, httpcore.ProtocolError, OSError) as failed:
            error = (str(failed) or type(failed).__name__)[:_MAX_ERROR]
        except httpcore.UnsupportedProtocol as failed:
            error = str(failed)[:_MAX_ERROR]
        duration_ms = round((time.perf_counter() - started) * 1000)
        return Outcome(status=status, error=error, duration_ms=duration_ms)

    async def close(self) -> None:
        await self._pool.aclose()
