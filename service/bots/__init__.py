"""Computer players and turn clocks: who moves a seat, the drivers and the sweeper, the moves
due (in memory or Redis) and the worker processes bots decide in.
"""
