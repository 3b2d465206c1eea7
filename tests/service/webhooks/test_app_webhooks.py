"""Webhooks of an app (``/v1/apps/me/webhooks``), over HTTP, delivered to a real receiver on a
loopback port: a deployment names its apps' keys (``APP_KEYS``), the players an app's server
makes with its key are the app's, and one webhook of the app gets the events of all of them,
each naming its player, signed and verified with the Standard Webhooks library; on memory,
Redis and Redis Cluster. Then what is refused, each a problem naming what is wrong."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from standardwebhooks.webhooks import WebhookVerificationError

from service.app import create_app
from service.settings import Settings, SettingsError
from tests.service.conftest_redis import StoreFamily, prefixed_settings
from tests.service.games.test_games_api import assert_problem
from tests.service.players.test_player_events import two_player_game
from tests.service.players.test_players import bearer, new_player
from tests.service.webhooks.receiver import Receiver
from tests.service.webhooks.test_webhooks import LOCAL, verified
from tests.waiting import eventually

Client = TestClient[Litestar]
Json = dict[str, Any]
APP_HOOKS = "/v1/apps/me/webhooks"
ACME_KEY = "acme-" + "k" * 27
OTHER_KEY = "other-" + "o" * 26
APPS = (("acme", ACME_KEY), ("other", OTHER_KEY))
ACME = bearer(ACME_KEY)


def app_player(client: Client, name: str, key: str = ACME_KEY) -> Json:
    response = client.post("/v1/players", json={"name": name}, headers=bearer(key))
    assert response.status_code == 201, response.text
    made: Json = response.json()
    return made


def app_hook(client: Client, events: list[str], url: str) -> Json:
    response = client.post(APP_HOOKS, json={"url": url, "events": events}, headers=ACME)
    assert response.status_code == 201, response.text
    made: Json = response.json()
    return made


def app_deliveries(client: Client, webhook_id: str) -> list[Json]:
    response = client.get(f"{APP_HOOKS}/{webhook_id}/deliveries?limit=100", headers=ACME)
    assert response.status_code == 200, response.text
    found: list[Json] = response.json()["deliveries"]
    return found


@pytest.fixture
def deployment(store_family: StoreFamily) -> Iterator[Client]:
    """A deployment of two apps that lets webhooks reach this machine: in memory, on Redis or
    on Redis Cluster (under the test's own key prefix)."""
    settings = Settings(**LOCAL, app_keys=APPS)
    if store_family.url:
        cluster = store_family.kind == "cluster"
        on_redis = prefixed_settings(store_family.url, store_family.key_prefix, cluster=cluster)
        settings = msgspec.structs.replace(on_redis, **LOCAL, app_keys=APPS)
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver().start()
    yield running
    if running._server is not None:
        running.stop()


def test_one_webhook_of_the_app_gets_the_events_of_all_its_players(
    deployment: Client, receiver: Receiver
) -> None:
    client = deployment
    made = app_hook(client, ["game_start", "game_finish"], receiver.url)
    assert made["secret"].startswith("whsec_")
    listed = client.get(APP_HOOKS, headers=ACME).json()["webhooks"]
    assert listed == [{k: v for k, v in made.items() if k != "secret"}]

    ann, bob = app_player(client, "Ann"), app_player(client, "Bob")
    assert (ann["app"], bob["app"]) == ("acme", "acme")
    carl, dan = new_player(client, "Carl"), app_player(client, "Dan", OTHER_KEY)
    assert (carl["app"], dan["app"]) == (None, "other")
    game_id = two_player_game(client, (ann, bob))[2]["game_id"]
    other_game = two_player_game(client, (carl, dan))[2]["game_id"]

    eventually(lambda: len(receiver.received) >= 2, "a game_start for each of the app's players")
    payloads = [verified(made["secret"], each) for each in receiver.received]
    assert sorted((p["type"], p["player_id"]) for p in payloads) == sorted(
        [("game_start", ann["player_id"]), ("game_start", bob["player_id"])]
    )
    assert {p["data"]["game_id"] for p in payloads} == {game_id}
    assert {p["data"]["seat"] for p in payloads} == {0, 1}

    delivered = eventually(
        lambda: (
            (
                (found := app_deliveries(client, made["webhook_id"]))
                and all(d["state"] == "delivered" for d in found)
                and found
            )
            or None
        ),
        "the app's deliveries settled",
    )
    assert sorted(d["delivery_id"] for d in delivered) == sorted(receiver.ids())
    again = client.post(
        f"{APP_HOOKS}/{made['webhook_id']}/deliveries/{delivered[0]['delivery_id']}/redeliver",
        headers=ACME,
    )
    assert again.status_code == 202, again.text
    eventually(lambda: len(receiver.received) == 3, "the redelivery")
    assert receiver.ids()[-1] == delivered[0]["delivery_id"]
    assert other_game not in {
        verified(made["secret"], each)["data"]["game_id"] for each in receiver.received
    }
    # The app's webhooks are not its players': a player's key neither lists nor reaches them.
    assert client.get("/v1/players/me/webhooks", headers=bearer(ann["key"])).json() == {
        "webhooks": []
    }
    hook_path = f"/v1/players/me/webhooks/{made['webhook_id']}"
    assert_problem(client.delete(hook_path, headers=bearer(ann["key"])), 404, "webhook-not-found")
    assert client.delete(f"{APP_HOOKS}/{made['webhook_id']}", headers=ACME).status_code == 204
    assert client.get(APP_HOOKS, headers=ACME).json() == {"webhooks": []}


def test_a_player_and_its_app_each_get_the_players_events(receiver: Receiver) -> None:
    with TestClient(create_app(Settings(**LOCAL, app_keys=APPS))) as client:
        ann, bob = app_player(client, "Ann"), new_player(client, "Bob")
        app_made = app_hook(client, ["game_start"], receiver.url + "/app")
        own = client.post(
            "/v1/players/me/webhooks",
            json={"url": receiver.url + "/ann", "events": ["game_start"]},
            headers=bearer(ann["key"]),
        ).json()
        two_player_game(client, (ann, bob))
        eventually(lambda: len(receiver.received) == 2, "a delivery to each webhook")
        by_secret = {app_made["secret"]: "app", own["secret"]: "own"}
        for each in receiver.received:
            [(whose, payload)] = [
                (whose, verified(secret, each))
                for secret, whose in by_secret.items()
                if _verifies(secret, each)
            ]
            assert payload["player_id"] == ann["player_id"], whose


def _verifies(secret: str, received: Any) -> bool:
    try:
        verified(secret, received)
    except WebhookVerificationError:  # another webhook's signature
        return False
    return True


def test_a_wrong_or_missing_app_key_is_a_problem_naming_what_is_wrong(client: Client) -> None:
    """``client``: a deployment without APP_KEYS."""
    body = {"url": "https://example.com/hook", "events": ["your_turn"]}
    ann = new_player(client, "Ann")
    assert ann["app"] is None
    missing = assert_problem(client.post(APP_HOOKS, json=body), 401, "app-key-required")
    assert "Authorization: Bearer" in missing["detail"]
    none = assert_problem(client.get(APP_HOOKS, headers=ACME), 401, "unknown-app-key")
    assert "APP_KEYS" in none["detail"]
    refused = client.post("/v1/players", json={"name": "Bob"}, headers=ACME)
    assert "serves no app" in assert_problem(refused, 401, "unknown-app-key")["detail"]

    with TestClient(create_app(Settings(app_keys=APPS))) as apps:
        player = new_player(apps, "Carl")
        for path in (APP_HOOKS, f"{APP_HOOKS}/wh_{'a' * 16}/deliveries"):
            assert_problem(apps.get(path), 401, "app-key-required")
            wrong = assert_problem(apps.get(path, headers=bearer("x" * 32)), 401, "unknown-app-key")
            assert "no app of this deployment" in wrong["detail"]
            as_player = assert_problem(
                apps.get(path, headers=bearer(player["key"])), 401, "unknown-app-key"
            )
            assert "a player's key" in as_player["detail"]
        # A player made with a token that is no app's key is not made at all.
        for token in ("x" * 32, player["key"]):
            made = apps.post("/v1/players", json={"name": "Dan"}, headers=bearer(token))
            assert_problem(made, 401, "unknown-app-key")
        # The same bounds as a player's: at most 5 webhooks, bodies checked field by field.
        for n in range(5):
            assert apps.post(APP_HOOKS, json=body, headers=ACME).status_code == 201, n
        assert_problem(apps.post(APP_HOOKS, json=body, headers=ACME), 409, "webhook-quota-reached")
        assert_problem(
            apps.post(APP_HOOKS, json={**body, "events": []}, headers=ACME),
            422,
            "invalid-field",
            "events",
        )
        other = bearer(OTHER_KEY)
        assert_problem(
            apps.post(APP_HOOKS, json={**body, "url": "https://10.0.0.1/hook"}, headers=other),
            422,
            "invalid-webhook-url",
            "url",
        )
        mine = apps.get(APP_HOOKS, headers=ACME).json()["webhooks"][0]["webhook_id"]
        deleted = apps.delete(f"{APP_HOOKS}/{mine}", headers=other)
        assert (
            "the app has no webhook" in assert_problem(deleted, 404, "webhook-not-found")["detail"]
        )


def test_app_keys_are_read_from_the_environment_and_bad_ones_refused_unshown() -> None:
    env = {"APP_KEYS": f" acme={ACME_KEY} , other = {OTHER_KEY}=="}
    assert Settings.from_env(env).app_keys == (("acme", ACME_KEY), ("other", OTHER_KEY + "=="))
    assert Settings.from_env({}).app_keys == ()
    for bad in (
        "acme",  # no key
        f"Acme={ACME_KEY}",  # not a name
        "acme=short-secret",  # too short
        f"acme={ACME_KEY},acme={OTHER_KEY}",  # one name twice
        f"acme={ACME_KEY},other={ACME_KEY}",  # one key twice
    ):
        with pytest.raises(SettingsError, match="APP_KEYS") as refused:
            Settings.from_env({"APP_KEYS": bad})
        assert ACME_KEY not in str(refused.value)
        assert "short-secret" not in str(refused.value)
