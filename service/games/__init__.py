"""Games: creating one, loading it with a seat's token, taking a turn, its views and log, and
the records the store keeps.
"""
