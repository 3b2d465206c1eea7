"""A score sheet as a spreadsheet (CSV) and as a page to print (HTML with an inline SVG chart).

Both are made from the sheet's wire form, so they show exactly what ``GET`` answers. The page is
self-contained: one document with its style inline, no script, no image, font or link to fetch,
so it prints offline the same anywhere. It is laid out within the part of the page that A4 and
US Letter share (186 by 255 mm inside 12 mm margins); ``paper`` sets the ``@page`` size the
browser's print dialog starts with. A round not yet entered prints with its wild rank and dealer
and empty score cells, to be filled in by pencil.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from html import escape
from typing import Final, Literal

from service.sheets.wire import ScoreSheet, SheetRoundOut

Paper = Literal["a4", "letter"]
_Scale = Callable[[float], float]

_NOT_PLAYED: Final = "&ndash;"
COMPACT_AFTER_ROUNDS: Final = 13
"""A schedule longer than the usual 11 to 13 rounds prints in compact rows, so the chart still
fits on the page."""
NAME_WIDTH: Final = 14
"""Characters of a player's name a column heading shows."""
"""A seat that did not play the round (the tie-break round's untied seats)."""
_FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")
# Line styles that stay apart in black and white: a colour, a dash pattern and a marker each.
_STROKES: Final = (
    ("#1f4e9c", "", "circle"),
    ("#b3261e", "6 3", "square"),
    ("#1b7a3a", "2 2", "diamond"),
    ("#7a4b00", "8 3 2 3", "triangle"),
    ("#5b2a86", "1 3", "circle"),
    ("#00696f", "10 4", "square"),
    ("#8a1c5c", "4 2 1 2", "diamond"),
    ("#3d3d3d", "", "triangle"),
)


# -- CSV ------------------------------------------------------------------------------------------


def sheet_csv(sheet: ScoreSheet) -> str:
    """One row per round played (a replayed deal too, noted), one column per player, then the
    totals. Names are kept from being read as spreadsheet formulas."""
    names = [_cell_text(p.name) for p in sheet.players]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["round", "cards_dealt", "wild", "dealer", "out", *names, "note"])
    for r in sheet.rounds:
        for replay in r.replayed:
            points = {e.seat: e.points for e in replay.entries}
            writer.writerow(
                [
                    *_round_cells(sheet, r, replay.out_seat),
                    *(points.get(p.seat, "") for p in sheet.players),
                    "replayed: double naughts",
                ]
            )
        points = {e.seat: e.points for e in r.entries or ()}
        note = "tie-break" if r.tiebreak else ("" if r.entered else "not entered")
        writer.writerow(
            [
                *_round_cells(sheet, r, r.out_seat),
                *(points.get(p.seat, "") for p in sheet.players),
                note,
            ]
        )
    winners = ", ".join(names[s] for s in sheet.winners or ())
    writer.writerow(
        ["total", "", "", "", "", *sheet.totals, f"winners: {winners}" if winners else ""]
    )
    return out.getvalue()


def _round_cells(sheet: ScoreSheet, r: SheetRoundOut, out_seat: int | None) -> list[str | int]:
    out = "" if out_seat is None else _cell_text(sheet.players[out_seat].name)
    return [r.round, r.cards_dealt, r.wild, _cell_text(sheet.players[r.dealer].name), out]


