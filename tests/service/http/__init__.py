"""Tests of ``service.http``."""
