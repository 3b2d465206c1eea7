"""Tests of ``service.workers``."""
