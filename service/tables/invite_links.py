"""A table's invite link, ``<base>/play?code=<code>``, and its QR code for a friend at the same
table: the play page opened by the link fills the code in to join with.

The code is not looked up: its QR code says nothing about which tables wait (so it needs no
``CLAIMS`` limit, which counts codes tried), and the same code always draws the same image, which
caches may keep. Whoever opens the link learns whether the table still waits when they join.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import quote

from service.http.play_links import play_page, qr_svg

TITLE: Final = "Invite link to a table of Three Thirteen"


def invite_link(base_url: str, code: str) -> str:
    """The play page's address with the invite ``code`` (canonical) in its query."""
    return f"{play_page(base_url)}?code={quote(code)}"


def invite_qr(link: str) -> bytes:
    """The invite ``link`` as a QR code (SVG)."""
    return qr_svg(link, TITLE)
