"""Links to the play page, and their QR codes: the page's path (``service.play.routes`` serves
it there), a player's sign-in link (``service.players.sign_in``) and a table's invite link
(``service.tables.invite_links``), drawn by segno as SVG.

Kept on this floor because the features that link to the page sit beside ``service.play`` and may
not import it. The codes are drawn by the service rather than in the page, which has no build
step and loads nothing from elsewhere, so that a phone's camera can read a link off another
device's screen.
"""

from __future__ import annotations

import io
from typing import Any, Final

import segno

PLAY_PATH: Final = "/play"
"""Where the play page is served."""
SVG: Final = "image/svg+xml"
TEXT: Final = "text/plain"
"""The same SVG document as plain text, for clients that read only text (generated ones)."""
ERROR_CORRECTION: Final = "m"
"""Medium (15% of the code may be lost): a screen photographed at an angle still reads."""
MODULE_PIXELS: Final = 4
"""Each module of the code drawn 4 units wide; the SVG scales to any size."""
QUIET_ZONE: Final = 4
"""The white border, in modules, that the QR standard asks for around the code."""


def play_page(base_url: str) -> str:
    """The play page's address on the service at ``base_url``."""
    return f"{base_url.rstrip('/')}{PLAY_PATH}"


def qr_svg(link: str, title: str) -> bytes:
    """``link`` as a QR code, one SVG document (a single path, black on white) whose ``title``
    says what it is."""
    code = segno.make(link, error=ERROR_CORRECTION, micro=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=MODULE_PIXELS,
        border=QUIET_ZONE,
        xmldecl=False,
        light="#fff",
        title=title,
    )
    return out.getvalue()


def qr_answers() -> dict[str, Any]:
    """A QR route's 200 in the OpenAPI document (its ``policy(openapi=...)``): the SVG, or the
    same document as text where the request's ``Accept`` prefers it."""
    return {
        "responses": {
            "200": {
                "content": {
                    SVG: {
                        "schema": {
                            "type": "string",
                            "description": "An SVG document: the QR code of the link.",
                        }
                    },
                    TEXT: {
                        "schema": {
                            "type": "string",
                            "description": "The same SVG document, as plain text.",
                        }
                    },
                }
            }
        }
    }
