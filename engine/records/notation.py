"""The record as text: ``[Key "value"]`` headers, then a few lines per round and one per action.

The grammar and a worked example are in docs/records.md. ``print_record`` writes a record;
``engine.records.parsing`` reads it back (``parse_record(print_record(r)) == r``).
"""

from __future__ import annotations

import json
from typing import Final

from engine.analysis import Meld
from engine.cards import Card, format_card, format_rank
from engine.game import (
    Action,
    Discard,
    Draw,
    LayOff,
    LogEntry,
    RoundResult,
    wild_rank,
)
from engine.game.actions import CallEnd
from engine.records.record import FORMAT, GameRecord, Headers, RoundRecord
from engine.rules import Rules

GAME: Final = "Three Thirteen"
RULE_PREFIX: Final = "Rules."
MAX_RECORD_BYTES: Final = 2 << 20
"""The longest record read, in UTF-8 bytes, text or JSON. A record takes about 25 bytes an action
as text and 95 as JSON: a game of 1,300 actions (22 rounds, 8 seats) 55 kB of text, one of 7,000
(random play that rarely goes out) 175 kB of text and 660 kB of JSON. A game has no length
limit, so a record longer than this is written but not read."""
HIDDEN: Final = "?"
"""A card the record may not show (a draw from the stock, in a public record)."""
CALL: Final = "call"
"""A speed call's line: ``V. call N draw | S choice | S choice ...``."""
MOVES: Final = " | "
"""Between the choices of a speed call's line."""
TIMEOUT: Final = "timeout"

# -- printing -------------------------------------------------------------------------------------


def print_record(record: GameRecord) -> str:
    """The record in the text notation (docs/records.md), one line each, ending in a newline."""
    lines = _header_lines(record.headers)
    rules = record.headers.rules
    for entry in record.rounds:
        lines.append("")
        lines += _round_lines(entry, rules)
    return "\n".join(lines) + "\n"


def _header(key: str, value: str) -> str:
    return f"[{key} {json.dumps(value, ensure_ascii=False)}]"


def _header_lines(h: Headers) -> list[str]:
    lines = [
        _header("Game", GAME),
        _header("Format", str(FORMAT)),
        _header("Record", h.visibility),
        _header("Status", h.status),
    ]
    if h.created is not None:
        lines.append(_header("Created", h.created))
    if h.finished is not None:
        lines.append(_header("Finished", h.finished))
    for seat, name in enumerate(h.players):
        lines.append(_header(f"Player{seat}", name))
        level = h.bots[seat]
        if level is not None:
            lines.append(_header(f"Bot{seat}", level))
    lines.append(_header("FirstDealer", str(h.first_dealer)))
    spec = h.rules.to_spec()
    lines.append(_header(f"{RULE_PREFIX}preset", spec.pop("preset")))
    lines += [_header(RULE_PREFIX + name, _option_text(value)) for name, value in spec.items()]
    lines.append(_header("Totals", " ".join(map(str, h.totals))))
    if h.winners is not None:
        lines.append(_header("Winners", " ".join(map(str, h.winners))))
    return lines


def _option_text(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return " ".join(map(str, value))
    return str(value)


def _cards(cards: tuple[Card, ...]) -> str:
    return "".join(" " + format_card(c) for c in cards)


def _round_lines(r: RoundRecord, rules: Rules) -> list[str]:
    seats = " ".join(map(str, r.active))
    wild = format_rank(wild_rank(rules, r.round)) if 1 <= r.round <= rules.rounds + 1 else "?"
    lines = [f"round {r.round} deal {r.deal} dealer {r.dealer} seats {seats} ; wild {wild}"]
    if r.dealt is not None:
        lines += [f"hand {seat}{_cards(hand)}" for seat, hand in enumerate(r.dealt.hands)]
    lines.append(f"upcard{_cards(r.upcards or (r.upcard,))}")
    if r.dealt is not None:
        lines.append(f"stock{_cards(r.dealt.stock)}")
        lines += [f"restock{_cards(cards)}" for cards in r.dealt.restocks]
    lines += [entry_text(e) for e in r.actions]
    if r.result is not None:
        lines += _result_lines(r.result)
    return lines


def entry_text(entry: LogEntry) -> str:
    """An action's line: ``12. 0 draw stock 7H``, or a speed call's end with every choice,
    ``12. call 3 draw | 0 draw stock 7H | 1 draw discard pile 0 9C``."""
    action = entry.action
    if type(action) is CallEnd:
        timeout = f" {TIMEOUT}" if action.timed_out else ""
        moves = "".join(f"{MOVES}{m.seat} {action_text(m.action, m.card)}" for m in action.moves)
        return f"{entry.version}. {CALL} {action.number} {action.phase.value}{timeout}{moves}"
    return f"{entry.version}. {entry.seat} {action_text(action, entry.card)}"


def action_text(action: Action, card: Card | None) -> str:
    """An action as the notation writes it: ``draw stock 7H``, ``discard 9H out``."""
    shown = HIDDEN if card is None else format_card(card)
    match action:
        case Draw(source="stock"):
            return f"draw stock {shown}"
        case Draw(pile=None):
            return f"draw discard {shown}"
        case Draw(pile=pile):
            return f"draw discard pile {pile} {shown}"
        case Discard(card=discarded, go_out=go_out, pile=pile):
            onto = "" if pile is None else f" pile {pile}"  # a joker onto another seat's pile
            return f"discard {format_card(discarded)}{onto}" + (" out" if go_out else "")
        case LayOff(card=laid, seat=owner, meld=meld):
            return f"layoff {format_card(laid)} on {owner}.{meld}"
    raise ValueError(f"no notation for {action!r}")


def _result_lines(result: RoundResult) -> list[str]:
    out = "-" if result.out_seat is None else " ".join(map(str, _out_seats(result)))
    flags = (" replayed" if result.replayed else "") + (" tiebreak" if result.tiebreak else "")
    lines = [f"out {out}{flags}"]
    for s in result.results:
        melds = "".join(" " + meld_text(m) for m in s.melds)
        lines.append(f"score {s.seat} {s.points}{melds} deadwood{_cards(s.deadwood)}")
    return lines


def _out_seats(result: RoundResult) -> tuple[int, ...]:
    """Every seat that went out: several may in a speed game's call, the first named first."""
    return result.out_seats or (() if result.out_seat is None else (result.out_seat,))


def meld_text(meld: Meld) -> str:
    """A meld as a score line writes it: ``run(4H 5H JK=6H)``."""
    cards = " ".join(
        format_card(c) + ("" if s is None else "=" + format_card(s))
        for c, s in zip(meld.cards, meld.stands_for, strict=True)
    )
    return f"{meld.kind}({cards})"
