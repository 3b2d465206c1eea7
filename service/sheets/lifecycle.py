"""A score sheet's life through its store: create, load, enter a round; and its wire form.

The store keeps what was entered (the players, the rules, the first dealer, each round's
entries as given and the edit token's SHA-256), never the scores: a sheet is scored again from
its entries by ``engine.scoresheet.restore`` whenever it is loaded, so what it shows always
follows the engine's scoring. Entering a round is load → check the token → ``enter_round`` →
a compare-and-set commit; when another write got in first, the round is entered again on the
sheet as that write left it (a PUT of one round does not depend on the others'), so neither
write is lost.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

import msgspec
from litestar.di import NamedDependency
from litestar.params import FromPath

from engine import scoresheet
from engine.scoresheet import CardsEntry, Entry, PointsEntry, Sheet
from service.games import records as game_records
from service.http import idempotency
from service.http.auth import AuthorizationHeader, viewer_token
from service.http.idempotency import Retry, SavedAnswer
from service.http.problems import (
    IdempotencyKeyReused,
    MissingEditToken,
    SheetNotFound,
    SheetWriteConflict,
    WrongEditToken,
)
from service.sheets import wire as sheet_wire
from service.sheets.deps import AppSheetServices
from service.sheets.store import SheetExists, SheetStore
from service.sheets.to_engine import entries_from_wire
from service.sheets.to_wire import sheet_to_wire
from service.vocabulary import to_engine

COMMIT_ATTEMPTS: Final = 8
"""Writes that lose the compare-and-set try again on the newer sheet this many times at most."""


class EntryRecord(msgspec.Struct, frozen=True, array_like=True):
    seat: int
    cards: list[int] | None
    """Card ints as entered; None for a points entry."""
    points: int | None
    failed_go_outs: int


class DealRecord(msgspec.Struct, frozen=True, array_like=True):
    round: int
    out_seat: int | None
    entries: list[EntryRecord]


class SheetRecord(msgspec.Struct, frozen=True, array_like=True):
    players: list[str]
    rules: dict[str, Any]
    """``Rules.to_spec()``: every option, so a preset changed later leaves the sheet as it was."""
    first_dealer: int
    token_hash: bytes
    created: float
    deals: list[DealRecord]
    """``Sheet.deals`` as entered, in the order played."""


SHEETS_PATH: Final = "/v1/scoresheets"

_encoder: Final = msgspec.msgpack.Encoder()
_decoder: Final = msgspec.msgpack.Decoder(SheetRecord)


@dataclass(frozen=True, slots=True)
class LoadedSheet:
    sheet_id: str
    version: int
    record: SheetRecord
    sheet: Sheet

    def check_token(self, token: str | None) -> None:
        """401 unless ``token`` is this sheet's edit token (compared in constant time)."""
        if token is None:
            raise MissingEditToken("send the sheet's edit token as 'Authorization: Bearer <token>'")
        if not hmac.compare_digest(game_records.token_hash(token), self.record.token_hash):
            raise WrongEditToken("the token is not this sheet's edit token")

    def to_wire(self) -> sheet_wire.ScoreSheet:
        return sheet_to_wire(self.sheet_id, self.version, self.sheet)


# -- the store ------------------------------------------------------------------------------------


async def create_sheet(
    store: SheetStore, request: sheet_wire.CreateSheetRequest, retry: Retry | None = None
) -> SavedAnswer:
    """A new sheet (201, its edit token in the answer). With an Idempotency-Key its id is the
    key's and its answer is saved with it: a retry is answered again, no second sheet made."""
    if retry is not None:
        saved = await store.recall(idempotency.derived_id(retry), retry.stored_key)
        if saved is not None:
            return retry.replayed(saved)
    rules = to_engine.rules_from_wire(request.rules)
    sheet = scoresheet.new_sheet(request.players, rules, request.first_dealer)
    token = game_records.new_token()
    record = SheetRecord(
        players=list(sheet.players),
        rules=sheet.rules.to_spec(),
        first_dealer=sheet.first_dealer,
        token_hash=game_records.token_hash(token),
        created=game_records.now(),
        deals=[],
    )
    encoded = _encoder.encode(record)
    while True:
        sheet_id = game_records.new_game_id() if retry is None else idempotency.derived_id(retry)
        answer = SavedAnswer(
            b"",
            idempotency.encoded(
                sheet_wire.SheetCreated(
                    sheet_id=sheet_id,
                    edit_token=token,
                    sheet=sheet_to_wire(sheet_id, 0, sheet),
                )
            ),
            201,
            f"{SHEETS_PATH}/{sheet_id}",
        )
        saving = None if retry is None else retry.saved(answer.body, 201, answer.location)
        try:
            await store.create(sheet_id, encoded, idempotency=saving)
            return answer
        except SheetExists:
            if retry is not None:  # the first attempt, racing on another instance, made it
                return retry.replayed(await _saved_answer(store, sheet_id, retry))
            continue  # 96 random bits: practically never, but never overwrite a sheet


