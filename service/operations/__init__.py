"""What the service tells its operators and its crash tests: its own counters (``metrics``,
scraped at ``/metrics``) and the points where a test may kill an instance (``crash_points``)."""
