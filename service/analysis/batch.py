"""``POST /v1/analyse/batch``: many analyse requests in one body, answered as NDJSON, one line an
entry, in their order, written as they are computed.

Each entry is exactly the body of ``POST /v1/analyse``, and its line exactly what that route
answers: the analysis (``AnalyseResponse``), or the problem the route would refuse the entry
with, and the entry's index (``BatchProblem``). A bad entry is a line, never a failed batch;
only a body that is no batch at all (not JSON, not an array, too large, too many entries) is
refused as a whole, before anything is analysed.

**Reading an entry.** The single route's read (``service.http.strict_body.decoded_strictly``)
checks each card code against its pattern, a regular expression a card: a quarter of the
engine's own time for a 14-card hand. So an entry is first read as ``AnalyseRequest`` with its
hand's codes as plain strings (``_LooseRequest``, derived from it: every other bound the same),
and the codes are checked by the vocabulary's parser, which takes exactly the codes the pattern
takes, through its cache. An entry that read refuses in any way is read again by the single
route's read, which takes what that route takes (``1.0`` for a round) and otherwise raises that
route's own problem: the quick read is only ever a shortcut to the same value.

**Where each is analysed.** As the single route does it (``costly.is_costly``): a cheap hand on
the event loop, a costly one in the worker processes. The batch keeps at most ``processes`` of
its jobs in the pool at once (and waits for room rather than be refused), so the pool's queue
stays free for other requests; while they run, the entries after them are analysed on the loop,
and their lines wait, at most ``AHEAD`` of them, to be written in order.

**Streaming.** Lines are written in chunks, one every ``SLICE_SECONDS`` of work (or
``CHUNK_BYTES``), and the event loop is let go between chunks: a batch of 10,000 hands holds
the loop a few milliseconds at a time, never for the whole batch.
"""

from __future__ import annotations

import asyncio
import time
import typing
from collections import deque
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final, TypeAlias

import msgspec
from litestar import Request

import engine
from engine.cards import Card, Rank
from service.analysis.costly import analysed, is_costly
from service.analysis.deps import AnalysisServices
from service.analysis.to_engine import analyse_inputs
from service.analysis.wire import AnalyseRequest
from service.http.body_limits import check_json_limits
from service.http.problems import (
    BatchTooLong,
    BodyBeyondLimits,
    BodyNotJson,
    InvalidField,
    problem_of,
)
from service.http.strict_body import decoded_strictly
from service.operations import metrics
from service.workers.pool import WorkerPool

MEDIA_TYPE: Final = "application/x-ndjson"
SLICE_SECONDS: Final = 0.005
"""The event loop is let go (and the lines so far written) at least this often."""
CHUNK_BYTES: Final = 64 * 1024
"""Lines written at once at most (beyond one line)."""
AHEAD: Final = 1024
"""Lines held back at most behind an entry still in a worker process."""

Entry: TypeAlias = "bytes | msgspec.Raw"
Inputs: TypeAlias = tuple[list[Card], Rank, engine.Rules]

_array: Final = msgspec.json.Decoder(list[msgspec.Raw])
_encoder: Final = msgspec.json.Encoder()


Read: TypeAlias = "tuple[Entry, AnalyseRequest | None]"
"""An entry, and its request as the quick read found it (None: that read refused it)."""


def read_batch(body: bytes, *, ndjson: bool, most: int) -> list[Read]:
    """The batch's entries (the lines of an NDJSON body, blank ones skipped, or the items of a
    JSON array), each read quickly. Refused as a whole: a body that is no array (400 not JSON,
    422 not an array), more than ``most`` entries (413), and, as on every route, a body past
    the limits on nesting or digits (422 naming the limit, the array's level counted)."""
    entries = _split(body, ndjson=ndjson)
    if len(entries) > most:
        raise BatchTooLong(
            f"the batch holds {len(entries)} entries; this service takes at most {most} "
            "(ANALYSIS_BATCH_ENTRIES)"
        )
    reads = [(entry, _read_quickly(entry)) for entry in entries]
    for entry, quick in reads:
        if quick is None:  # a quick read bounds nesting and numbers: only these may pass them
            _check_limits(entry, body, ndjson=ndjson)
    return reads


