"""Tables across two real service processes on one Redis: the last seat raced from both
instances, the rematch asked by every seat at once from both, one lobby for both."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from tests.redis_servers import HttpResponse, LeanHttpClient, redis_server_installed
from tests.service.games.test_redis_instances import (
    Deployment,
    deploy,
    run,
    tear_down,
    with_clients,
)

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = [
    pytest.mark.xdist_group("test_redis_tables_instances"),
    pytest.mark.redis,
    pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server"),
]

Json = dict[str, Any]

CLAIMANTS = 16
RACES = 100


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    deployment = deploy(tmp_path_factory.mktemp("tables-two-instances"), 2)
    yield deployment
    tear_down(deployment)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def create(client: LeanHttpClient, body: Json) -> Json:
    response = await client.post("/v1/games", body)
    assert response.status == 201, response.body
    created: Json = response.json()
    return created


def test_sixteen_claimants_for_the_last_seat_on_two_instances_seat_exactly_one(
    instances: Deployment,
) -> None:
    """100 times: a table with one open seat; 16 people claim it at once, 8 through each
    instance. Exactly one is seated (201, with the dealt view); the other 15 answer 409."""

    async def race(first: LeanHttpClient, second: LeanHttpClient) -> None:
        # One connection per claimant, opened once: the races measure the claims, not connects.
        claimants = [LeanHttpClient(f"http://{c.host}:{c.port}") for c in (first, second) * 8]
        durations: list[float] = []
        winners_by_instance = [0, 0]
        try:
            for number in range(RACES):
                created = await create(
                    (first, second)[number % 2],
                    {"players": [{"name": "host"}, {"open": True}], "listed": True},
                )
                code = created["invite_code"]
                started = time.perf_counter()
                responses: list[HttpResponse] = await asyncio.gather(
                    *(
                        c.post(f"/v1/invites/{code}", {"name": f"racer{k}"})
                        for k, c in enumerate(claimants)
                    )
                )
                durations.append(time.perf_counter() - started)
                statuses = [r.status for r in responses]
                assert statuses.count(201) == 1, statuses
                assert statuses.count(409) == CLAIMANTS - 1, statuses
                winner = statuses.index(201)
                winners_by_instance[winner % 2] += 1
                seated = responses[winner].json()
                assert (seated["seat"], seated["view"]["status"]) == (1, "playing")
                kinds = {r.json()["type"] for r in responses if r.status == 409}
                assert kinds == {"urn:three-thirteen:problem:table-full"}
        finally:
            for claimant in claimants:
                await claimant.close()
        lobby = (await first.get("/v1/tables")).json()
        assert lobby == {"tables": []}
        print(  # the race figures, for `pytest -s`
            f"\n{RACES} races of {CLAIMANTS} claimants: one seated each time "
            f"(instance A {winners_by_instance[0]}, B {winners_by_instance[1]}), "
            f"{RACES * (CLAIMANTS - 1)} answered 409; a race took "
            f"{statistics.median(durations) * 1000:.1f} ms median, "
            f"{max(durations) * 1000:.1f} ms at most"
        )

    run(with_clients(instances, race))


async def play_to_end(clients: list[LeanHttpClient], game_id: str, tokens: list[str]) -> Json:
    """Each seat on turn plays from its view's ``legal``: the discard the analyser ranks best,
    going out when it can. Requests alternate between the instances."""
    turn = 0
    while True:
        client = clients[turn % 2]
        turn += 1
        public: Json = (await client.get(f"/v1/games/{game_id}")).json()
        if public["status"] == "finished":
            return public
        seat = public["turn"]
        drawn = await client.post(
            f"/v1/games/{game_id}/actions",
            {"type": "draw", "source": "stock"},
            bearer(tokens[seat]),
        )
        assert drawn.status == 200, drawn.body
        own = drawn.json()
        best = engine.analyse(own["hand"], own["wild"], own["rules"]).suggested_discard
        card = engine.format_card(best) if best is not None else own["hand"][0]
        choices = [a for a in own["legal"] if a["type"] == "discard" and a["card"] == card]
        choice = max(choices, key=lambda a: a.get("go_out", False))
        played = await client.post(f"/v1/games/{game_id}/actions", choice, bearer(tokens[seat]))
        assert played.status == 200, played.body


def test_a_rematch_asked_by_every_seat_twice_at_once_on_two_instances_makes_one_game(
    instances: Deployment,
) -> None:
    """Four seats each ask for the rematch twice at the same moment, once through each
    instance: one new game, each seat seated in it exactly once (201, its own token; the other
    ask 409), and the rematch dealt once all four are in."""

    async def rematch(first: LeanHttpClient, second: LeanHttpClient) -> None:
        created = await create(
            first,
            {"players": [{"name": f"p{n}"} for n in range(4)], "rules": "classic", "seed": 5},
        )
        game_id = created["game_id"]
        tokens = [s["token"] for s in created["seats"]]
        await play_to_end([first, second], game_id, tokens)
        askers = [LeanHttpClient(f"http://{c.host}:{c.port}") for c in (first, second) * 4]
        try:
            responses = await asyncio.gather(
                *(
                    c.post(f"/v1/games/{game_id}/rematch", None, bearer(tokens[k // 2]))
                    for k, c in enumerate(askers)
                )
            )
        finally:
            for asker in askers:
                await asker.close()
        by_seat: dict[int, list[HttpResponse]] = {}
        for k, response in enumerate(responses):
            by_seat.setdefault(k // 2, []).append(response)
        new_ids = set()
        new_tokens = {}
        for seat, answers in by_seat.items():
            assert sorted(a.status for a in answers) == [201, 409], [a.body for a in answers]
            (won,) = [a.json() for a in answers if a.status == 201]
            assert won["seat"] == seat
            new_ids.add(won["game_id"])
            new_tokens[seat] = won["token"]
        assert len(new_ids) == 1
        (new_id,) = new_ids
        assert not set(new_tokens.values()) & set(tokens)
        for seat, token in new_tokens.items():
            own = (await (first, second)[seat % 2].get(f"/v1/games/{new_id}", bearer(token))).json()
            assert (own["status"], own["seat"]) == ("playing", seat)
            assert [p["name"] for p in own["players"]] == ["p0", "p1", "p2", "p3"]

    run(with_clients(instances, rematch))


def test_both_instances_show_the_same_lobby(instances: Deployment) -> None:
    async def lobby(first: LeanHttpClient, second: LeanHttpClient) -> None:
        listed = [
            await create(c, {"players": [{"name": "host"}, {"open": True}], "listed": True})
            for c in (first, second)
        ]
        await create(first, {"players": [{"name": "host"}, {"open": True}]})  # unlisted
        seen = [(await c.get("/v1/tables")).json()["tables"] for c in (first, second)]
        assert seen[0] == seen[1]
        assert [t["game_id"] for t in seen[0]] == [t["game_id"] for t in listed[::-1]]
        # A code made on one instance claims on the other.
        claimed = await second.post(f"/v1/invites/{listed[0]['invite_code']}", {"name": "x"})
        assert claimed.status == 201, claimed.body
        after = [(await c.get("/v1/tables")).json()["tables"] for c in (first, second)]
        assert after[0] == after[1] == seen[0][:1]

    run(with_clients(instances, lobby))
