"""Every engine error is answered with its own problem, found by its class (never by its name),
and docs/contract.md documents each one as the service answers it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import engine.errors
from service.http.engine_problems import ENGINE_PROBLEMS
from service.http.problems import EXCEPTION_MAP

CONTRACT = Path(__file__).resolve().parents[3] / "docs" / "contract.md"
ROW = re.compile(r"^\| `(?P<name>\w+)` \| (?P<status>\d{3}) \| `(?P<kind>[a-z-]+)` \|", re.M)


def engine_errors() -> list[type[engine.errors.EngineError]]:
    return [
        cls
        for _, cls in inspect.getmembers(engine.errors, inspect.isclass)
        if issubclass(cls, engine.errors.EngineError) and cls.__module__ == "engine.errors"
    ]


def test_every_engine_error_has_a_row_of_its_own() -> None:
    assert len(engine_errors()) > 20
    assert [c.__name__ for c in engine_errors() if c not in ENGINE_PROBLEMS] == []


def test_each_engine_error_is_answered_with_its_row() -> None:
    for cls in engine_errors():
        problem = ENGINE_PROBLEMS[cls]
        error = cls.__new__(cls, "the reason")  # the detail; each constructor takes its own
        error.field = "card"  # type: ignore[attr-defined]  # what the errors with a field hold
        answer = EXCEPTION_MAP[cls](error)
        assert (answer.status_code, answer.type_) == (
            problem.status,
            f"urn:three-thirteen:problem:{problem.kind}",
        ), cls.__name__
        assert answer.title == problem.title
        assert answer.detail == "the reason"


def test_the_contract_documents_each_engine_error_as_answered() -> None:
    documented = {
        m["name"]: (int(m["status"]), m["kind"]) for m in ROW.finditer(CONTRACT.read_text())
    }
    answered = {cls.__name__: (p.status, p.kind) for cls, p in ENGINE_PROBLEMS.items()}
    assert documented == answered
