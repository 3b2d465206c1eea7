"""A sign-in link for another device, as a QR code: ``<base>/play#key=<key>``.

The key rides in the link's fragment, which a browser never sends to a server (nor in a
``Referer``): the play page reads it, keeps the key, and takes the fragment out of the address
bar. The code is drawn here (segno) rather than in the page, which has no build step and loads
nothing from elsewhere, so a phone's camera can read the link off the screen of a signed-in
device.

The base is the service's ``PUBLIC_URL`` when one is set; otherwise the address the request was
sent to. Stream URLs never take a request's ``Host`` (``Settings.public_url``): they are handed
to whoever asks for them. This answer is only ever the key holder's (the key is required, and the
answer is not stored by any cache), and a browser sends its own page's ``Host``; a proxy that
passes another one needs ``PUBLIC_URL`` for the link to reach the page.
"""

from __future__ import annotations

import io
from typing import Final

import segno

PLAY_PATH: Final = "/play"
"""Where the play page is served (``service.play.routes``, a floor below, which this module does
not import)."""
ERROR_CORRECTION: Final = "m"
"""Medium (15% of the code may be lost): a screen photographed at an angle still reads."""
MODULE_PIXELS: Final = 4
"""Each module of the code drawn 4 units wide; the SVG scales to any size."""
QUIET_ZONE: Final = 4
"""The white border, in modules, that the QR standard asks for around the code."""


def sign_in_link(base_url: str, key: str) -> str:
    """The play page's address with ``key`` in its fragment."""
    return f"{base_url.rstrip('/')}{PLAY_PATH}#key={key}"


def qr_svg(link: str) -> bytes:
    """``link`` as a QR code, one SVG document (a single path, black on white)."""
    code = segno.make(link, error=ERROR_CORRECTION, micro=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=MODULE_PIXELS,
        border=QUIET_ZONE,
        xmldecl=False,
        light="#fff",
        title="Sign-in link for the play page",
    )
    return out.getvalue()
