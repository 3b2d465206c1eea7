"""``POST /v1/analyse`` and ``GET /v1/rules``, and the worker processes costly analyses run in."""
