"""The engine's advice over HTTP: a seat's hint and the stateless ``POST /v1/advise``."""