def _split(body: bytes, *, ndjson: bool) -> Sequence[Entry]:
    if ndjson:
        return [line for line in body.split(b"\n") if line.strip()]
    try:
        entries: Sequence[Entry] = _array.decode(body)
    except RecursionError:  # msgspec's own bound on the nesting it splits, far past the limit
        check_json_limits(body)
        raise  # pragma: no cover - nested that deep, the check refuses it
    except msgspec.ValidationError:
        check_json_limits(body)
        raise InvalidField(
            "$: the body is a JSON array of analyse requests (or NDJSON, one a line, with "
            f"Content-Type: {MEDIA_TYPE})",
            field="$",
        ) from None
    except msgspec.DecodeError as exc:
        check_json_limits(body)
        raise BodyNotJson(f"the body is not JSON: {exc}") from None
    return entries


def _check_limits(entry: Entry, body: bytes, *, ndjson: bool) -> None:
    """Refuse the body (422) if ``entry`` passes the limits on nesting or digits: an NDJSON
    line as a body of its own, an array's item with the array's level."""
    if ndjson:
        check_json_limits(bytes(entry))
        return
    try:
        check_json_limits(b"[" + bytes(entry) + b"]")
    except BodyBeyondLimits:
        check_json_limits(body)  # the body's own figures in the problem
        raise


def _loose_request() -> type[msgspec.Struct]:
    """``AnalyseRequest`` with its hand a list of plain strings, every other field and bound as
    it is (the hand's length too)."""
    fields = []
    for field in msgspec.structs.fields(AnalyseRequest):
        kind = field.type
        if field.name == "hand":
            _, *bounds = typing.get_args(kind)  # Annotated[list[CardCode], Meta(...)]
            kind = typing.Annotated[(list[str], *bounds)]
        fields.append((field.name, kind, field.default))
    return msgspec.defstruct(
        "_LooseRequest", fields, forbid_unknown_fields=True, frozen=True, kw_only=True, gc=False
    )


_loose: Final = msgspec.json.Decoder(_loose_request())


def _read_quickly(entry: Entry) -> AnalyseRequest | None:
    try:
        loose: Any = _loose.decode(entry)
    except msgspec.MsgspecError:
        return None
    return AnalyseRequest(hand=loose.hand, wild=loose.wild, round=loose.round, rules=loose.rules)


def inputs_of(entry: Entry, quick: AnalyseRequest | None) -> Inputs:
    """The hand, wild rank and rules of the entry, as ``POST /v1/analyse`` reads its body, or
    the problem that route answers it."""
    if quick is not None:
        try:
            return analyse_inputs(quick)
        except Exception:  # whatever it is, the single route's read says so (below)
            pass
    return analyse_inputs(decoded_strictly(bytes(entry), AnalyseRequest))


def _line(answer: msgspec.Struct) -> bytes:
    return _encoder.encode(answer) + b"\n"


def _problem_line(index: int, error: Exception, request: Request[Any, Any, Any]) -> bytes:
    """The problem the single route would answer, as a line naming the entry."""
    content = problem_of(error).to_response(request).content
    return _encoder.encode({"index": index, **content}) + b"\n"


async def _in_worker(
    pool: WorkerPool, index: int, inputs: Inputs, request: Request[Any, Any, Any]
) -> bytes:
    try:
        answer = await pool.run(analysed, *inputs)
    except Exception as error:  # a line, like every entry's problem (AnalysesBusy, say)
        return _problem_line(index, error, request)
    metrics.ANALYSES_RUN.inc()
    return _line(answer)


