"""The receiver of docs/webhooks.md, run as written against the service: it verifies each
delivery with the library, handles each message once (a redelivery is not handled again), and
refuses a body whose signature does not match."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.players.test_player_events import two_player_game
from tests.service.players.test_players import bearer, new_player
from tests.service.webhooks.test_webhooks import HOOKS, LOCAL, deliveries, hook
from tests.waiting import eventually

DOCS = Path(__file__).resolve().parents[3] / "docs" / "webhooks.md"


def docs_receiver() -> str:
    """The one Python block of docs/webhooks.md."""
    blocks: list[str] = re.findall(r"```python\n(.*?)```", DOCS.read_text("utf-8"), re.DOTALL)
    [block] = blocks
    return block


@pytest.fixture
def client() -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(Settings(**LOCAL))) as test_client:
        yield test_client


def test_the_docs_receiver_verifies_and_handles_each_message_once(
    client: TestClient[Litestar],
) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    server = ThreadingHTTPServer(("127.0.0.1", 0), object)  # type: ignore[arg-type]  # set below
    url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    made = hook(client, ann["key"], url, ["game_start"])
    handled: list[dict[str, Any]] = []
    namespace: dict[str, Any] = {"__name__": "docs_receiver"}
    with mock.patch.dict(os.environ, {"TTT_WEBHOOK_SECRET": made["secret"]}):
        exec(compile(docs_receiver(), str(DOCS), "exec"), namespace)
    namespace["handle"] = handled.append
    server.RequestHandlerClass = namespace["Receiver"]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        game_id = two_player_game(client, (ann, bob))[2]["game_id"]
        eventually(lambda: len(handled) == 1, "the docs' receiver to handle the game's start")
        assert handled[0]["data"]["game_id"] == game_id
        [delivery] = eventually(
            lambda: (
                [
                    d
                    for d in deliveries(client, ann["key"], made["webhook_id"])
                    if d["state"] == "delivered"
                ]
                or None
            ),
            "the delivery settled",
        )
        assert delivery["attempts"][-1]["status"] == 204

        again = client.post(
            f"{HOOKS}/{made['webhook_id']}/deliveries/{delivery['delivery_id']}/redeliver",
            headers=bearer(ann["key"]),
        )
        assert again.status_code == 202, again.text
        eventually(
            lambda: deliveries(client, ann["key"], made["webhook_id"])[0]["state"] == "delivered",
            "the redelivery answered",
        )
        assert len(handled) == 1  # the same webhook-id: not handled twice

        forged = httpx.post(
            url,
            content=b'{"type": "game_start"}',
            headers={"webhook-id": "msg_x", "webhook-timestamp": "1", "webhook-signature": "v1,x"},
        )
        assert forged.status_code == 400
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
