"""Tables for people on separate devices: invite codes, the lobby, claiming and leaving seats,
the rematch, and the indexes that point at waiting tables (in memory or Redis).
"""