class _Run:
    """One batch on its way: the lines not yet written, in the entries' order (those ready in
    ``chunk``, those behind an entry still in a worker process in ``waiting``), and the batch's
    jobs in the worker processes."""

    def __init__(self, services: AnalysisServices, request: Request[Any, Any, Any]) -> None:
        self.settings, self.pool, self.request = services.settings, services.analyses, request
        self.chunk = bytearray()
        self.waiting: deque[bytes | asyncio.Task[bytes]] = deque()
        self.running: set[asyncio.Task[bytes]] = set()
        self.slice_ends = time.perf_counter() + SLICE_SECONDS
        self.inline = 0

    def answered(self, index: int, read: Read) -> Inputs | None:
        """The entry's line (its analysis, or its problem) added, or a costly one's inputs,
        for a worker process."""
        try:
            hand, wild, rules = inputs_of(*read)
            settings = self.settings
            if is_costly(
                hand, wild, settings.analysis_inline_cards, settings.analysis_inline_wilds
            ):
                return hand, wild, rules
            line = _line(analysed(hand, wild, rules))
            self.inline += 1
        except Exception as error:
            line = _problem_line(index, error, self.request)
        if self.waiting:
            self.waiting.append(line)
        else:
            self.chunk += line
        return None

    async def room_in_pool(self) -> AsyncIterator[bytes]:
        """Once the batch may start a job in the pool (the lines so far written meanwhile)."""
        while len(self.running) >= self.pool.processes or self.pool.room == 0:
            if self.chunk:
                yield self.taken()
            if self.running:
                await asyncio.wait(self.running, return_when=asyncio.FIRST_COMPLETED)
            else:
                await self.pool.room_for(1)
            self.move_ready()

    def started(self, index: int, inputs: Inputs) -> None:
        task = asyncio.create_task(_in_worker(self.pool, index, inputs, self.request))
        self.running.add(task)
        task.add_done_callback(self.running.discard)
        self.waiting.append(task)

    def due(self) -> bool:
        """Whether lines are to be written now: a slice of work is over, the chunk is full, or
        too many lines wait behind a job."""
        return (
            time.perf_counter() >= self.slice_ends
            or len(self.chunk) >= CHUNK_BYTES
            or len(self.waiting) >= AHEAD
        )

    async def written(self) -> AsyncIterator[bytes]:
        """The lines ready, and the event loop let go; past ``AHEAD`` lines held back, once the
        job that holds them is done."""
        self.move_ready()
        if self.chunk:
            yield self.taken()
        held_by = self.held_by()
        if held_by is not None and len(self.waiting) >= AHEAD:
            await asyncio.wait({held_by})
            self.move_ready()
        await asyncio.sleep(0)
        self.slice_ends = time.perf_counter() + SLICE_SECONDS

    async def rest(self) -> AsyncIterator[bytes]:
        """Every line left, in order, each job waited for."""
        self.move_ready()
        while (held_by := self.held_by()) is not None:
            if self.chunk:
                yield self.taken()
            await asyncio.wait({held_by})
            self.move_ready()
        if self.chunk:
            yield self.taken()

    def stopped(self) -> None:
        for task in self.running:  # the client went away: its costly entries are not waited for
            task.cancel()
        metrics.ANALYSES_RUN.inc(self.inline)

    def move_ready(self) -> None:
        """Every line at the head of ``waiting`` that is ready, into the chunk."""
        waiting = self.waiting
        while waiting:
            head = waiting[0]
            if isinstance(head, bytes):
                self.chunk += head
            elif head.done():
                self.chunk += head.result()
            else:
                return
            waiting.popleft()

    def held_by(self) -> asyncio.Task[bytes] | None:
        """The job the lines wait for (once ``move_ready``: one still running), if any."""
        head = self.waiting[0] if self.waiting else None
        return head if isinstance(head, asyncio.Task) else None

    def taken(self) -> bytes:
        chunk = bytes(self.chunk)
        self.chunk.clear()
        return chunk


async def lines(
    services: AnalysisServices, entries: Sequence[Read], request: Request[Any, Any, Any]
) -> AsyncIterator[bytes]:
    """The batch's answer, in chunks of whole lines (see the module's docstring)."""
    run = _Run(services, request)
    try:
        for index, entry in enumerate(entries):
            inputs = run.answered(index, entry)
            if inputs is not None:
                async for chunk in run.room_in_pool():
                    yield chunk
                run.started(index, inputs)
            if run.due():
                async for chunk in run.written():
                    yield chunk
        async for chunk in run.rest():
            yield chunk
    finally:
        run.stopped()
