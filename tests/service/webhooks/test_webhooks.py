"""Webhooks over HTTP, delivered to a real receiver on a loopback port (``receiver.py``): each
delivery signed as Standard Webhooks says and verified with its library; a receiver down for a
while gets every delivery afterwards, once each by ``webhook-id``; a slow one never slows a
game; a delivery that never gets through is dropped with its reason; a redelivery; private
addresses refused unless the deployment allows them; bad URLs and limits as clear problems;
and two instances on one Redis (or Redis Cluster) sharing the queue."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from prometheus_client import REGISTRY
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from service.app import create_app
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_player_events import two_player_game
from tests.service.players.test_players import bearer, new_player
from tests.service.webhooks.receiver import Receiver
from tests.waiting import eventually

Client = TestClient[Litestar]
Json = dict[str, Any]
HOOKS = "/v1/players/me/webhooks"
LOCAL: dict[str, Any] = {
    "webhook_allow_http": True,
    "webhook_allow_private": True,
    "webhook_first_retry": 0.05,
    "webhook_poll_seconds": 0.02,
}
"""A deployment that lets webhooks reach this machine, retrying at once (no test waits a
backoff out)."""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver().start()
    yield running
    if running.port and running._server is not None:
        running.stop()


@pytest.fixture
def local() -> Iterator[Client]:
    with TestClient(create_app(Settings(**LOCAL))) as client:
        yield client


def hook(client: Client, key: str, url: str, events: list[str]) -> Json:
    response = client.post(HOOKS, json={"url": url, "events": events}, headers=bearer(key))
    assert response.status_code == 201, response.text
    made: Json = response.json()
    return made


def deliveries(client: Client, key: str, webhook_id: str) -> list[Json]:
    response = client.get(f"{HOOKS}/{webhook_id}/deliveries", headers=bearer(key))
    assert response.status_code == 200, response.text
    found: list[Json] = response.json()["deliveries"]
    return found


def attempts(outcome: str) -> float:
    """This process's count of delivery attempts (``three_thirteen_webhook_attempts``)."""
    labels = {"outcome": outcome}
    return REGISTRY.get_sample_value("three_thirteen_webhook_attempts_total", labels) or 0.0


def verified(secret: str, received: Any) -> Json:
    """The delivery's payload, once the library has verified its signature."""
    payload: Json = Webhook(secret).verify(received.body, received.headers)
    return payload


def test_a_receiver_gets_each_event_signed_and_verifies_it_with_the_library(
    local: Client, receiver: Receiver
) -> None:
    ann, bob = new_player(local, "Ann"), new_player(local, "Bob")
    made = hook(local, ann["key"], receiver.url, ["game_start", "your_turn"])
    assert made["secret"].startswith("whsec_")
    assert made["events"] == ["game_start", "your_turn"]
    listed = local.get(HOOKS, headers=bearer(ann["key"])).json()["webhooks"]
    assert listed == [{k: v for k, v in made.items() if k != "secret"}]

    _, _, joined = two_player_game(local, (ann, bob))
    game_id, ann_on_turn = joined["game_id"], joined["view"]["turn"] == 0
    expected = ["game_start", "your_turn"] if ann_on_turn else ["game_start"]
    eventually(lambda: len(receiver.received) == len(expected), "the deliveries")
    payloads = [verified(made["secret"], each) for each in receiver.received]
    assert sorted(p["type"] for p in payloads) == sorted(expected)
    for payload in payloads:
        assert payload["data"]["game_id"] == game_id
        assert payload["data"]["type"] == payload["type"]
        assert payload["timestamp"].endswith("Z")
    first = receiver.received[0]
    assert first.headers["content-type"] == "application/json"
    with pytest.raises(WebhookVerificationError):  # another secret: refused
        Webhook("whsec_" + "A" * 43 + "=").verify(first.body, first.headers)
    with pytest.raises(WebhookVerificationError):  # a body changed on the way: refused
        Webhook(made["secret"]).verify(first.body.replace(b"game", b"gamf"), first.headers)

    logged = eventually(
        lambda: (
            (
                (ds := deliveries(local, ann["key"], made["webhook_id"]))
                and all(d["state"] == "delivered" for d in ds)
                and ds
            )
            or None
        ),
        "the deliveries settled",
    )
    assert sorted(d["delivery_id"] for d in logged) == sorted(receiver.ids())
    assert all(d["attempts"][0]["status"] == 204 for d in logged)
    assert all(d["next_try"] is None for d in logged)


