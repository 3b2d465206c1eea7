"""Tests of ``service.analysis``."""
