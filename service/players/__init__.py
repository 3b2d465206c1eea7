"""Players: their keys, profiles and lists of games (``/v1/players``)."""