def test_a_receiver_down_for_a_while_gets_every_delivery_afterwards_once_each(
    local: Client, receiver: Receiver
) -> None:
    ann, bob = new_player(local, "Ann"), new_player(local, "Bob")
    made = hook(local, ann["key"], receiver.url, ["game_start"])
    before = {outcome: attempts(outcome) for outcome in ("retried", "delivered")}
    receiver.stop()  # connections refused from now on
    games = [two_player_game(local, (ann, bob))[2]["game_id"] for _ in range(5)]

    def retried() -> list[Json] | None:
        found = deliveries(local, ann["key"], made["webhook_id"])
        each_failed_twice = len(found) == 5 and all(len(d["attempts"]) >= 2 for d in found)
        return found if each_failed_twice else None

    down = eventually(retried, "every delivery tried, and failed, twice")
    assert all(d["state"] == "waiting" and d["next_try"] for d in down)
    assert all(a["status"] is None and a["error"] for d in down for a in d["attempts"])

    receiver.start()  # the same port
    eventually(lambda: len(receiver.received) >= 5, "every delivery, once the receiver is up")
    eventually(
        lambda: all(
            d["state"] == "delivered" for d in deliveries(local, ann["key"], made["webhook_id"])
        ),
        "every delivery settled",
    )
    ids = receiver.ids()
    assert sorted(set(ids)) == sorted(d["delivery_id"] for d in down)
    assert len(ids) == len(set(ids)) == 5
    sent_games = {verified(made["secret"], each)["data"]["game_id"] for each in receiver.received}
    assert sent_games == set(games)
    assert attempts("retried") - before["retried"] >= 10
    assert attempts("delivered") - before["delivered"] >= 5


def take_turns(client: Client, game_id: str, keys: dict[int, str], turns: int) -> int:
    """``turns`` turns, each a draw from the stock and the first card's discard; the version."""
    version = 0
    for _ in range(turns):
        view = client.get(f"/v1/games/{game_id}").json()
        auth = bearer(keys[view["turn"]])
        draw = {"type": "draw", "source": "stock"}
        drawn = client.post(f"/v1/games/{game_id}/actions", json=draw, headers=auth)
        assert drawn.status_code == 200, drawn.text
        discard = {"type": "discard", "card": drawn.json()["hand"][0]}
        done = client.post(f"/v1/games/{game_id}/actions", json=discard, headers=auth)
        assert done.status_code == 200, done.text
        version = done.json()["version"]
    return version


def test_a_slow_receiver_never_slows_a_game(receiver: Receiver) -> None:
    settings = Settings(**{**LOCAL, "webhook_timeout": 60.0, "webhook_concurrency": 2})
    with TestClient(create_app(settings)) as client:
        ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
        made = hook(client, ann["key"], receiver.url, ["your_turn", "game_start"])
        bob_hook = hook(client, bob["key"], receiver.url, ["your_turn", "game_start"])
        receiver.released.clear()  # every request held until released
        _, _, joined = two_player_game(client, (ann, bob))
        game_id = joined["game_id"]
        eventually(lambda: receiver.holding == 2, "both senders held by the receiver")

        version = take_turns(client, game_id, {0: ann["key"], 1: bob["key"]}, 6)
        assert version == 12  # every action answered while the receiver held its requests
        assert receiver.received == []
        assert receiver.holding == 2
        waiting = deliveries(client, ann["key"], made["webhook_id"])
        assert len(waiting) >= 4
        assert all(d["state"] == "waiting" for d in waiting)

        receiver.released.set()

        def delivered(key: str, webhook: Json) -> bool:
            return all(
                d["state"] == "delivered" for d in deliveries(client, key, webhook["webhook_id"])
            )

        eventually(
            lambda: delivered(ann["key"], made) and delivered(bob["key"], bob_hook),
            "every delivery, once the receiver answers",
        )
        assert len(receiver.ids()) == len(set(receiver.ids())) == 2 + 7  # starts; 7 turns


