"""Tests of ``service.bots``."""
