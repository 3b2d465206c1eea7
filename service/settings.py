"""The service's configuration: every knob read from the environment into one frozen struct."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

import msgspec

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""

    def __init__(self, name: str, value: str, expected: str) -> None:
        self.name = name
        super().__init__(f"{name}={value!r}: expected {expected}")


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the app factory needs. ``Settings.from_env()`` reads the process environment."""

    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str = ""
    """Empty: games live in this process's memory (one instance). Else a redis:// URL."""
    redis_cluster: bool = False
    log_level: LogLevel = "INFO"
    cors_origins: tuple[str, ...] = ()
    """Origins allowed to call the API from a browser; empty turns CORS off."""
    game_ttl: float = 7 * 86400
    """Seconds a game is kept after its last action."""
    idempotency_ttl: float = 86400
    """Seconds an Idempotency-Key's first response is kept."""
    max_body_bytes: int = 64 * 1024
    """Larger bodies are refused with 413; the largest real request is a few hundred bytes."""
    event_history: int = 64
    """Notices per game kept by the in-memory channel (a stream catches up from the log anyway)."""
    analysis_processes: int = 1
    """Worker processes for costly analyses (see ``service.analysis_pool``), started with the
    first one."""
    analysis_queue: int = 8
    """Costly analyses that may wait for a worker process; one more is refused with 503."""
    analysis_inline_cards: int = 16
    """Hands of at most this many cards (a game deals at most 16) are analysed on the event loop."""
    analysis_inline_wilds: int = 0
    """Larger hands too, if they hold at most this many wilds (jokers and cards of the wild
    rank); the others go to the worker processes."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        defaults = cls()
        level = env.get("LOG_LEVEL", defaults.log_level).strip().upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise SettingsError("LOG_LEVEL", level, "DEBUG, INFO, WARNING, ERROR or CRITICAL")
        origins = tuple(o.strip() for o in env.get("CORS_ORIGINS", "").split(",") if o.strip())
        return cls(
            host=env.get("HOST", defaults.host).strip() or defaults.host,
            port=_integer(env, "PORT", defaults.port, low=1, high=65535),
            redis_url=env.get("REDIS_URL", "").strip(),
            redis_cluster=_boolean(env, "REDIS_CLUSTER", defaults.redis_cluster),
            log_level=level,  # type: ignore[arg-type]  # checked against LogLevel just above
            cors_origins=origins,
            game_ttl=_seconds(env, "GAME_TTL", defaults.game_ttl),
            idempotency_ttl=_seconds(env, "IDEMPOTENCY_TTL", defaults.idempotency_ttl),
            max_body_bytes=_integer(env, "MAX_BODY_BYTES", defaults.max_body_bytes, low=1024),
            analysis_processes=_integer(
                env, "ANALYSIS_PROCESSES", defaults.analysis_processes, low=1, high=64
            ),
            analysis_queue=_integer(env, "ANALYSIS_QUEUE", defaults.analysis_queue, low=0),
            analysis_inline_cards=_integer(
                env, "ANALYSIS_INLINE_CARDS", defaults.analysis_inline_cards, low=0, high=30
            ),
            analysis_inline_wilds=_integer(
                env, "ANALYSIS_INLINE_WILDS", defaults.analysis_inline_wilds, low=0, high=30
            ),
        )


def _integer(
    env: Mapping[str, str], name: str, default: int, *, low: int, high: int = 2**31
) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(name, raw, "an integer") from None
    if not low <= value <= high:
        raise SettingsError(name, raw, f"an integer from {low} to {high}")
    return value


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(name, raw, "a number of seconds") from None
    if not value > 0:
        raise SettingsError(name, raw, "a positive number of seconds")
    return value


def _boolean(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None:
        return default
    text = raw.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise SettingsError(name, raw, "true or false")
