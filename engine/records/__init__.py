"""Game records: what lichess gives chess games, for Three Thirteen.

- ``record_of(state)``: a game's record (public while played, whole once finished);
- ``print_record`` / ``parse_record``: the text notation (docs/records.md);
  ``record_json`` / ``record_from_json``: the JSON form;
- ``import_record``: replays a record under its rules, or names its first illegal line;
- ``deal_from``: a finished game's deals, for a new game (``new_game(deals=...)``);
- ``review``: every decision of every seat against the hint's exact figures;
- ``mixed_seed``: a client's seed mixed with a deployment secret before any shuffle.
"""
