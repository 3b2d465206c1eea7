"""Shared pytest plugins: fixtures that more than one test directory uses."""

pytest_plugins = ["tests.service.conftest_redis"]
