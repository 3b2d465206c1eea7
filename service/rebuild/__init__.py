"""``python -m service.rebuild``: recompute every rating from the rated games' journal
(``service.ratings.rebuild``) on the store the environment's settings choose."""
