"""What the soak runs the service on: one Redis (or a three-master Redis Cluster) on free ports,
N ``python -m service`` instances on it, the chaos loop that kill -9s and restarts them, and
samples of Redis's memory and the instances' RSS.

The processes are the test suite's (``tests.redis_servers``): each instance runs in a session of
its own, so a kill -9 of its process group takes its granian worker and its bot and analysis
processes with it, as a machine or container dying would.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tests.redis_servers import RedisClusterServers, RedisServer, ServiceInstance, redis_cli

PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


class Store:
    """The Redis the instances share: one server, or a cluster of three masters."""

    def __init__(self, directory: Path, *, cluster: bool) -> None:
        self.cluster = cluster
        self._single = None if cluster else RedisServer(directory / "redis")
        self._nodes = RedisClusterServers(directory / "cluster") if cluster else None

    def start(self) -> Store:
        if self._nodes is not None:
            self._nodes.start()
        elif self._single is not None:
            self._single.start()
        return self

    @property
    def ports(self) -> list[int]:
        if self._nodes is not None:
            return [node.port for node in self._nodes.nodes]
        return [] if self._single is None else [self._single.port]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def env(self) -> dict[str, str]:
        return {"REDIS_URL": self.url, "REDIS_CLUSTER": "true" if self.cluster else "false"}

    def used_memory(self) -> int:
        """Bytes Redis holds (``used_memory``), summed over the nodes."""
        return sum(int(_info(port, "memory")["used_memory"]) for port in self.ports)

    def cpu_seconds(self) -> float:
        return sum(
            float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
            for info in (_info(port, "cpu") for port in self.ports)
        )

    def game_ids(self) -> set[str]:
        """The games Redis holds: the id in each ``…:{g<k>}:<game_id>:game`` key (SCAN, every
        node; the key layout of ``service.storage.redis_keys``)."""
        keys = [
            key
            for port in self.ports
            for key in redis_cli(port, "--scan", "--pattern", "*}:*:game", timeout=120).split()
        ]
        return {key[key.index("}:") + 2 : -len(":game")] for key in keys if "}:" in key}

    def stop(self) -> None:
        if self._nodes is not None:
            self._nodes.stop()
        elif self._single is not None:
            self._single.kill()


def _info(port: int, section: str) -> dict[str, str]:
    lines = redis_cli(port, "INFO", section).splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line and not line.startswith("#"))


@dataclass
class KillWindow:
    """One instance killed (kill -9) and started again: wall-clock times."""

    instance: int
    killed: float
    back: float | None = None
    """When it answered /healthz again; None if it did not come back."""
    grace: float = 0.0

    def covers(self, moment: float) -> bool:
        end = float("inf") if self.back is None else self.back + self.grace
        return self.killed <= moment <= end


class Fleet:
    """The service instances, each on a port of its own that it keeps across restarts."""

    def __init__(self, directory: Path, env: dict[str, str], count: int) -> None:
        self._directory = directory
        self._env = env
        self.instances = [
            ServiceInstance(directory / f"instance-{index}.log", env) for index in range(count)
        ]
        self.restarts = [0] * count
        self._cpu_of_the_dead = [0.0] * count
        self._lock = threading.Lock()

    @property
    def urls(self) -> list[str]:
        return [instance.url for instance in self.instances]

    def start(self) -> Fleet:
        for instance in self.instances:
            instance.start()
        return self

    def kill(self, index: int) -> None:
        """kill -9 the instance's whole process group, as a dying machine would."""
        with self._lock:
            instance = self.instances[index]
            self._cpu_of_the_dead[index] += instance.cpu_seconds()
            instance.kill()

    def restart(self, index: int) -> bool:
        """Start the instance again on its port; False if it did not answer /healthz."""
        with self._lock:
            old = self.instances[index]
            fresh = self.instances[index] = ServiceInstance(old.log_file, self._env, port=old.port)
            self.restarts[index] += 1
        try:
            fresh.start()
        except Exception:  # reported as a kill window that never closed
            return False
        return True

    def rss(self) -> list[int]:
        """Bytes resident per instance: the server and every process of its group."""
        with self._lock:
            return [
                0 if instance.process is None else process_group_rss(instance.process.pid)
                for instance in self.instances
            ]

    def cpu_seconds(self) -> float:
        with self._lock:
            live = sum(instance.cpu_seconds() for instance in self.instances)
            return live + sum(self._cpu_of_the_dead)

    def stop(self) -> None:
        for instance in self.instances:
            instance.stop()


def process_group_rss(group: int) -> int:
    pages = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group:  # state, ppid, pgrp, ... rss at 21
                pages += int(fields[21])
    return pages * PAGE_BYTES


class Chaos(threading.Thread):
    """Every ``period`` seconds, kill -9 the next instance (round robin) and restart it; no
    kill starts after ``until`` (wall clock), when the load stops."""

    def __init__(self, fleet: Fleet, period: float, grace: float, until: float) -> None:
        super().__init__(name="chaos", daemon=True)
        self.fleet = fleet
        self.period = period
        self.grace = grace
        self.until = until
        self.windows: list[KillWindow] = []
        self._halt = threading.Event()

    def run(self) -> None:
        for index in itertools.cycle(range(len(self.fleet.instances))):
            if self._halt.wait(self.period) or time.time() >= self.until:
                return
            window = KillWindow(index, time.time(), grace=self.grace)
            self.windows.append(window)
            self.fleet.kill(index)
            if self.fleet.restart(index):
                window.back = time.time()

    def stop(self) -> None:
        self._halt.set()
        self.join()


@dataclass(frozen=True)
class Sample:
    at: float
    redis_bytes: int
    rss: list[int]


class Sampler(threading.Thread):
    """Redis's memory and each instance's RSS, every ``every`` seconds."""

    def __init__(self, store: Store, fleet: Fleet, every: float = 5.0) -> None:
        super().__init__(name="sampler", daemon=True)
        self.store = store
        self.fleet = fleet
        self.every = every
        self.samples: list[Sample] = []
        self._halt = threading.Event()

    def take(self) -> Sample:
        sample = Sample(time.time(), self.store.used_memory(), self.fleet.rss())
        self.samples.append(sample)
        return sample

    def run(self) -> None:
        while not self._halt.wait(self.every):
            with contextlib.suppress(Exception):  # a sample missed while a node is busy
                self.take()

    def stop(self) -> None:
        self._halt.set()
        self.join()
