"""The HTTP layer: a Litestar app over the pure engine."""
