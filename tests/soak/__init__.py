"""``make soak`` (``python -m tests.soak``): the service under sustained traffic, instances dying.

Not a test: a harness that runs for minutes and prints a table (docs/operations.md, "Soak").

- ``options``: the command line (games, duration, instances, chaos period, cluster, ...).
- ``servers``: the Redis (or a three-master Redis Cluster) and the ``python -m service``
  instances it starts, the chaos loop that kill -9s and restarts them, memory samples.
- ``locustfile``: the simulated people, run by Locust headless (CSV output): each plays its seat
  against bots and other people over HTTP, some following their event streams, picks an
  instance and fails over to another when it is down, retries with the same Idempotency-Key.
- ``records``: what the people write down (every action attempt and its answer, claims, stalls,
  finished games), read back after the run.
- ``audit``: every game's log checked against its people's records (no lost or doubled action).
- ``report``: the closing table and the targets.
- ``run``: the whole soak, start to finish.
- ``tournament`` (``make tournament-soak``), with ``tournament_replay``: a 16-entrant Swiss on
  two instances, one killed mid-round, its games' records replayed and its standings compared.
"""
