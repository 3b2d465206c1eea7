"""Tests of ``service.storage``."""
