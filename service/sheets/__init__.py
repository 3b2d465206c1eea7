"""Score sheets for games played with real cards: their routes, wire shapes, scoring, pages and
stores (in memory or Redis).
"""
