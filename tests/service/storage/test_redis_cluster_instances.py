"""Two service processes on a three-master Redis Cluster (REDIS_CLUSTER=true): games played across
both, idempotent retries across both, and event streams of games in different slots."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tests.redis_servers import LeanHttpClient, ServiceInstance, redis_server_installed
from tests.service.conftest_redis import delete_prefixed, new_key_prefix
from tests.service.games.test_redis_instances import (
    STREAM_LIFETIME,
    a_legal_action,
    act,
    create_game,
    game_log,
    listen,
    play_one,
    seat_view,
    view_of_turn,
)
from tests.waiting import WAIT_SECONDS

# One worker runs this module's tests: they share a module-scoped fixture (make test runs xdist).
pytestmark = [
    pytest.mark.xdist_group("test_redis_cluster_instances"),
    pytest.mark.redis,
    pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server"),
]


@pytest.fixture(scope="module")
def on_cluster(
    redis_cluster_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[ServiceInstance]]:
    directory = tmp_path_factory.mktemp("cluster-instances")
    prefix = new_key_prefix()  # the module's tests share the two instances, so their prefix
    env = {
        "REDIS_URL": redis_cluster_url,
        "REDIS_CLUSTER": "true",
        "REDIS_KEY_PREFIX": prefix,
        "STREAM_LIFETIME": STREAM_LIFETIME,
    }
    instances = [ServiceInstance(directory / f"service{n}.log", env=env) for n in range(2)]
    try:
        for instance in instances:
            instance.start()
        yield instances
    finally:
        for instance in instances:
            instance.stop()
        delete_prefixed(redis_cluster_url, prefix, cluster=True)


def test_games_on_a_cluster_are_played_and_retried_across_instances(
    on_cluster: list[ServiceInstance],
) -> None:
    async def play() -> None:
        first, second = (LeanHttpClient(instance.url) for instance in on_cluster)
        assert (await first.get("/readyz")).json() == {"status": "ready", "store": "redis"}
        games = [await create_game(first) for _ in range(6)]  # spread over the slots
        for game in games:
            for number in range(6):
                await play_one((first, second)[number % 2], game)
            view = await view_of_turn(first, game)
            body = a_legal_action(view)
            original = await act(first, game, view["turn"], body, key="once")
            retried = await act(second, game, view["turn"], body, key="once")
            assert (original.status, retried.status) == (200, 200)
            assert retried.body == original.body
            assert (await seat_view(second, game, None))["version"] == 7
            assert len((await game_log(first, game))["entries"]) == 7
        await first.close()
        await second.close()

    asyncio.run(play())


def test_streams_of_games_in_different_slots_see_actions_from_the_other_instance(
    on_cluster: list[ServiceInstance],
) -> None:
    """One XREAD over streams of several slots is refused by a cluster: the instance reads each
    slot's streams apart."""

    async def stream() -> None:
        first, second = (LeanHttpClient(instance.url) for instance in on_cluster)
        games = [await create_game(second) for _ in range(4)]
        listeners = [
            await listen(f"{on_cluster[0].url}/v1/games/{game.game_id}/events?idle_timeout=3600", 2)
            for game in games
        ]
        for game in games:
            await play_one(second, game)
            await play_one(second, game)
        # Well within the streams' idle timeout: only a notice can have woken them.
        for events in await asyncio.wait_for(asyncio.gather(*listeners), WAIT_SECONDS):
            assert [e.id for e in events if e.event == "action"] == [1, 2]
        await first.close()
        await second.close()

    asyncio.run(stream())
