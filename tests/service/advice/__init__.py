"""Tests of ``service.advice``."""
