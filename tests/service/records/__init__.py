"""Tests of ``service.records``."""