def test_a_delivery_never_answered_is_dropped_with_its_reason_and_can_be_redelivered(
    receiver: Receiver,
) -> None:
    settings = Settings(**{**LOCAL, "webhook_retry_for": 0.3})
    with TestClient(create_app(settings)) as client:
        ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
        made = hook(client, ann["key"], receiver.url, ["game_start"])
        receiver.status = 503
        two_player_game(client, (ann, bob))
        [dropped] = eventually(
            lambda: (
                [
                    d
                    for d in deliveries(client, ann["key"], made["webhook_id"])
                    if d["state"] == "dropped"
                ]
                or None
            ),
            "the delivery dropped",
        )
        assert dropped["reason"].startswith("gave up after")
        assert dropped["reason"].endswith("HTTP 503")
        assert dropped["next_try"] is None
        assert all(a["status"] == 503 for a in dropped["attempts"])

        receiver.status = 200
        again = client.post(
            f"{HOOKS}/{made['webhook_id']}/deliveries/{dropped['delivery_id']}/redeliver",
            headers=bearer(ann["key"]),
        )
        assert again.status_code == 202, again.text
        assert again.json()["state"] == "waiting"
        eventually(
            lambda: deliveries(client, ann["key"], made["webhook_id"])[0]["state"] == "delivered",
            "the redelivery",
        )
        ids = receiver.ids()
        assert ids[-1] == dropped["delivery_id"]  # the same webhook-id every time
        assert verified(made["secret"], receiver.received[-1])["type"] == "game_start"


def test_private_addresses_are_refused_unless_the_deployment_allows_them(client: Client) -> None:
    ann = new_player(client)
    for url in (
        "https://127.0.0.1/hook",
        "https://10.1.2.3/hook",
        "https://192.168.0.7:8443/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://[fe80::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://100.64.0.1/hook",
        "https://0.0.0.0/hook",
        "https://localhost/hook",
        "https://app.localhost/hook",
    ):
        response = client.post(
            HOOKS, json={"url": url, "events": ["your_turn"]}, headers=bearer(ann["key"])
        )
        assert_problem(response, 422, "invalid-webhook-url", "url")
    plain = client.post(
        HOOKS,
        json={"url": "http://example.com/hook", "events": ["your_turn"]},
        headers=bearer(ann["key"]),
    )
    assert "https://" in assert_problem(plain, 422, "invalid-webhook-url", "url")["detail"]
    public = hook(client, ann["key"], "https://example.com/hook", ["your_turn"])
    assert public["url"] == "https://example.com/hook"


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("https://ann:secret@example.com/hook", "user name or password"),
        ("https://example.com/hook#part", "fragment"),
        ("ftp://example.com/hook", "https://"),
        ("example.com/hook", "https://"),
        ("https:///hook", "no host"),
        ("https://example.com:99999/hook", "not a URL"),
        ("https://exa mple.com/hook", "space"),
        ("https://exämple.com/hook", "ASCII"),
    ],
)
def test_a_bad_webhook_url_is_a_problem_naming_the_url(
    client: Client, url: str, words: str
) -> None:
    ann = new_player(client)
    response = client.post(
        HOOKS, json={"url": url, "events": ["your_turn"]}, headers=bearer(ann["key"])
    )
    assert words in assert_problem(response, 422, "invalid-webhook-url", "url")["detail"]


