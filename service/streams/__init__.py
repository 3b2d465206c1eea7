"""A game's event stream: its route, its keys for browsers, the bounds on open streams and the
Redis channels backend that carries its notices.
"""
