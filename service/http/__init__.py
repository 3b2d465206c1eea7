"""The HTTP plumbing every feature shares: the app factory, problems and their map, the wire
bases, body limits, the read timeout, rate limits, client addresses and the handlers'
dependencies.
"""
