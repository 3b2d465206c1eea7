"""The OpenAPI document: the finishing touches on the generated one, and ``python -m
service.openapi``.
"""