def test_webhook_bodies_limits_and_ownership_are_clear_problems(client: Client) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    auth = bearer(ann["key"])
    url = "https://example.com/hook"
    too_long = "https://example.com/" + "a" * 2048
    for body, field in (
        ({"url": too_long, "events": ["your_turn"]}, "url"),
        ({"url": url, "events": []}, "events"),
        ({"url": url, "events": ["tournament_start"]}, "events[0]"),
        ({"url": url}, "events"),
        ({"url": url, "events": ["your_turn"], "secret": "mine"}, "secret"),
    ):
        assert_problem(client.post(HOOKS, json=body, headers=auth), 422, "invalid-field", field)
    assert_problem(
        client.post(HOOKS, json={"url": url, "events": ["your_turn"]}), 401, "player-key-required"
    )
    assert_problem(client.get(HOOKS), 401, "player-key-required")

    made = [hook(client, ann["key"], f"{url}/{n}", ["your_turn", "your_turn"]) for n in range(5)]
    assert made[0]["events"] == ["your_turn"]
    sixth = client.post(HOOKS, json={"url": url, "events": ["your_turn"]}, headers=auth)
    assert_problem(sixth, 409, "webhook-quota-reached")

    webhook_id = made[0]["webhook_id"]
    for path in (f"{HOOKS}/{webhook_id}/deliveries",):
        assert_problem(client.get(path, headers=bearer(bob["key"])), 404, "webhook-not-found")
    assert_problem(
        client.delete(f"{HOOKS}/{webhook_id}", headers=bearer(bob["key"])), 404, "webhook-not-found"
    )
    redeliver = f"{HOOKS}/{webhook_id}/deliveries/msg_{'x' * 22}/redeliver"
    assert_problem(client.post(redeliver, headers=auth), 404, "delivery-not-found")
    assert_problem(client.get(f"{HOOKS}/nope/deliveries", headers=auth), 422, "invalid-field")

    assert client.delete(f"{HOOKS}/{webhook_id}", headers=auth).status_code == 204
    assert_problem(client.delete(f"{HOOKS}/{webhook_id}", headers=auth), 404, "webhook-not-found")
    assert len(client.get(HOOKS, headers=auth).json()["webhooks"]) == 4
    hook(client, ann["key"], url, ["game_finish"])  # room again


@pytest.fixture(params=["redis", "cluster"])
def two_instances(
    request: pytest.FixtureRequest, receiver: Receiver
) -> Iterator[tuple[Client, Client]]:
    """Two apps on one Redis (or Redis Cluster) that may call this machine, under the test's own
    key prefix (deleted afterwards)."""
    fixture = "redis_settings" if request.param == "redis" else "redis_cluster_settings"
    settings = msgspec.structs.replace(request.getfixturevalue(fixture), **LOCAL)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield one, two


@pytest.mark.redis
def test_two_instances_on_one_redis_deliver_each_event_once(
    two_instances: tuple[Client, Client], receiver: Receiver
) -> None:
    one, two = two_instances
    ann, bob = new_player(one, "Ann"), new_player(two, "Bob")
    made = hook(one, ann["key"], receiver.url, ["game_start"])
    assert [
        h["webhook_id"] for h in two.get(HOOKS, headers=bearer(ann["key"])).json()["webhooks"]
    ] == [made["webhook_id"]]
    receiver.stop()
    games = {two_player_game(two, (ann, bob))[2]["game_id"] for _ in range(4)}
    eventually(
        lambda: (
            all(len(d["attempts"]) >= 2 for d in deliveries(one, ann["key"], made["webhook_id"]))
            and len(deliveries(one, ann["key"], made["webhook_id"])) == 4
        ),
        "every delivery tried twice",
    )
    receiver.start()
    eventually(
        lambda: all(
            d["state"] == "delivered" for d in deliveries(two, ann["key"], made["webhook_id"])
        ),
        "every delivery, by either instance",
    )
    ids = receiver.ids()
    assert len(set(ids)) == 4
    sent = {json.loads(each.body)["data"]["game_id"] for each in receiver.received}
    assert sent == games
    assert (
        two.delete(f"{HOOKS}/{made['webhook_id']}", headers=bearer(ann["key"])).status_code == 204
    )
