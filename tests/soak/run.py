"""The whole soak: servers up, Locust headless for the duration while the chaos loop kills,
then the audit and the table. ``python -m tests.soak --help`` lists the options."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.soak.audit import EXAMPLES, audit
from tests.soak.options import SoakOptions, parse
from tests.soak.records import (
    RECORDS_FILE,
    REQUESTS_FILE,
    GameCreated,
    Record,
    SeatClaimed,
    Stalled,
    read_records,
    read_requests,
)
from tests.soak.report import Run, read_locust_stats, render
from tests.soak.servers import Chaos, Fleet, Sampler, Store

ROOT = Path(__file__).resolve().parents[2]
LOCUSTFILE = Path(__file__).with_name("locustfile.py")
STOP_TIMEOUT = 20
"""Seconds Locust gives the people to finish the request they are sending when time is up."""


def main(argv: list[str] | None = None) -> None:
    options = parse(argv)
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"soak: {options.people:,} people, {options.games:,} games at once, "
        f"{options.duration:.0f} s; logs, CSVs and the report in {workdir}",
        flush=True,
    )
    raise SystemExit(0 if soak(options, workdir) else 1)


def soak(options: SoakOptions, workdir: Path) -> bool:
    """Run the soak and print its report; True if every target was met."""
    with contextlib.ExitStack() as stack:
        store = Store(workdir, cluster=options.cluster)
        stack.callback(store.stop)
        store.start()
        # The people send X-Forwarded-For (an address each): trust it from the load generator.
        env = {**store.env(), "TRUSTED_PROXIES": "127.0.0.1", "LOG_LEVEL": "WARNING"}
        fleet = Fleet(workdir, env, options.instances)
        stack.callback(fleet.stop)
        fleet.start()
        sampler = Sampler(store, fleet)
        sampler.take()
        sampler.start()
        cpu_before = (fleet.cpu_seconds(), store.cpu_seconds())
        started = time.time()
        chaos = Chaos(
            fleet, options.chaos_seconds, options.kill_grace, until=started + options.duration
        )
        if options.chaos_seconds > 0:
            chaos.start()
        print(
            f"soak: {len(fleet.urls)} instances up ({', '.join(fleet.urls)}), Locust running",
            flush=True,
        )
        locust_cpu = run_locust(options, fleet.urls, workdir)
        ended = time.time()
        if options.chaos_seconds > 0:
            chaos.stop()
        sampler.stop()
        sampler.take()
        cpu = {
            "instances": fleet.cpu_seconds() - cpu_before[0],
            "redis": store.cpu_seconds() - cpu_before[1],
            "locust (the people)": locust_cpu,
        }
        if not (workdir / RECORDS_FILE).exists():
            print(f"soak: Locust wrote no records; see {workdir / 'locust.out'}", file=sys.stderr)
            return False
        print("soak: auditing every game's log", flush=True)
        records = read_records(workdir / RECORDS_FILE)
        logs = fetch_logs(fleet.urls, games_of(records))
        # Kept for looking into a finding: the logs audited, and the kill windows.
        (workdir / "logs.json").write_text(json.dumps(logs))
        (workdir / "kills.json").write_text(json.dumps([vars(w) for w in chaos.windows]))
        run = Run(
            options=options,
            started=started,
            ended=ended,
            urls=fleet.urls,
            windows=chaos.windows,
            samples=sampler.samples,
            restarts=fleet.restarts,
            records=records,
            requests=list(read_requests(workdir / REQUESTS_FILE)),
            locust_stats=read_locust_stats(workdir / "locust_stats.csv"),
            audit=audit(records, logs),
            logs=logs,
            cpu=cpu,
            games_in_redis=len(stored := store.game_ids()),
            strangers_held=len(strangers := sorted(stored - set(logs))),
            strangers=describe(fleet.urls, strangers[:EXAMPLES]),
            revived=revive(fleet.urls, still_stuck(records)),
        )
        text, passed = render(run)
        print(text, flush=True)
        (workdir / "report.txt").write_text(text + "\n")
        return passed
    return False  # pragma: no cover  # ExitStack does not swallow exceptions


def run_locust(options: SoakOptions, urls: list[str], workdir: Path) -> float:
    """Run Locust headless until the duration is up (the people, and one probe of /healthz);
    its CPU seconds."""
    config = {"options": options.to_json(), "instances": urls, "out": str(workdir)}
    env = {**os.environ, "SOAK_CONFIG": json.dumps(config), "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless",
        "--users", str(options.people + 1), "--spawn-rate", f"{options.spawn_rate:.2f}",
        "--run-time", f"{round(options.duration)}s", "--stop-timeout", str(STOP_TIMEOUT),
        "--csv", str(workdir / "locust"), "--only-summary", "--loglevel", "WARNING",
        "--logfile", str(workdir / "locust.log"), "--host", urls[0],
        "--exit-code-on-error", "0",
    ]  # fmt: skip
    with (workdir / "locust.out").open("wb") as output:
        process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=output, stderr=output)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def games_of(records: list[Record]) -> list[str]:
    games = {r.game_id for r in records if isinstance(r, GameCreated) and r.game_id}
    games |= {r.game_id for r in records if isinstance(r, SeatClaimed) and r.game_id}
    return sorted(games)


def describe(urls: list[str], games: list[str]) -> dict[str, str]:
    """Who sits at each game (public view): for games Redis holds that no person knows of."""
    found = {}
    for game_id in games:
        try:
            with urllib.request.urlopen(f"{urls[0]}/v1/games/{game_id}", timeout=10) as answer:
                view = json.load(answer)
        except OSError as error:
            found[game_id] = f"unreadable ({error})"
            continue
        names = ", ".join(str(player["name"]) for player in view["players"])
        found[game_id] = f"{view['status']} at v{view['version']}: {names}"
    return found


def still_stuck(records: list[Record]) -> list[str]:
    return sorted({r.game_id for r in records if isinstance(r, Stalled) and r.until is None})


def revive(urls: list[str], games: list[str], seconds: float = 10.0) -> dict[str, tuple[int, int]]:
    """For each game still stuck after the run: its log's version, then one GET of its public
    view (which nudges its bots), and its version again once it moves or ``seconds`` pass."""

    def nudged(game_id: str) -> tuple[str, tuple[int, int]]:
        before = _version(urls, game_id)
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"{urls[0]}/v1/games/{game_id}", timeout=10).close()
        deadline = time.monotonic() + seconds
        after = before
        while after == before and time.monotonic() < deadline:
            time.sleep(0.5)
            after = _version(urls, game_id)
        return game_id, (before, after)

    # Side by side: one at a time, a hundred stuck games took a quarter of an hour.
    with ThreadPoolExecutor(max_workers=16) as pool:
        return dict(pool.map(nudged, games))


def _version(urls: list[str], game_id: str) -> int:
    log = fetch_logs(urls, [game_id])[game_id]
    return -1 if log is None else int(log["version"])


def fetch_logs(urls: list[str], games: list[str]) -> dict[str, dict[str, Any] | None]:
    """Each game's public log, from whichever instance answers (None: none did)."""

    def fetch(numbered: tuple[int, str]) -> tuple[str, dict[str, Any] | None]:
        number, game_id = numbered
        for attempt in range(len(urls) * 2):
            url = urls[(number + attempt) % len(urls)]
            try:
                with urllib.request.urlopen(f"{url}/v1/games/{game_id}/log", timeout=30) as answer:
                    log: dict[str, Any] = json.load(answer)
                    return game_id, log
            except urllib.error.HTTPError as refusal:
                if refusal.code == 404:
                    return game_id, None
            except OSError:
                time.sleep(0.5)
        return game_id, None

    with ThreadPoolExecutor(max_workers=8) as pool:
        return dict(pool.map(fetch, enumerate(games)))
