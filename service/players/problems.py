"""The problems of challenges and seeks (each a ``ServiceProblem``: ``service.http.problems``
turns it into its answer)."""

from __future__ import annotations

from service.http.problems import ServiceProblem


class ChallengeNotFound(ServiceProblem):
    status, kind, title = 404, "challenge-not-found", "No such challenge"


class ChallengeClosed(ServiceProblem):
    """Accepted by every seat, declined, canceled or expired: the detail says which."""

    status, kind, title = 409, "challenge-closed", "The challenge can no longer be accepted"


class NotYourChallenge(ServiceProblem):
    """Accepting or declining a challenge to others, canceling someone else's."""

    status, kind, title = 403, "not-your-challenge", "The challenge is not the player's to answer"


class ChallengeQuotaReached(ServiceProblem):
    status, kind, title = 429, "challenge-quota-reached", "The player has too many open challenges"


class SeekNotFound(ServiceProblem):
    status, kind, title = 404, "seek-not-found", "The player has no such seek"


class SeekTaken(ServiceProblem):
    """A seek of the same terms waits already, or the seek to cancel was matched."""

    status, kind, title = 409, "seek-taken", "The seek is matched, or one like it waits"


class SeekQuotaReached(ServiceProblem):
    status, kind, title = 429, "seek-quota-reached", "The player has too many seeks waiting"
