"""The service's configuration: every knob read from the environment into one frozen struct."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

import msgspec

from service.settings_env import (
    SettingsError,
    app_keys,
    boolean,
    crash_points,
    integer,
    key_prefix,
    listed,
    networks,
    public_url,
    seconds,
    token,
)

__all__ = [
    "ANALYSIS_BATCH_BYTES_MOST",
    "DEFAULT_REDIS_KEY_PREFIX",
    "LogLevel",
    "Settings",
    "SettingsError",
]

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

DEFAULT_REDIS_KEY_PREFIX = "ttt"
"""The first part of every key the service keeps in Redis (``REDIS_KEY_PREFIX``)."""
ANALYSIS_BATCH_BYTES_MOST = 64 * 1024 * 1024
"""The highest ``ANALYSIS_BATCH_BYTES`` may be set: the batch route's own bound in the framework."""


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the app factory needs. ``Settings.from_env()`` reads the process environment."""

    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str = ""
    """Empty: games live in this process's memory (one instance). Else a redis:// URL."""
    redis_cluster: bool = False
    redis_key_prefix: str = DEFAULT_REDIS_KEY_PREFIX
    """Every key the service keeps in Redis starts with it (the rate limits' with
    ``<prefix>_rate_limit``): deployments, or tests, sharing one Redis apart. No braces (they
    would break the keys' hash tags)."""
    seed_secret: str = ""
    """Mixed into every client seed before it shuffles (``engine.seeds``). Empty: one is made
    on first need and kept in the store, so every instance on it shares it."""
    log_level: LogLevel = "INFO"
    cors_origins: tuple[str, ...] = ()
    """Origins allowed to call the API from a browser; empty turns CORS off."""
    public_url: str = ""
    """The service's public base URL (``https://cards.example``), which the stream URLs a seat
    is handed start with; empty, they are root-relative (``/v1/games/…``), as a browser's
    EventSource resolves them against its page. Never taken from a request's Host."""
    game_ttl: float = 7 * 86400
    """Seconds a game is kept after its last action."""
    idle_game_ttl: float = 6 * 3600
    """Seconds a game or waiting table nobody has acted in is kept (a person's first action or
    seat claim keeps it ``game_ttl`` from then on); at most ``game_ttl``."""
    idempotency_ttl: float = 86400
    """Seconds an Idempotency-Key's first response is kept."""
    max_body_bytes: int = 64 * 1024
    """Larger bodies are refused with 413; the largest real request is a few hundred bytes."""
    event_history: int = 64
    """Notices per game kept by the in-memory channel (a stream catches up from the log anyway)."""
    analysis_processes: int = 1
    """Worker processes for costly analyses (see ``service.workers.pool``), started with the
    first one."""
    analysis_queue: int = 8
    """Costly analyses that may wait for a worker process; one more is refused with 503."""
    analysis_inline_cards: int = 16
    """Hands of at most this many cards (a game deals at most 16) are analysed on the event loop."""
    analysis_inline_wilds: int = 0
    """Larger hands too, if they hold at most this many wilds (jokers and cards of the wild
    rank); the others go to the worker processes."""
    analysis_batch_entries: int = 10_000
    """Analyse requests one ``POST /v1/analyse/batch`` may hold; more is refused with 413."""
    analysis_batch_bytes: int = 4 * 1024 * 1024
    """Bytes one ``POST /v1/analyse/batch`` body may hold (10,000 fourteen-card hands are about
    1 MB, with rules objects 2 to 3 MB); larger is refused with 413."""
    analysed_hands_per_minute: int = 60_000
    """Hands one client address may have analysed a minute, by ``POST /v1/analyse`` (one
    each) and ``POST /v1/analyse/batch`` (one an entry); 0 turns the limit off."""

    workers: int = 1
    """granian worker processes; more than one needs ``redis_url`` (each would hold its games)."""
    redis_pool_size: int = 256
    """Connections to Redis per worker; a request finding them all busy waits for one."""
    redis_pool_timeout: float = 2.0
    """Seconds a request waits for a free Redis connection before it answers 503."""
    backlog: int = 4096
    """Connections the kernel queues before the server accepts them."""
    max_connections: int = 16384
    """Connections a worker serves at once (idle keep-alive ones included); the rest queue."""
    read_timeout: float = 10.0
    """Seconds a client may take to send a request's headers, and again its body (else 408)."""
    max_streams: int = 4096
    """Event streams open at once on a worker; one more is answered 503 with Retry-After."""
    max_streams_per_client: int = 32
    """Event streams open at once from one client address; one more is answered 429."""
    stream_lifetime: float = 60.0
    """An event stream ends after this many seconds at most, times a random factor from 0.5 to 1
    (so that streams opened together do not end together), however busy its game: the client
    reconnects with ``Last-Event-ID``, and a load balancer may send it to another instance, so
    streams spread over the instances again after one restarts."""
    rate_limit_per_minute: int = 1200
    """Requests per minute and client address on every route that costs work (all but a seat's
    actions, the rule presets and the probes): generous, a person's browser makes a few a
    second at most; 0 turns rate limiting off."""
    creations_per_day: int = 2000
    """Games, tables, rematches and score sheets one client address may create a day (a quota
    on what one client holds: a game is kept ``GAME_TTL``); 0 turns the quota off."""
    import_bytes_per_day: int = 64 * 1024 * 1024
    """Bytes of records one client address may send to ``POST /v1/records`` a day, refused or
    kept (each is replayed in a worker process, and a kept one is held ``GAME_TTL``); 0 is
    off."""
    claims_per_day: int = 200
    """Invite codes one client address may try a day (a join by code): 14⁸ codes, 10,000
    tables waiting, so a guesser needs two years for one seat (docs/tables.md); 0 is off."""
    invitations_per_hour: int = 300
    """Challenges and seeks one player may make an hour (counted per key: ``POST
    /v1/challenges`` and ``POST /v1/seeks``), beside the limits per address; 0 is off."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses (or CIDR networks) of the proxies whose X-Forwarded-For names the client."""
    max_games: int = 200_000
    """Memory store only: games kept at most; a create past it answers 503 with Retry-After."""
    max_sheets: int = 200_000
    """Memory store only: score sheets kept at most; a create past it answers 503."""
    max_players: int = 200_000
    """Memory store only: players kept at most (Redis keeps every player); a create past it
    answers 503."""
    sweep_seconds: float = 1.0
    """How often this instance's sweepers look for overdue moves (bots, turn clocks) and for
    rated seeks whose windows have widened: at most this late, past its lease, a move another
    instance left undone is made, and a seek matched."""
    bot_lease_seconds: float = 5.0
    """Seconds an instance holds a game's due move once it has taken it: another instance takes
    the game over only after this, if the move is still not made (the instance died)."""
    bot_processes: int = 2
    """Worker processes the computer players decide in (see ``service.bots.turns``). Two: games
    of bots only then run on one of them, so a person's bot never waits for theirs; and an
    instance left with every game when another dies can use two cores for its bots (at a lower
    priority than its event loop, so they take only what the loop leaves). With one, the
    survivor of each kill in a soak of 1,000 games fell behind by half a minute."""
    bot_queue: int = 64
    """Bot decisions that may wait for a worker process, in each lane (games with a person,
    games of bots only); past that a move is due again at once, for the sweeper's next look."""
    bot_games_per_client: int = 20
    """Games of bots only one client address may have in play on this instance
    (``service.bots.holdings``); 0 turns the bound off."""
    clock_games_per_client: int = 100
    """Games with a clock (a turn clock, a speed game's calls) one client address may have in
    play on this instance, tables waiting for players included (``service.bots.holdings``); 0
    turns the bound off."""
    webhook_allow_http: bool = False
    """Webhook URLs may be ``http://`` (else ``https://`` only): for a receiver on a trusted
    network, and for tests."""
    webhook_allow_private: bool = False
    """Webhooks may call private, loopback, link-local and other non-public addresses (checked
    after DNS resolution, on every delivery): for a deployment whose receivers live inside its
    own network, and for tests against 127.0.0.1. Off, such a URL is refused when it is
    registered (an address written in it) or its delivery fails (a name that resolves there)."""
    webhook_timeout: float = 10.0
    """Seconds a receiver has to answer a delivery (connecting included) before it counts as
    failed and is retried."""
    webhook_concurrency: int = 16
    """Deliveries this instance sends at once; the others wait in the store's queue."""
    webhook_first_retry: float = 5.0
    """Seconds before a failed delivery's first retry; each next wait doubles, up to an hour."""
    webhook_retry_for: float = 86400.0
    """Seconds a delivery is retried from its first try before it is dropped (its reason kept
    in the delivery log)."""
    webhook_poll_seconds: float = 1.0
    """How often this instance looks for deliveries due (a retry, or an event logged on
    another instance); an event logged here is sent at once."""
    ladder_games: int = 0
    """Rated games of the built-in levels among themselves this instance keeps in play (the bot
    ladder, ``service.bots.ladder``); 0, the default, turns it off."""
    ladder_levels: tuple[str, ...] = ("easy", "normal", "hard", "expert")
    """The levels the ladder pairs, two different ones a game."""
    metrics_token: str = ""
    """The bearer token ``GET /metrics`` asks for (``Authorization: Bearer <token>``); empty,
    ``/metrics`` answers anyone, and a public deployment keeps it off the public path."""
    app_keys: tuple[tuple[str, str], ...] = ()
    """The apps this deployment serves (``APP_KEYS=acme=<key>,…``), each its name and its key,
    a secret the operator gives the app's server: a player created with an app's key belongs
    to the app, and the app's webhooks (``/v1/apps/me/webhooks``) get every player's events.
    Empty: no app."""
    crash_points: tuple[tuple[str, float], ...] = ()
    """For fault-injection tests only (``CRASH_POINTS=commit.after=0.05,...``): the points of
    the commit and drive paths where this instance kills itself, each with its chance
    (``service.operations.crash_points``). Empty in production."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        defaults = cls()
        level = env.get("LOG_LEVEL", defaults.log_level).strip().upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise SettingsError("LOG_LEVEL", level, "DEBUG, INFO, WARNING, ERROR or CRITICAL")
        origins = listed(env, "CORS_ORIGINS")
        redis_url = env.get("REDIS_URL", "").strip()
        workers = integer(env, "WORKERS", defaults.workers, low=1, high=256)
        if workers > 1 and not redis_url:
            raise SettingsError(
                "WORKERS",
                str(workers),
                "1 without REDIS_URL (each worker process would hold its own games, and "
                "requests would find them or not at random)",
            )
        return cls(
            host=env.get("HOST", defaults.host).strip() or defaults.host,
            port=integer(env, "PORT", defaults.port, low=1, high=65535),
            redis_url=redis_url,
            redis_cluster=boolean(env, "REDIS_CLUSTER", defaults.redis_cluster),
            redis_key_prefix=key_prefix(env, "REDIS_KEY_PREFIX", defaults.redis_key_prefix),
            seed_secret=env.get("SEED_SECRET", "").strip(),
            log_level=level,  # type: ignore[arg-type]  # checked against LogLevel just above
            cors_origins=origins,
            public_url=public_url(env, "PUBLIC_URL"),
            game_ttl=seconds(env, "GAME_TTL", defaults.game_ttl),
            idle_game_ttl=seconds(env, "IDLE_GAME_TTL", defaults.idle_game_ttl),
            idempotency_ttl=seconds(env, "IDEMPOTENCY_TTL", defaults.idempotency_ttl),
            max_body_bytes=integer(env, "MAX_BODY_BYTES", defaults.max_body_bytes, low=1024),
            analysis_processes=integer(
                env, "ANALYSIS_PROCESSES", defaults.analysis_processes, low=1, high=64
            ),
            analysis_queue=integer(env, "ANALYSIS_QUEUE", defaults.analysis_queue, low=0),
            analysis_inline_cards=integer(
                env, "ANALYSIS_INLINE_CARDS", defaults.analysis_inline_cards, low=0, high=30
            ),
            analysis_inline_wilds=integer(
                env, "ANALYSIS_INLINE_WILDS", defaults.analysis_inline_wilds, low=0, high=30
            ),
            analysis_batch_entries=integer(
                env, "ANALYSIS_BATCH_ENTRIES", defaults.analysis_batch_entries, low=1
            ),
            analysis_batch_bytes=integer(
                env,
                "ANALYSIS_BATCH_BYTES",
                defaults.analysis_batch_bytes,
                low=1024,
                high=ANALYSIS_BATCH_BYTES_MOST,
            ),
            analysed_hands_per_minute=integer(
                env, "ANALYSED_HANDS_PER_MINUTE", defaults.analysed_hands_per_minute, low=0
            ),
            workers=workers,
            redis_pool_size=integer(env, "REDIS_POOL_SIZE", defaults.redis_pool_size, low=4),
            redis_pool_timeout=seconds(env, "REDIS_POOL_TIMEOUT", defaults.redis_pool_timeout),
            backlog=integer(env, "BACKLOG", defaults.backlog, low=128),
            max_connections=integer(env, "MAX_CONNECTIONS", defaults.max_connections, low=16),
            read_timeout=seconds(env, "READ_TIMEOUT", defaults.read_timeout),
            max_streams=integer(env, "MAX_STREAMS", defaults.max_streams, low=1),
            max_streams_per_client=integer(
                env, "MAX_STREAMS_PER_CLIENT", defaults.max_streams_per_client, low=1
            ),
            stream_lifetime=seconds(env, "STREAM_LIFETIME", defaults.stream_lifetime),
            rate_limit_per_minute=integer(
                env, "RATE_LIMIT_PER_MINUTE", defaults.rate_limit_per_minute, low=0
            ),
            creations_per_day=integer(env, "CREATIONS_PER_DAY", defaults.creations_per_day, low=0),
            claims_per_day=integer(env, "CLAIMS_PER_DAY", defaults.claims_per_day, low=0),
            invitations_per_hour=integer(
                env, "INVITATIONS_PER_HOUR", defaults.invitations_per_hour, low=0
            ),
            import_bytes_per_day=integer(
                env, "IMPORT_BYTES_PER_DAY", defaults.import_bytes_per_day, low=0
            ),
            trusted_proxies=networks(env, "TRUSTED_PROXIES"),
            max_games=integer(env, "MAX_GAMES", defaults.max_games, low=1),
            max_sheets=integer(env, "MAX_SHEETS", defaults.max_sheets, low=1),
            max_players=integer(env, "MAX_PLAYERS", defaults.max_players, low=1),
            sweep_seconds=seconds(env, "SWEEP_SECONDS", defaults.sweep_seconds),
            bot_lease_seconds=seconds(env, "BOT_LEASE_SECONDS", defaults.bot_lease_seconds),
            bot_processes=integer(env, "BOT_PROCESSES", defaults.bot_processes, low=1, high=64),
            bot_queue=integer(env, "BOT_QUEUE", defaults.bot_queue, low=0),
            bot_games_per_client=integer(
                env, "BOT_GAMES_PER_CLIENT", defaults.bot_games_per_client, low=0
            ),
            clock_games_per_client=integer(
                env, "CLOCK_GAMES_PER_CLIENT", defaults.clock_games_per_client, low=0
            ),
            webhook_allow_http=boolean(env, "WEBHOOK_ALLOW_HTTP", defaults.webhook_allow_http),
            webhook_allow_private=boolean(
                env, "WEBHOOK_ALLOW_PRIVATE", defaults.webhook_allow_private
            ),
            webhook_timeout=seconds(env, "WEBHOOK_TIMEOUT", defaults.webhook_timeout),
            webhook_concurrency=integer(
                env, "WEBHOOK_CONCURRENCY", defaults.webhook_concurrency, low=1, high=1024
            ),
            webhook_first_retry=seconds(env, "WEBHOOK_FIRST_RETRY", defaults.webhook_first_retry),
            webhook_retry_for=seconds(env, "WEBHOOK_RETRY_FOR", defaults.webhook_retry_for),
            webhook_poll_seconds=seconds(
                env, "WEBHOOK_POLL_SECONDS", defaults.webhook_poll_seconds
            ),
            ladder_games=integer(env, "LADDER_GAMES", defaults.ladder_games, low=0, high=64),
            ladder_levels=listed(env, "LADDER_LEVELS") or defaults.ladder_levels,
            metrics_token=token(env, "METRICS_TOKEN"),
            app_keys=app_keys(env, "APP_KEYS"),
            crash_points=crash_points(env, "CRASH_POINTS"),
        )