def _cell_text(text: str) -> str:
    """A name that a spreadsheet would run as a formula, quoted to stay text."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


# -- the printable page ---------------------------------------------------------------------------

_STYLE: Final = """
@page { size: %(size)s portrait; margin: 12mm; }
* { box-sizing: border-box; }
html { font: 10pt/1.3 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #111; }
body { margin: 0 auto; max-width: 186mm; }
h1 { font-size: 16pt; margin: 0 0 1mm; }
p.meta { margin: 0 0 1.5mm; color: #444; font-size: 8.5pt; }
table { width: 100%%; border-collapse: collapse; table-layout: fixed; margin-bottom: 4mm; }
th, td { border: 0.3mm solid #888; padding: 0.6mm 1mm; text-align: center; }
thead th { background: #e8e8e8; font-size: 8.5pt; }
th.round, td.round { width: 12mm; }
th.shape, td.shape { width: 11mm; }
th.person, td.person { width: 18mm; overflow: hidden; white-space: nowrap;
  text-overflow: ellipsis; }
td.score { font-size: 10pt; height: 7mm; }
td small { display: block; color: #666; font-size: 7pt; font-weight: normal; }
td.round small { font-size: 6pt; }
td.score.out { font-weight: bold; }
tr.replayed td { color: #777; font-style: italic; }
tr.tiebreak td { background: #f6f1e0; }
tfoot td { font-weight: bold; background: #f0f0f0; font-size: 11pt; }
td.winner { text-decoration: underline; }
figure { margin: 0; break-inside: avoid; }
figcaption { font-size: 8.5pt; color: #444; margin-bottom: 1mm; }
svg { width: 100%%; height: auto; }
body.long td { padding: 0.2mm 1mm; }
body.long td.score { height: 5mm; font-size: 9pt; }
body.long td.score small { display: inline; margin-left: 1.2mm; }
body.long svg { max-height: 78mm; }
@media screen { body { padding: 8mm; } }
"""


def sheet_page(sheet: ScoreSheet, paper: Paper = "a4") -> str:
    """The whole HTML document."""
    names = [p.name for p in sheet.players]
    return "".join(
        [
            "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
            f"<title>Score sheet: {escape(' · '.join(names))}</title>",
            "<style>",
            _STYLE % {"size": "A4" if paper == "a4" else "letter"},
            "</style></head>",
            # More rounds than the usual 11 to 13: a compact table, so the chart still fits.
            "<body class='long'>" if len(sheet.rounds) > COMPACT_AFTER_ROUNDS else "<body>",
            "<h1>Three Thirteen score sheet</h1>",
            f"<p class='meta'>{escape(_summary(sheet))}</p>",
            "<p class='meta'>Each score has the running total under it; the seat that went out "
            "is in bold. A double naught (every hand melded) is dealt again and counts for "
            "nothing.</p>",
            _table(sheet),
            "<figure>",
            "<figcaption>Running totals after each round (lower is better)</figcaption>",
            running_totals_svg(sheet),
            "</figure>",
            f"<p class='meta'>Sheet {escape(sheet.sheet_id)}, version {sheet.version}.</p>",
            "</body></html>\n",
        ]
    )


def _summary(sheet: ScoreSheet) -> str:
    rules = sheet.rules
    bonus = rules.going_out_bonus
    parts = [
        f"Rules: {rules.preset}",
        f"{len(sheet.rounds)} rounds ({rules.schedule} schedule)",
        f"going out {'minus the wild' if bonus == 'minus_wild' else bonus}",
    ]
    if rules.doubled_late_rounds:
        parts.append("J Q K rounds doubled")
    if rules.double_naughts:
        parts.append("double naughts replayed")
    if sheet.status == "finished":
        won = ", ".join(sheet.players[s].name for s in sheet.winners or ())
        parts.append(f"finished: {won} won")
    else:
        parts.append(f"next: round {sheet.next_round}")
    return " · ".join(parts)


def _table(sheet: ScoreSheet) -> str:
    players = sheet.players
    head = "".join(f"<th class='person'>{escape(p.name)}</th>" for p in players)
    rows: list[str] = []
    for r in sheet.rounds:
        for replay in r.replayed:
            points = {e.seat: e.points for e in replay.entries}
            cells = "".join(
                f"<td class='score'>{points.get(p.seat, _NOT_PLAYED)}</td>" for p in players
            )
            note = "<small>replayed</small>"
            rows.append(f"<tr class='replayed'>{_shape_cells(sheet, r, note)}{cells}</tr>")
        rows.append(_round_row(sheet, r))
    winners = set(sheet.winners or ())
    totals = "".join(
        f"<td class='{'winner' if seat in winners else ''}'>{total}</td>"
        for seat, total in enumerate(sheet.totals)
    )
    return (
        "<table><thead><tr><th class='round'>Round</th><th class='shape'>Dealt</th>"
        "<th class='shape'>Wild</th><th class='person'>Dealer</th>"
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
        f"<tfoot><tr><td colspan='4'>Total</td>{totals}</tr></tfoot></table>"
    )


def _shape_cells(sheet: ScoreSheet, r: SheetRoundOut, note: str = "") -> str:
    label = f"{r.round}{'<small>tie-break</small>' if r.tiebreak else ''}{note}"
    dealer = escape(sheet.players[r.dealer].name)
    return (
        f"<td class='round'>{label}</td><td class='shape'>{r.cards_dealt}</td>"
        f"<td class='shape'>{_wild_text(r.wild)}</td><td class='person'>{dealer}</td>"
    )


def _round_row(sheet: ScoreSheet, r: SheetRoundOut) -> str:
    points = {e.seat: e.points for e in r.entries or ()}
    cells = []
    for p in sheet.players:
        if p.seat not in r.seats:
            cells.append(f"<td class='score'>{_NOT_PLAYED}</td>")
            continue
        if p.seat not in points:
            cells.append("<td class='score'></td>")
            continue
        out = " out" if p.seat == r.out_seat else ""
        running = "" if r.totals is None else f"<small>{r.totals[p.seat]}</small>"
        cells.append(f"<td class='score{out}'>{points[p.seat]}{running}</td>")
    kind = " class='tiebreak'" if r.tiebreak else ""
    return f"<tr{kind}>{_shape_cells(sheet, r)}{''.join(cells)}</tr>"


def _wild_text(rank: str) -> str:
    return {"T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"}.get(rank, rank)


# -- the chart ------------------------------------------------------------------------------------

_WIDTH: Final = 700
_HEIGHT: Final = 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 120, 12, 30


def running_totals_svg(sheet: ScoreSheet) -> str:
    """A line per player through its running total after each entered round (from 0 before
    round 1), over every round of the schedule; the names at the right, each in its line's
    style."""
    regular = [r for r in sheet.rounds if not r.tiebreak]
    series = [[0] + [r.totals[p.seat] for r in regular if r.totals] for p in sheet.players]
    values = [v for line in series for v in line]
    low, high = min(values), max(values)
    if high == low:
        high = low + 10
    step = _nice_step((high - low) / 5)
    low = step * (low // step)
    high = step * -(-high // step)
    plot_w = _WIDTH - _LEFT - _RIGHT
    plot_h = _HEIGHT - _TOP - _BOTTOM

    def x(i: float) -> float:
        return _LEFT + plot_w * i / max(1, len(regular))

    def y(v: float) -> float:
        return _TOP + plot_h * (high - v) / (high - low)

    parts = [
        f"<svg viewBox='0 0 {_WIDTH} {_HEIGHT}' role='img' "
        "aria-label='Running totals after each round'>",
        f"<rect x='{_LEFT}' y='{_TOP}' width='{plot_w}' height='{plot_h}' fill='none' "
        "stroke='#999' stroke-width='0.8'/>",
    ]
    for tick in range(int(low), int(high) + 1, int(step)):
        parts.append(
            f"<line x1='{_LEFT}' x2='{_LEFT + plot_w}' y1='{y(tick):.1f}' y2='{y(tick):.1f}' "
            "stroke='#ddd' stroke-width='0.6'/>"
            f"<text x='{_LEFT - 4}' y='{y(tick) + 3:.1f}' font-size='10' "
            f"text-anchor='end' fill='#444'>{tick}</text>"
        )
    for i in range(len(regular) + 1):
        parts.append(
            f"<text x='{x(i):.1f}' y='{_HEIGHT - _BOTTOM + 14}' font-size='10' "
            f"text-anchor='middle' fill='#444'>{i}</text>"
        )
    parts.append(
        f"<text x='{_LEFT + plot_w / 2:.1f}' y='{_HEIGHT - 4}' font-size='10' "
        "text-anchor='middle' fill='#444'>round</text>"
    )
    for seat, line in enumerate(series):
        parts.append(_line(sheet.players[seat].name, seat, line, x, y))
    parts.append("</svg>")
    return "".join(parts)


def _line(name: str, seat: int, line: Sequence[int], x: _Scale, y: _Scale) -> str:
    colour, dash, marker = _STROKES[seat % len(_STROKES)]
    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(line))
    dashes = f" stroke-dasharray='{dash}'" if dash else ""
    marks = "".join(_marker(marker, x(i), y(v), colour) for i, v in enumerate(line))
    label_y = _TOP + 12 + 14 * seat  # the names stacked in seat order beside the plot
    return (
        f"<g class='player'><polyline points='{points}' fill='none' stroke='{colour}' "
        f"stroke-width='1.8'{dashes}/>{marks}"
        f"<line x1='{_WIDTH - _RIGHT + 8}' x2='{_WIDTH - _RIGHT + 26}' y1='{label_y - 4}' "
        f"y2='{label_y - 4}' stroke='{colour}' stroke-width='1.8'{dashes}/>"
        f"{_marker(marker, _WIDTH - _RIGHT + 17, label_y - 4, colour)}"
        f"<text x='{_WIDTH - _RIGHT + 30}' y='{label_y}' font-size='10' fill='{colour}'>"
        f"{escape(_short(name))} {line[-1]}</text></g>"
    )


def _marker(kind: str, cx: float, cy: float, colour: str) -> str:
    r = 2.6
    if kind == "circle":
        return f"<circle cx='{cx:.1f}' cy='{cy:.1f}' r='{r}' fill='{colour}'/>"
    if kind == "square":
        return (
            f"<rect x='{cx - r:.1f}' y='{cy - r:.1f}' width='{2 * r}' height='{2 * r}' "
            f"fill='{colour}'/>"
        )
    if kind == "diamond":
        pts = f"{cx:.1f},{cy - r - 0.6:.1f} {cx + r + 0.6:.1f},{cy:.1f} "
        pts += f"{cx:.1f},{cy + r + 0.6:.1f} {cx - r - 0.6:.1f},{cy:.1f}"
        return f"<polygon points='{pts}' fill='{colour}'/>"
    pts = f"{cx:.1f},{cy - r - 0.6:.1f} {cx + r + 0.6:.1f},{cy + r:.1f} "
    pts += f"{cx - r - 0.6:.1f},{cy + r:.1f}"
    return f"<polygon points='{pts}' fill='{colour}'/>"


def _short(name: str) -> str:
    return name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"


def _nice_step(raw: float) -> int:
    """A tick step of 1, 2 or 5 times a power of ten, at least ``raw``."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= raw:
                return step * factor
        step *= 10
