"""The problems of ratings (each a ``ServiceProblem``: ``service.http.problems`` turns it into
its answer)."""

from __future__ import annotations

from service.http.problems import ServiceProblem


class LeaderboardNotFound(ServiceProblem):
    status, kind, title = 404, "leaderboard-not-found", "No leaderboard for that preset"


class NotRanked(ServiceProblem):
    """The player to centre a page on has no rating on that board."""

    status, kind, title = 404, "player-not-ranked", "The player is not on the leaderboard"
