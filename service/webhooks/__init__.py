"""Signed webhooks per player: ``/v1/players/me/webhooks`` (``routes.py``), each of the
player's events queued for its webhooks as it is logged (``player_events.py``), delivered at
least once by each instance's courier (``deliveries.py``, ``sending.py``) from the store's
queue (``store.py``, ``redis_store.py``), to public addresses only (``addresses.py``)."""
