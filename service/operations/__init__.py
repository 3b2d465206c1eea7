"""What an orchestrator and a scraper call (``/healthz``, ``/readyz``, ``/metrics``) and the
service's own counters.
"""