async def _saved_answer(store: SheetStore, sheet_id: str, retry: Retry) -> bytes:
    data = await store.recall(sheet_id, retry.stored_key)
    if data is None:  # the answer expired before the sheet did
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used before and its answer is no longer kept: use a new key",
            field="Idempotency-Key",
        )
    return data


async def load_sheet(store: SheetStore, sheet_id: str) -> LoadedSheet:
    stored = await store.load(sheet_id)
    if stored is None:
        raise SheetNotFound(f"no score sheet {sheet_id!r} (it may have expired)")
    record = _decoder.decode(stored.record)
    sheet = scoresheet.restore(
        record.players,
        record.rules,
        record.first_dealer,
        [(d.round, d.out_seat, [_entry_of(e) for e in d.entries]) for d in record.deals],
    )
    return LoadedSheet(sheet_id, stored.version, record, sheet)


class SheetEditor:
    """The sheet of a route that changes it, its edit token checked (Litestar injects it as
    ``sheet_editor``). A plain class: Litestar checks an injected value against its type, and
    msgspec cannot describe a dataclass holding a sheet (it checks only isinstance here)."""

    __slots__ = ("sheet",)

    def __init__(self, sheet: LoadedSheet) -> None:
        self.sheet = sheet


Editor: TypeAlias = NamedDependency[SheetEditor]
"""A handler's ``sheet_editor`` parameter."""


async def sheet_editor(
    services: AppSheetServices, sheet_id: FromPath[str], authorization: AuthorizationHeader = None
) -> SheetEditor:
    """The sheet loaded, 404 if there is none, then 401 unless the request carries its edit
    token (``viewer_token``: the one reader of ``Authorization``)."""
    loaded = await load_sheet(services.sheets, sheet_id)
    loaded.check_token(viewer_token(authorization))
    return SheetEditor(loaded)


async def enter_round(
    store: SheetStore,
    editor: SheetEditor,
    round_number: int,
    request: sheet_wire.EnterRoundRequest,
    retry: Retry | None = None,
) -> bytes:
    """Enter (or correct) one round on the sheet ``editor`` may change; the JSON of the sheet
    as it is after (or of the first answer to this Idempotency-Key). Nothing is written unless
    the whole round is valid."""
    sheet_id = editor.sheet.sheet_id
    entries: list[Entry] | None = None
    loaded: LoadedSheet | None = editor.sheet
    for _ in range(COMMIT_ATTEMPTS):
        if retry is not None:  # the first attempt, or its twin that won the race, is saved
            saved = await store.recall(sheet_id, retry.stored_key)
            if saved is not None:
                return retry.replayed(saved).body
        # The edit token was checked on the first load: a sheet keeps its token for good.
        loaded = loaded or await load_sheet(store, sheet_id)
        entries = entries_from_wire(request.entries) if entries is None else entries
        sheet = scoresheet.enter_round(loaded.sheet, round_number, request.out_seat, entries)
        record = msgspec.structs.replace(loaded.record, deals=_deal_records(sheet))
        answer = idempotency.encoded(sheet_to_wire(sheet_id, loaded.version + 1, sheet))
        saving = None if retry is None else retry.saved(answer)
        if await store.commit(
            sheet_id, loaded.version, _encoder.encode(record), idempotency=saving
        ):
            return answer
        loaded = None  # another write came first: load the sheet as it is now
    raise SheetWriteConflict(
        f"the sheet changed under {COMMIT_ATTEMPTS} attempts to enter round {round_number}; "
        "try again"
    )


def _deal_records(sheet: Sheet) -> list[DealRecord]:
    return [
        DealRecord(d.round, d.out_seat, [_entry_record(e.entry) for e in d.entries])
        for d in sheet.deals
    ]


def _entry_record(entry: Entry) -> EntryRecord:
    if isinstance(entry, CardsEntry):
        return EntryRecord(entry.seat, list(entry.cards), None, entry.failed_go_outs)
    return EntryRecord(entry.seat, None, entry.points, entry.failed_go_outs)


def _entry_of(record: EntryRecord) -> Entry:
    if record.cards is not None:
        return CardsEntry(record.seat, tuple(record.cards), record.failed_go_outs)
    return PointsEntry(record.seat, record.points or 0, record.failed_go_outs)


# -- the wire -------------------------------------------------------------------------------------
