"""Tests of ``service.play``."""
