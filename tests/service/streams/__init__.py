"""Tests of ``service.streams``."""
