"""Tests of ``service.health``."""
