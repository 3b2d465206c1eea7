"""Game records: what lichess gives chess games, for Three Thirteen (docs/records.md).

- ``record_of(state)``: a game's record, public while it is played, whole once it is finished;
  ``record_page_of(state, since, limit)`` a page of it, at the page's cost;
- ``print_record`` / ``parse_record`` (``parse_located``): the text notation (``notation``,
  ``parsing``);
  ``record_json`` / ``record_from_json``: the JSON form;
- ``import_record`` (``import_text``, ``import_json``): a record replayed under its rules, or
  ``RecordNotLegal`` naming its first line (or path) that is not legal;
- ``deal_from``: a finished game's deals for a new game (``new_game(deals=...)``);
  ``shuffled_deals`` every round's deal from a seed, ``rotated`` moved some seats on (the tables
  of a duplicate round);
- ``review_game``: every draw and discard of every seat against the hint's exact figures, at
  most ``REVIEW_BUDGET`` analyses (``GameReview.over_budget``, an ``OverBudget``, says where
  a review past its budget stopped);
- ``engine.seeds.mixed_seed``: a client's seed mixed with a deployment secret.
"""

from engine.records.deals import GivenDeals, deal_from, rotated, shuffled_deals
from engine.records.importing import import_json, import_record, import_text
from engine.records.json_form import record_from_json, record_json
from engine.records.notation import MAX_RECORD_BYTES, print_record
from engine.records.parsing import Places, parse_located, parse_record
from engine.records.record import (
    Dealt,
    GameRecord,
    Headers,
    RoundRecord,
    holds_results,
    record_of,
    record_page,
    record_page_of,
)
from engine.records.review import (
    REVIEW_BUDGET,
    Decision,
    GameReview,
    Grade,
    OverBudget,
    RoundTally,
    Tally,
    review_game,
)

__all__ = [
    "MAX_RECORD_BYTES",
    "REVIEW_BUDGET",
    "Dealt",
    "Decision",
    "GameRecord",
    "GameReview",
    "GivenDeals",
    "Grade",
    "Headers",
    "OverBudget",
    "Places",
    "RoundRecord",
    "RoundTally",
    "Tally",
    "deal_from",
    "holds_results",
    "import_json",
    "import_record",
    "import_text",
    "parse_located",
    "parse_record",
    "print_record",
    "record_from_json",
    "record_json",
    "record_of",
    "record_page",
    "record_page_of",
    "review_game",
    "rotated",
    "shuffled_deals",
]
