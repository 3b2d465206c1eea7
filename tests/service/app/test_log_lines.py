"""Every line the service writes to its log is a JSON object (``service.operations.log_lines``):
granian's own, the app's loggers', the access log's; warnings and tracebacks alike."""

from __future__ import annotations

import json
import logging
import sys
import threading
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.operations.log_lines import JsonLines, capture_python_output
from tests.redis_servers import ServiceInstance, free_port
from tests.waiting import WAIT_SECONDS, eventually


def _logged(log_file: Path) -> list[dict[str, Any]]:
    """Each line of the log, parsed; a line that is not a JSON object fails the test."""
    lines: list[dict[str, Any]] = []
    for line in log_file.read_text(encoding="utf-8").splitlines():
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            pytest.fail(f"a log line that is not JSON: {line!r}")
        assert isinstance(parsed, dict), line
        lines.append(parsed)
    return lines


def _messages(lines: list[dict[str, Any]]) -> str:
    return "\n".join(str(line.get("message")) for line in lines)


def test_every_line_a_real_instance_writes_is_a_json_object(tmp_path: Path) -> None:
    """``python -m service`` at INFO, on a Redis that does not answer (the store warns): granian
    starts and stops it, a CORS preflight is refused (a warning, once a plain-text line), an
    ordinary request and a refused one are answered."""
    log_file = tmp_path / "service.log"
    env = {
        "LOG_LEVEL": "INFO",
        "CORS_ORIGINS": "https://table.example",
        "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
    }
    instance = ServiceInstance(log_file, env=env).start()
    try:
        with httpx.Client(base_url=instance.url, timeout=WAIT_SECONDS) as http:
            refused = http.options(
                "/v1/rules",
                headers={"Origin": "https://other.example", "Access-Control-Request-Method": "GET"},
            )
            assert refused.status_code == 400
            assert http.get("/healthz").status_code == 200
            assert http.get("/readyz").status_code == 503
        eventually(
            lambda: (
                "CORS preflight refused" in _messages(_logged(log_file))
                and "Redis is unavailable" in _messages(_logged(log_file))
            ),
            "the instance to log the refusal and the store's warning",
        )
    finally:
        instance.stop()
    lines = _logged(log_file)
    records = [line for line in lines if "level" in line]
    for record in records:
        assert {"time", "level", "logger", "message"} <= set(record), record
        assert datetime.fromisoformat(record["time"]).utcoffset() is not None, record
    by_logger = {record["logger"]: record for record in records}
    assert {"_granian", "service.http.access_log", "service.storage.redis_connection"} <= set(
        by_logger
    )
    assert by_logger["service.http.access_log"]["level"] == "WARNING"
    assert "Shutting down granian" in _messages(records)
    # The access log's lines keep their own shape: one for each request (the last three after
    # the start's probes of /healthz).
    routes = [line["route"] for line in lines if "route" in line]
    assert routes[-3:] == [None, "/healthz", "/readyz"], routes


def test_a_logged_exception_is_a_field_of_its_one_line() -> None:
    try:
        raise ValueError("no such card: 1H")
    except ValueError:
        record = logging.LogRecord(
            "service.games", logging.ERROR, __file__, 1, "game %s failed", ("g1",), sys.exc_info()
        )
    text = JsonLines().format(record)
    assert "\n" not in text
    line = json.loads(text)
    assert (line["level"], line["logger"], line["message"]) == (
        "ERROR",
        "service.games",
        "game g1 failed",
    )
    assert line["exception"].startswith("Traceback (most recent call last):")
    assert line["exception"].endswith("ValueError: no such card: 1H")


def test_warnings_and_uncaught_exceptions_go_to_the_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What Python would print by itself is a log record, so it is a JSON line too."""
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # put back after the test
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    capture_python_output()
    try:
        with caplog.at_level(logging.WARNING):
            warnings.warn("a deprecated option", UserWarning, stacklevel=1)

            def fail() -> None:
                raise RuntimeError("the thread failed")

            thread = threading.Thread(target=fail, name="failing")
            thread.start()
            thread.join()
    finally:
        logging.captureWarnings(False)
    by_logger = {record.name: record for record in caplog.records}
    assert "a deprecated option" in by_logger["py.warnings"].getMessage()
    uncaught = by_logger["service.uncaught"]
    assert uncaught.getMessage() == "uncaught RuntimeError in thread failing"
    assert uncaught.exc_info is not None
    assert str(uncaught.exc_info[1]) == "the thread failed"
