"""Settings from the environment, and what the app factory builds from them."""

from __future__ import annotations

import gc
import importlib
import weakref

import pytest
from litestar.testing import TestClient

from service.__main__ import APP_FACTORY
from service.app import create_app
from service.settings import Settings, SettingsError
from service.storage.game_store import MemoryStore


def test_defaults_serve_loopback_port_8000_in_memory() -> None:
    settings = Settings.from_env({})
    assert (settings.host, settings.port, settings.redis_url) == ("127.0.0.1", 8000, "")
    assert settings.cors_origins == ()
    assert isinstance(create_app(settings).state["services"].store, MemoryStore)


def test_every_variable_is_read() -> None:
    settings = Settings.from_env(
        {
            "HOST": "0.0.0.0",
            "PORT": "9000",
            "REDIS_URL": "redis://localhost:6379/0",
            "REDIS_CLUSTER": "true",
            "REDIS_KEY_PREFIX": "blue",
            "LOG_LEVEL": "debug",
            "CORS_ORIGINS": "https://a.example, https://b.example",
            "GAME_TTL": "3600",
            "IDLE_GAME_TTL": "600",
            "IDEMPOTENCY_TTL": "60",
            "CRASH_POINTS": "commit.after=0.25, drive.claimed=1",
            "STREAM_LIFETIME": "90",
        }
    )
    assert settings == Settings(
        host="0.0.0.0",
        port=9000,
        redis_url="redis://localhost:6379/0",
        redis_cluster=True,
        redis_key_prefix="blue",
        log_level="DEBUG",
        cors_origins=("https://a.example", "https://b.example"),
        game_ttl=3600.0,
        idle_game_ttl=600.0,
        idempotency_ttl=60.0,
        crash_points=(("commit.after", 0.25), ("drive.claimed", 1.0)),
        stream_lifetime=90.0,
    )


def test_the_analyses_worker_processes_are_configured() -> None:
    settings = Settings.from_env(
        {
            "ANALYSIS_PROCESSES": "3",
            "ANALYSIS_QUEUE": "0",
            "ANALYSIS_INLINE_CARDS": "20",
            "ANALYSIS_INLINE_WILDS": "2",
        }
    )
    assert (settings.analysis_processes, settings.analysis_queue) == (3, 0)
    assert (settings.analysis_inline_cards, settings.analysis_inline_wilds) == (20, 2)
    pool = create_app(settings).state["services"].analyses
    assert (pool.processes, pool.capacity, pool.started) == (3, 3, False)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ANALYSIS_PROCESSES", "0"),
        ("ANALYSIS_QUEUE", "-1"),
        ("ANALYSIS_INLINE_CARDS", "31"),
        ("PORT", "eighty"),
        ("PORT", "70000"),
        ("LOG_LEVEL", "LOUD"),
        ("GAME_TTL", "-5"),
        ("IDEMPOTENCY_TTL", "soon"),
        ("IDLE_GAME_TTL", "0"),
        ("CRASH_POINTS", "commit.after"),
        ("CRASH_POINTS", "commit.after=2"),
        ("CRASH_POINTS", "=0.5"),
        ("REDIS_CLUSTER", "maybe"),
        ("REDIS_KEY_PREFIX", "t{1}"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_the_hardening_variables_are_read() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://localhost:6379/0",
            "WORKERS": "4",
            "REDIS_POOL_SIZE": "64",
            "REDIS_POOL_TIMEOUT": "0.5",
            "BACKLOG": "512",
            "MAX_CONNECTIONS": "5000",
            "READ_TIMEOUT": "3",
            "MAX_STREAMS": "100",
            "MAX_STREAMS_PER_CLIENT": "4",
            "RATE_LIMIT_PER_MINUTE": "120",
            "TRUSTED_PROXIES": "10.0.0.0/8, ::1",
            "MAX_GAMES": "1000",
        }
    )
    assert settings == Settings(
        redis_url="redis://localhost:6379/0",
        workers=4,
        redis_pool_size=64,
        redis_pool_timeout=0.5,
        backlog=512,
        max_connections=5000,
        read_timeout=3.0,
        max_streams=100,
        max_streams_per_client=4,
        rate_limit_per_minute=120,
        trusted_proxies=("10.0.0.0/8", "::1"),
        max_games=1000,
    )


@pytest.mark.parametrize(
    ("env", "name"),
    [
        ({"WORKERS": "2"}, "WORKERS"),
        ({"WORKERS": "0", "REDIS_URL": "redis://r"}, "WORKERS"),
        ({"TRUSTED_PROXIES": "10.0.0.0/8, proxy.example"}, "TRUSTED_PROXIES"),
        ({"RATE_LIMIT_PER_MINUTE": "-1"}, "RATE_LIMIT_PER_MINUTE"),
        ({"READ_TIMEOUT": "0"}, "READ_TIMEOUT"),
    ],
)
def test_a_bad_hardening_value_is_refused(env: dict[str, str], name: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env(env)


def test_the_metrics_token_is_read_and_a_weak_one_refused_without_showing_it() -> None:
    assert Settings.from_env({}).metrics_token == ""
    token = "0123456789abcdef-scraper"
    assert Settings.from_env({"METRICS_TOKEN": f" {token} "}).metrics_token == token
    for weak in ("short-token", "with a space in it, long enough"):
        with pytest.raises(SettingsError, match="METRICS_TOKEN") as refused:
            Settings.from_env({"METRICS_TOKEN": weak})
        assert weak not in str(refused.value)


def test_cors_origins_are_allowed_when_configured() -> None:
    app = create_app(Settings(cors_origins=("https://table.example",)))
    with TestClient(app) as client:
        response = client.options(
            "/v1/rules",
            headers={"Origin": "https://table.example", "Access-Control-Request-Method": "GET"},
        )
        assert response.headers["access-control-allow-origin"] == "https://table.example"


def test_an_unreachable_redis_makes_readyz_a_503_problem() -> None:
    app = create_app(Settings(redis_url="redis://127.0.0.1:1/0"))
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["type"] == "urn:three-thirteen:problem:store-unavailable"
        created = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]})
        assert created.status_code == 503


def test_the_served_app_freezes_what_startup_built_and_not_its_garbage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("REDIS_URL", "REDIS_CLUSTER", "PORT", "HOST"):
        monkeypatch.delenv(name, raising=False)
    module, _, name = APP_FACTORY.partition(":")  # what `python -m service` has granian import
    factory = getattr(importlib.import_module(module), name)

    class Cyclic:
        pass

    garbage = Cyclic()
    garbage.itself = garbage  # type: ignore[attr-defined]  # a cycle: only the collector frees it
    gone = weakref.ref(garbage)
    gc.collect()  # now in the oldest generation, which only a full collection would look at
    del garbage
    assert gc.get_freeze_count() == 0
    try:
        app = factory()
        assert gc.get_freeze_count() == 0  # building the app freezes nothing: starting it does
        with TestClient(app) as client:
            assert gc.get_freeze_count() > 0
            assert gone() is None  # collected before the freeze, not kept for good
            assert client.get("/healthz").status_code == 200
    finally:
        gc.unfreeze()
