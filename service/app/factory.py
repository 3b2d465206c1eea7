"""The app factory: ``create_app(settings)`` builds the service; tests build theirs with it.
``create_served_app()`` is what ``python -m service`` serves."""

from __future__ import annotations

import gc
import time

from litestar import Litestar
from litestar.channels import ChannelsPlugin
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.di import Provide
from litestar.logging import LoggingConfig
from litestar.middleware.base import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import License, Server, Tag
from litestar.plugins.problem_details import ProblemDetailsConfig, ProblemDetailsPlugin
from litestar.plugins.prometheus import PrometheusConfig
from litestar.static_files import create_static_files_router
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]  # no py.typed

from service.advice.routes import AdviceController
from service.analysis.routes import AnalysisController
from service.app.backends import Clock, build_backends
from service.app.document import FinishedJsonRenderPlugin, FinishedSwaggerRenderPlugin
from service.app.services import Services, services_of
from service.bots import holdings
from service.bots import turns as bot_turns
from service.bots.ladder import LadderPlugin
from service.bots.tasks import BotTasks
from service.games.decoded_cache import DecodedGames
from service.games.routes import GamesController
from service.health.routes import OperationsController
from service.http.access_log import AccessLog, access_log_config
from service.http.client_address import TrustedProxies
from service.http.problems import EXCEPTION_MAP, schema_page_not_found_as_problem
from service.http.rate_limits import STORE_NAME, rate_limit_middleware
from service.http.read_timeout import ReadTimeoutMiddleware
from service.http.strict_body import StrictBodyRequest, decode_body_strictly
from service.identity.deps import caller, viewer
from service.operations.log_lines import APP_FORMATTERS, capture_python_output
from service.play.routes import play_routes
from service.players.challenge_routes import ChallengesController, SeeksController
from service.players.routes import BotsController, PlayersController
from service.players.seek_sweeper import SeekSweeperPlugin
from service.ratings.routes import LeaderboardsController, RatingHistoryController
from service.records.routes import RecordsController
from service.settings import Settings
from service.sheets.routes import ScoreSheetsController
from service.streams.limits import StreamSlots
from service.streams.routes import StreamsController
from service.tables.routes import (
    GameCreationController,
    InvitesController,
    SeatsController,
    TablesController,
)
from service.tournaments.routes import TournamentsController
from service.tournaments.runner import TournamentRunnerPlugin
from service.webhooks.deliveries import Courier, CourierPlugin
from service.webhooks.player_events import EventsToWebhooks
from service.webhooks.routes import AppWebhooksController, WebhooksController
from service.workers.pool import WorkerPool

API_VERSION = "1.0.0"
DOCS_ASSETS = "/schema/assets"

_DESCRIPTION = """\
Three Thirteen rummy as a service: create games, take turns, stream events, and analyse any hand
(best melds, least deadwood, every discard ranked). Errors are RFC 9457 problem details.
Seat tokens go in `Authorization: Bearer <token>`; each is shown once, to whoever takes the seat.
"""


def dependencies(state: State) -> dict[str, Provide]:
    """What every handler may receive by naming it as a parameter (``service.http.auth``); a
    feature's own (``acting_seat``, ``sheet_editor``, ``me``) are its controllers'. Each route's
    dependencies form a chain, one a depth (``service.http.auth`` says why).

    ``services`` is read from the app's ``state`` by a function of no parameter: Litestar
    resolves a dependency's parameters on every request (a ``state`` parameter is a new
    ``State`` around the scope's, checked against the parameter's type)."""
    return {
        "services": Provide(services_of(state), sync_to_thread=False),
        "viewer": Provide(viewer),
        "caller": Provide(caller),
    }


def openapi_config() -> OpenAPIConfig:
    asset = f"{DOCS_ASSETS}/{{}}"
    return OpenAPIConfig(
        title="Three Thirteen",
        version=API_VERSION,
        description=_DESCRIPTION,
        servers=[Server(url="/", description="This server")],
        tags=[
            Tag(name="analysis", description="Stateless hand analysis and the rule presets"),
            Tag(name="games", description="Games, turns, events and logs"),
            Tag(name="tables", description="Open seats, invite codes, the lobby, rematches"),
            Tag(name="operations", description="Health, readiness and metrics"),
            Tag(name="scoresheets", description="Score sheets for games played with real cards"),
        ],
        license=License(name="MIT", identifier="MIT"),
        path="/schema",
        render_plugins=[
            FinishedJsonRenderPlugin(path="/openapi.json"),
            FinishedSwaggerRenderPlugin(
                path=["/", "/swagger"],
                js_url=asset.format("swagger-ui-bundle.js"),
                css_url=asset.format("swagger-ui.css"),
                standalone_preset_js_url=asset.format("swagger-ui-standalone-preset.js"),
                favicon=f"<link rel='icon' href='{asset.format('favicon-32x32.png')}'>",
            ),
        ],
        create_examples=False,
    )


def logging_config(settings: Settings) -> LoggingConfig:
    """Every logger as JSON lines on stderr (``service.operations.log_lines``), the access log
    as its own JSON lines (``service.http.access_log``), through Litestar's queue: no write
    blocks the event loop."""
    access = access_log_config(settings.log_level)
    return LoggingConfig(
        root={"level": settings.log_level, "handlers": ["queue_listener"]},
        formatters={**APP_FORMATTERS, **access["formatters"]},
        handlers=access["handlers"],
        loggers=access["loggers"],
        log_exceptions="debug",
    )


