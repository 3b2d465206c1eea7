"""A sign-in link for another device, as a QR code: ``<base>/play#key=<key>``.

The key rides in the link's fragment, which a browser never sends to a server (nor in a
``Referer``): the play page reads it, keeps the key, and takes the fragment out of the address
bar. The code is drawn by ``service.http.play_links``.

The base is the service's ``PUBLIC_URL`` when one is set; otherwise the address the request was
sent to. Stream URLs never take a request's ``Host`` (``Settings.public_url``): they are handed
to whoever asks for them. This answer is only ever the key holder's (the key is required, and the
answer is not stored by any cache), and a browser sends its own page's ``Host``; a proxy that
passes another one needs ``PUBLIC_URL`` for the link to reach the page.
"""

from __future__ import annotations

from typing import Final

from service.http.play_links import play_page, qr_svg

TITLE: Final = "Sign-in link for the play page"


def sign_in_link(base_url: str, key: str) -> str:
    """The play page's address with ``key`` in its fragment."""
    return f"{play_page(base_url)}#key={key}"


def sign_in_qr(link: str) -> bytes:
    """The sign-in ``link`` as a QR code (SVG)."""
    return qr_svg(link, TITLE)
