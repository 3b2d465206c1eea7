"""The problems of tournaments (each a ``ServiceProblem``: ``service.http.problems`` turns it
into its answer)."""

from __future__ import annotations

from service.http.problems import ServiceProblem


class TournamentNotFound(ServiceProblem):
    status, kind, title = 404, "tournament-not-found", "No such tournament"


class RegistrationClosed(ServiceProblem):
    """The tournament has started, or its entrants were named at its creation."""

    status, kind, title = 409, "registration-closed", "The tournament takes no more changes"


class AlreadyEntered(ServiceProblem):
    status, kind, title = 409, "already-entered", "The player is an entrant already"


class NotEntered(ServiceProblem):
    status, kind, title = 409, "not-entered", "The player is not an entrant"


class TournamentFull(ServiceProblem):
    status, kind, title = 409, "tournament-full", "The tournament has all the entrants it takes"


class TournamentQuotaReached(ServiceProblem):
    status, kind, title = 429, "tournament-quota-reached", "The player has too many tournaments"


class TournamentNotFinished(ServiceProblem):
    status, kind, title = 409, "tournament-not-finished", "The tournament is not finished"