def create_app(settings: Settings | None = None, *, clock: Clock = time.monotonic) -> Litestar:
    """The service on ``settings`` (the environment's by default). ``clock`` is what the
    in-memory stores' expiry counts: a test passes one it moves by hand rather than sleep
    while a TTL passes (Redis expires keys on its own clock)."""
    settings = settings or Settings.from_env()
    backends = build_backends(settings, clock=clock)
    channels = ChannelsPlugin(
        backend=backends.channels,
        arbitrary_channels_allowed=True,
        # A slow stream loses old notices, never the events: it catches up from the game's log.
        subscriber_max_backlog=64,
        subscriber_backlog_strategy="dropleft",
    )
    analyses = WorkerPool(processes=settings.analysis_processes, queue=settings.analysis_queue)
    bots = BotTasks(WorkerPool(processes=settings.bot_processes, queue=settings.bot_queue))
    courier = Courier(backends.webhooks, settings)
    services = Services(
        settings=settings,
        store=backends.games,
        store_kind=backends.kind,
        channels=channels,
        decoded=DecodedGames(),
        analyses=analyses,
        streams=StreamSlots(
            per_instance=settings.max_streams, per_client=settings.max_streams_per_client
        ),
        proxies=TrustedProxies(settings.trusted_proxies),
        tables=backends.tables,
        due=backends.due,
        bots=bots,
        sheets=backends.sheets,
        records=backends.records,
        players=EventsToWebhooks(
            backends.players, courier, apps=(app for app, _ in settings.app_keys)
        ),
        open_challenges=backends.open_challenges,
        seeks=backends.seeks,
        ratings=backends.ratings,
        webhooks=courier,
        tournaments=backends.tournaments,
        bot_games=holdings.bot_games(settings.bot_games_per_client),
        clock_games=holdings.clock_games(settings.clock_games_per_client),
    )
    state = State({"services": services})
    prometheus = PrometheusConfig(
        app_name="three_thirteen", prefix="three_thirteen", group_path=True
    )
    docs_assets = create_static_files_router(
        path=DOCS_ASSETS,
        directories=[str(swagger_ui_path)],
        include_in_schema=False,
        name="docs-assets",
    )
    app = Litestar(
        route_handlers=[
            AnalysisController,
            GameCreationController,
            GamesController,
            StreamsController,
            AdviceController,
            InvitesController,
            TablesController,
            SeatsController,
            PlayersController,
            BotsController,
            ChallengesController,
            SeeksController,
            LeaderboardsController,
            RatingHistoryController,
            WebhooksController,
            AppWebhooksController,
            TournamentsController,
            OperationsController,
            ScoreSheetsController,
            RecordsController,
            docs_assets,
            play_routes,
        ],
        state=state,
        dependencies=dependencies(state),
        plugins=[
            ProblemDetailsPlugin(
                ProblemDetailsConfig(
                    enable_for_all_http_exceptions=True,
                    exception_to_problem_detail_map=EXCEPTION_MAP,
                )
            ),
            channels,
            bot_turns.BotDriversPlugin(services),  # after the channels: it stops before them
            LadderPlugin(services),  # after the drivers: it stops dealing before they stop
            CourierPlugin(courier),
            TournamentRunnerPlugin(services),
            SeekSweeperPlugin(services, settings.sweep_seconds),
        ],
        middleware=[
            prometheus.middleware,
            DefineMiddleware(ReadTimeoutMiddleware, timeout=settings.read_timeout),
            *rate_limit_middleware(settings),
        ],
        stores={STORE_NAME: backends.rate_limits},
        before_request=decode_body_strictly,
        after_request=schema_page_not_found_as_problem,
        request_class=StrictBodyRequest,
        cors_config=CORSConfig(
            allow_origins=list(settings.cors_origins),
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
        )
        if settings.cors_origins
        else None,
        openapi_config=openapi_config(),
        logging_config=logging_config(settings),
        request_max_body_size=settings.max_body_bytes,
        on_shutdown=[backends.games.close, analyses.close],
        debug=False,
    )
    # Around everything Litestar does, CORS and unknown paths included: one log line each.
    app.asgi_handler = AccessLog(app.asgi_handler)
    return app


def create_served_app() -> Litestar:
    """The app as the production server runs it (``python -m service``): settings from the
    environment, Python's warnings and uncaught exceptions logged as JSON lines too, and once it
    has started, the collector told to leave what startup built alone.

    The framework, the routes, the OpenAPI document and the engine's tables are some 50,000
    objects that live as long as the process. The cyclic collector would walk them all in each of
    its full collections, which under load come every two seconds or so and stop the event loop
    for about 30 ms each (gen-2 pauses, measured under ``bench_http``); frozen, they are left out
    and a full collection takes about 7 ms. Only the server does this: a process that builds many
    apps (the tests) would keep each one's cycles for good."""
    capture_python_output()
    app = create_app()
    app.on_startup.append(_freeze_startup_heap)  # after every other hook: all startup has built
    return app


def _freeze_startup_heap() -> None:
    gc.collect()  # the garbage of startup goes first, so that none of it is frozen
    gc.freeze()
