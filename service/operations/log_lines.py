"""Every line the service writes to its log is one JSON object:
``{"time", "level", "logger", "message"}``, with ``"exception"`` (the traceback) when there is
one and ``"stack"`` when a call asked for it. One formatter, ``JsonLines``, writes them all:

- the app's loggers (the service's modules, Litestar's, the root logger that asyncio's and any
  library's reach), through the app's ``LoggingConfig``: ``APP_FORMATTERS`` names it there as
  Litestar's ``standard`` formatter, the one its handlers use;
- granian's (its server and its Rust core, both the ``_granian`` logger), through the
  ``log_dictconfig`` that ``python -m service`` hands it, and the worker processes' (analyses,
  bots): ``process_logging``;
- what Python itself would print: warnings (``logging.captureWarnings``) and exceptions nothing
  caught, in any thread (``service.uncaught``): ``capture_python_output``.

The access log's lines (``service.http.access_log``) are JSON objects already, of their own
shape, and keep it.
"""

from __future__ import annotations

import logging
import sys
import threading
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final

import msgspec

_ENCODER: Final = msgspec.json.Encoder()
_FORMATTER: Final = {"()": f"{__name__}.JsonLines"}
"""A dictConfig formatter: by name, so that granian can hand its configuration to its worker
processes."""

APP_FORMATTERS: Final = {"standard": _FORMATTER}
"""The app's ``LoggingConfig`` formatters: Litestar's handlers format with ``standard``."""

uncaught = logging.getLogger("service.uncaught")


class JsonLines(logging.Formatter):
    """A log record as one line of JSON (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return _ENCODER.encode(line).decode()


def process_logging(level: str) -> dict[str, Any]:
    """A process's logging outside the app (a dictConfig): granian's loggers and the root
    logger as JSON lines on stderr, where the app writes its own. granian's ``log_dictconfig``
    (it replaces its own formatters, handlers and loggers with these), the configuration of
    ``python -m service`` before granian's, and the worker processes'."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": _FORMATTER},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            name: {"handlers": ["stderr"], "level": level, "propagate": False}
            for name in ("_granian", "granian.access")
        },
        "root": {"handlers": ["stderr"], "level": level},
    }


def capture_python_output() -> None:
    """Send what Python would print on its own to the log: warnings, and the exceptions that
    nothing caught (in the main thread or another)."""
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread


def _log_uncaught(
    kind: type[BaseException], error: BaseException, traceback: TracebackType | None
) -> None:
    uncaught.critical("uncaught %s", kind.__name__, exc_info=(kind, error, traceback))


def _log_uncaught_in_thread(hook: threading.ExceptHookArgs) -> None:
    if hook.exc_type is SystemExit:  # as Python's own hook: a thread's exit is no error
        return
    name = hook.thread.name if hook.thread is not None else "?"
    uncaught.error(
        "uncaught %s in thread %s",
        hook.exc_type.__name__,
        name,
        exc_info=(hook.exc_type, hook.exc_value or hook.exc_type(), hook.exc_traceback),
    )
