"""The words every feature's JSON shares (cards, ranks, seats, names, melds, rules) and their
translation to and from the engine.
"""
