"""Tests of ``service.vocabulary``."""
