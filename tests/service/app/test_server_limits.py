"""The production server (``python -m service``) under hostile load, as real processes on
loopback: a busy port and a bad WORKERS stop it loudly; idle connections, slow bodies and
a burst on Redis do not take it offline or answer 503.

Speed itself is measured in ``tests/benchmarks/bench_limits.py``; these tests check that the
server keeps answering at all, with generous timeouts."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redis_servers import (
    SERVICE_COMMAND,
    LeanHttpClient,
    RedisServer,
    ServiceInstance,
    redis_server_installed,
)
from tests.waiting import WAIT_SECONDS


def _start_alone(
    env: dict[str, str], timeout: float = WAIT_SECONDS
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m service`` with ``env`` until it exits by itself (it is expected to)."""
    return subprocess.run(
        SERVICE_COMMAND,
        env={**os.environ, "LOG_LEVEL": "WARNING", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def instance(tmp_path: Path) -> Iterator[ServiceInstance]:
    server = ServiceInstance(tmp_path / "service.log", env={"READ_TIMEOUT": "1"}).start()
    yield server
    server.stop()


def test_a_second_instance_on_a_busy_port_refuses_to_start(instance: ServiceInstance) -> None:
    second = _start_alone({"HOST": "127.0.0.1", "PORT": str(instance.port)})
    assert second.returncode == 2, second
    assert f"127.0.0.1:{instance.port} is already in use" in second.stderr


def test_more_than_one_worker_without_redis_is_refused() -> None:
    refused = _start_alone({"WORKERS": "2", "REDIS_URL": ""})
    assert refused.returncode == 2, refused
    assert "WORKERS='2'" in refused.stderr
    assert "REDIS_URL" in refused.stderr


async def _healthz_status(port: int) -> int:
    client = LeanHttpClient(f"http://127.0.0.1:{port}")
    try:
        response = await asyncio.wait_for(client.get("/healthz"), timeout=WAIT_SECONDS)
    finally:
        await client.close()
    return response.status


def test_two_thousand_idle_connections_leave_the_server_answering(
    instance: ServiceInstance,
) -> None:
    """granian's default (1,024 connections served at once) left /healthz unanswered here."""

    async def scenario() -> int:
        idle = [await asyncio.open_connection("127.0.0.1", instance.port) for _ in range(2000)]
        try:  # the probe's connection comes after all of them
            return await _healthz_status(instance.port)
        finally:
            for _, writer in idle:
                writer.close()

    assert asyncio.run(scenario()) == 200


def test_a_slow_body_is_answered_408_after_the_read_timeout(instance: ServiceInstance) -> None:
    async def scenario() -> tuple[bytes, float]:
        reader, writer = await asyncio.open_connection("127.0.0.1", instance.port)
        started = time.monotonic()
        writer.write(
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"players"'
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=WAIT_SECONDS)
        writer.close()
        return head, time.monotonic() - started

    head, waited = asyncio.run(scenario())
    assert head.startswith(b"HTTP/1.1 408"), head
    assert waited < 10  # the instance's READ_TIMEOUT of 1 s, not the default 10 s


@pytest.mark.redis
@pytest.mark.skipif(not redis_server_installed(), reason="needs redis-server")
def test_five_hundred_concurrent_requests_on_redis_answer_no_503(tmp_path: Path) -> None:
    """redis-py's default pool (100 connections) raised MaxConnectionsError past 100 requests
    in flight, answered 503 with Redis healthy; /readyz too."""
    redis = RedisServer(tmp_path / "redis").start()
    server = ServiceInstance(tmp_path / "service.log", env={"REDIS_URL": redis.url}).start()
    body = {"players": [{"name": "a"}, {"name": "b"}]}

    async def one(number: int) -> int:
        client = LeanHttpClient(server.url)
        try:
            if number % 2:
                return (await client.get("/readyz")).status
            return (await client.post("/v1/games", body)).status
        finally:
            await client.close()

    async def burst() -> list[int]:
        return list(await asyncio.gather(*(one(n) for n in range(500))))

    try:
        statuses = asyncio.run(burst())
    finally:
        server.stop()
        redis.stop()
    assert statuses.count(503) == 0
    assert sorted(set(statuses)) == [200, 201]
