"""Tests of ``service.app``."""
