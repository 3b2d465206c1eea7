"""Tests of ``service.games``."""
