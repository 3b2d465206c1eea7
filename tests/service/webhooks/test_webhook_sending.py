"""One attempt at a delivery, against a real receiver: signed so the library verifies it; a host
name that resolves to a loopback address refused after resolution unless private addresses are
allowed; a redirect never followed; a receiver that never answers is a timeout. And the event
types a webhook subscribes to are exactly the player's stream's; the settings read from the
environment."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
import typing
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import msgspec
import pytest
from standardwebhooks.webhooks import Webhook

from service.players.event_wire import PlayerEvent
from service.settings import Settings, SettingsError
from service.webhooks.addresses import public
from service.webhooks.lifecycle import new_secret
from service.webhooks.sending import Outcome, Sender
from service.webhooks.wire import EVENT_TYPES
from tests.service.webhooks.receiver import Receiver

BODY = b'{"type":"your_turn","timestamp":"2026-12-07T10:00:00.000Z","data":{}}'


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver().start()
    yield running
    running.stop()


def send(url: str, *, allow_private: bool, timeout: float = 10.0) -> tuple[Outcome, str]:
    secret = new_secret()

    async def attempt() -> Outcome:
        sender = Sender(timeout=timeout, connections=2, allow_private=allow_private)
        try:
            return await sender.send(url, secret, "msg_test", BODY)
        finally:
            await sender.close()

    return asyncio.run(attempt()), secret


def test_an_attempt_is_signed_as_the_library_verifies(receiver: Receiver) -> None:
    outcome, secret = send(receiver.url, allow_private=True)
    assert outcome == Outcome(status=204, error=None, duration_ms=outcome.duration_ms)
    [received] = receiver.received
    assert received.body == BODY
    assert received.headers["webhook-id"] == "msg_test"
    assert Webhook(secret).verify(received.body, received.headers)["type"] == "your_turn"


def test_a_name_that_resolves_to_loopback_is_refused_after_resolution(receiver: Receiver) -> None:
    assert socket.getaddrinfo("localhost", receiver.port)  # resolves on this machine
    url = f"http://localhost:{receiver.port}/hooks"
    outcome, _ = send(url, allow_private=False)
    assert outcome.status is None
    assert outcome.error is not None
    assert "not a public address" in outcome.error
    assert receiver.received == []  # never connected
    allowed, _ = send(url, allow_private=True)
    assert allowed.status == 204


def test_a_redirect_is_never_followed() -> None:
    followed: list[str] = []

    class Redirecting(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path == "/elsewhere":
                followed.append(self.path)
            self.send_response(307)
            self.send_header("location", "/elsewhere")
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: typing.Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        outcome, _ = send(f"http://127.0.0.1:{server.server_address[1]}/", allow_private=True)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert outcome.status == 307
    assert outcome.error == "HTTP 307: redirects are not followed"
    assert not outcome.delivered
    assert followed == []


def test_a_receiver_that_never_answers_is_a_timeout(receiver: Receiver) -> None:
    receiver.released.clear()
    try:
        outcome, _ = send(receiver.url, allow_private=True, timeout=0.2)
    finally:
        receiver.released.set()
    assert outcome.status is None
    assert outcome.error == "no answer within 0.2 s"


@pytest.mark.parametrize(
    ("address", "is_public"),
    [
        ("93.184.216.34", True),
        ("2606:2800:220:1:248:1893:25c8:1946", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("172.16.5.4", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("::1", False),
        ("fe80::1", False),
        ("fd00::1", False),
        ("::ffff:10.0.0.1", False),
        ("::ffff:93.184.216.34", True),
    ],
)
def test_which_addresses_are_public(address: str, is_public: bool) -> None:
    assert public(ipaddress.ip_address(address)) is is_public


def test_a_webhook_subscribes_to_exactly_the_player_stream_s_event_types() -> None:
    [field] = [f for f in msgspec.structs.fields(PlayerEvent) if f.name == "type"]
    literal = typing.get_args(field.type)[0]  # Annotated[Literal[...], Meta]
    assert typing.get_args(literal) == EVENT_TYPES


def test_the_webhook_settings_are_read_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "WEBHOOK_ALLOW_HTTP": "true",
            "WEBHOOK_ALLOW_PRIVATE": "yes",
            "WEBHOOK_TIMEOUT": "3",
            "WEBHOOK_CONCURRENCY": "4",
            "WEBHOOK_FIRST_RETRY": "1.5",
            "WEBHOOK_RETRY_FOR": "3600",
            "WEBHOOK_POLL_SECONDS": "0.5",
        }
    )
    assert (settings.webhook_allow_http, settings.webhook_allow_private) == (True, True)
    assert (settings.webhook_timeout, settings.webhook_concurrency) == (3.0, 4)
    assert (settings.webhook_first_retry, settings.webhook_retry_for) == (1.5, 3600.0)
    assert settings.webhook_poll_seconds == 0.5
    defaults = Settings.from_env({})
    assert (defaults.webhook_allow_http, defaults.webhook_allow_private) == (False, False)
    with pytest.raises(SettingsError, match="WEBHOOK_ALLOW_PRIVATE"):
        Settings.from_env({"WEBHOOK_ALLOW_PRIVATE": "maybe"})
    with pytest.raises(SettingsError, match="WEBHOOK_CONCURRENCY"):
        Settings.from_env({"WEBHOOK_CONCURRENCY": "0"})
