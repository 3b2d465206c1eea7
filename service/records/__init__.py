"""Game records, imported records, reviews and the seed secret (``/v1/games/{id}/record``,
``/v1/records``, ``…/review``)."""
