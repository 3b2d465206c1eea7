"""``GET /v1/invites/{code}/qr`` over HTTP: the QR code of a table's invite link for a friend
at the same table, drawn for any well-formed code without looking it up."""

from __future__ import annotations

import httpx

from service.tables.invite_links import invite_link, invite_qr


def test_an_invite_s_qr_code_is_its_link_drawn_for_any_well_formed_code(
    live_server: str, http: httpx.Client
) -> None:
    """``GET /v1/invites/{code}/qr`` over HTTP: segno's drawing of ``<base>/play?code=<code>``,
    the code canonical, kept by caches for a day; a malformed code is the claim's 404."""
    answer = http.get(f"{live_server}/v1/invites/kmrx-47fh/qr")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.headers["cache-control"] == "public, max-age=86400"
    assert answer.headers["vary"] == "Accept"
    assert answer.content == invite_qr(invite_link(live_server, "KMRX47FH"))
    assert invite_link(live_server, "KMRX47FH") == f"{live_server}/play?code=KMRX47FH"
    assert b"<svg" in answer.content
    text = http.get(f"{live_server}/v1/invites/KMRX47FH/qr", headers={"Accept": "text/plain"})
    assert text.headers["content-type"].startswith("text/plain")
    assert text.content == answer.content
    malformed = http.get(f"{live_server}/v1/invites/nope/qr")
    assert malformed.status_code == 404
    assert malformed.json()["type"].endswith("invite-not-found")
