"""Tests of ``service.tables``."""
