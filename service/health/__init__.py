"""What an orchestrator and a scraper call: ``/healthz``, ``/readyz`` and ``/metrics``."""
