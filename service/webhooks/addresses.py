"""Which URLs a webhook may have, and which addresses a delivery may reach.

A URL is checked when the webhook is made (``checked_url``): ``https`` (``http`` too with
``WEBHOOK_ALLOW_HTTP``), a host, no user or password, no fragment, at most ``MAX_URL``
characters, and, when its host is an address written out, a public one. A host name is checked
where it matters, on every connection: ``service.webhooks.sending`` resolves it and refuses to
connect when any of its addresses is not public (``public``), then connects to the address it
checked, so a name that changes its answer in between (DNS rebinding) gains nothing. Redirects
are never followed. ``WEBHOOK_ALLOW_PRIVATE`` lifts the address checks (a deployment whose
receivers are inside its own network, and the tests, on 127.0.0.1).
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from typing import Final

from service.webhooks.problems import InvalidWebhookUrl

MAX_URL: Final = 2048
"""The longest webhook URL taken."""
_NAMES_OF_THIS_HOST: Final = ("localhost", "localhost.localdomain")

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def public(address: IpAddress) -> bool:
    """Whether ``address`` is on the public internet: not private, loopback, link-local,
    shared (carrier NAT), reserved, unspecified or multicast; an IPv4 address mapped into IPv6
    is judged as the IPv4 one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def checked_url(url: str, *, allow_http: bool, allow_private: bool) -> str:
    """``url`` if a webhook may have it; else ``InvalidWebhookUrl`` saying why (field ``url``)."""
    if len(url) > MAX_URL:
        raise InvalidWebhookUrl(f"url: longer than {MAX_URL} characters")
    if not url.isascii() or any(not char.isprintable() or char.isspace() for char in url):
        raise InvalidWebhookUrl(
            "url: holds a space, a control character or a character past ASCII "
            "(percent-encode it; a host name in punycode)"
        )
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise InvalidWebhookUrl(f"url: not a URL ({error})") from None
    schemes = ("https", "http") if allow_http else ("https",)
    if parts.scheme not in schemes:
        allowed = " or ".join(f"{scheme}://" for scheme in schemes)
        raise InvalidWebhookUrl(f"url: must start with {allowed}, not {parts.scheme or '…'}:")
    if parts.username is not None or parts.password is not None:
        raise InvalidWebhookUrl("url: must not hold a user name or password (sign, do not log in)")
    if parts.fragment or url.endswith("#"):
        raise InvalidWebhookUrl("url: must not have a fragment (#…)")
    host = parts.hostname
    if not host:
        raise InvalidWebhookUrl("url: names no host")
    if port == 0:
        raise InvalidWebhookUrl("url: port 0 is not a port")
    if not allow_private:
        _check_host(host)
    return url


def _check_host(host: str) -> None:
    if host.rstrip(".") in _NAMES_OF_THIS_HOST or host.endswith(".localhost"):
        raise InvalidWebhookUrl(f"url: {host} is this host, not a public address")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return  # a name: its addresses are checked on every connection
    if not public(address):
        raise InvalidWebhookUrl(
            f"url: {host} is not a public address (private, loopback, link-local or reserved)"
        )
