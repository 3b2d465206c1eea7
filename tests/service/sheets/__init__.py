"""Tests of ``service.sheets``."""
