"""Ratings and leaderboards (``docs/ratings.md``)."""
