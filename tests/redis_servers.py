"""Real processes for the Redis tests: a single redis-server (optionally append-only, to be
stopped, killed, paused and restarted), a three-master Redis Cluster, ``python -m service``
instances pointed at them, and a lean HTTP client to load them.

Everything binds to 127.0.0.1 on a free port and keeps its files in a directory the caller owns
(a pytest tmp_path), so tests never touch the machine's own Redis or each other's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.waiting import eventually

STARTUP_SECONDS = 60.0
"""How long a server may take to start (or its processes to exit), at most: a bound for a failing
run, far past what a loaded machine takes."""
STOP_SECONDS = 30.0
"""How long a service may take to act on its stop signal before its group is killed."""
LIMITS_OFF: dict[str, str] = {
    "RATE_LIMIT_PER_MINUTE": "0",
    "CREATIONS_PER_DAY": "0",
    "CLAIMS_PER_DAY": "0",
    "INVITATIONS_PER_HOUR": "0",
    "BOT_GAMES_PER_CLIENT": "0",
    "CLOCK_GAMES_PER_CLIENT": "0",
    "IMPORT_BYTES_PER_DAY": "0",
    "ANALYSED_HANDS_PER_MINUTE": "0",
}
"""The environment of an instance with the per-client limits off (they are on by default): for
tests and load tools whose every request comes from one address."""


class RedisServerError(RuntimeError):
    """A redis-server the tests started did not come up (or a cluster did not form)."""


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def free_cluster_port() -> int:
    """A free port for a cluster node: Redis Cluster also listens on port + 10000 (its bus), so
    both must be free and the port at most 55535."""
    while True:
        port = free_port()
        if port > 55535:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


def redis_answers(port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> bool:
    """True if something on host:port answers PING with PONG (a raw RESP exchange, no client)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def redis_server_installed() -> bool:
    return shutil.which("redis-server") is not None and shutil.which("redis-cli") is not None


def redis_cli(port: int, *args: str, timeout: float = STARTUP_SECONDS) -> str:
    done = subprocess.run(
        ["redis-cli", "-h", "127.0.0.1", "-p", str(port), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout


@dataclass
class RedisServer:
    """One redis-server on 127.0.0.1:``port``, its files (log, AOF, cluster conf) in ``directory``.

    ``appendonly`` turns on the append-only file with an fsync on every write, so even a SIGKILL
    loses no acknowledged write.
    """

    directory: Path
    port: int = field(default_factory=free_port)
    appendonly: bool = False
    extra_args: tuple[str, ...] = ()
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log_file(self) -> Path:
        return self.directory / "redis.log"

    def command_line(self) -> list[str]:
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly else []
        return [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.directory),
            "--save",
            "",
            "--appendonly",
            "no",
            *persistence,
            "--logfile",
            str(self.log_file),
            *self.extra_args,
        ]

    def start(self) -> RedisServer:
        if self.process is not None and self.process.poll() is None:
            return self
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            self.command_line(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        process = self.process
        with contextlib.suppress(AssertionError):  # the error below says more
            eventually(
                lambda: process.poll() is not None or self._loaded(),
                f"redis-server on port {self.port} to load or exit",
                seconds=STARTUP_SECONDS,
            )
        if process.poll() is not None or not self._loaded():
            log = self.log_file.read_text() if self.log_file.exists() else "(no log)"
            self.kill()
            raise RedisServerError(f"redis-server on port {self.port} did not start:\n{log}")
        return self

    def stop(self) -> None:
        """A clean shutdown: SIGTERM, which makes Redis flush its AOF before exiting."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """A crash: SIGKILL, nothing flushed that was not already on disk."""
        self._end(signal.SIGKILL)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open but nothing is answered."""
        if self.process is not None:
            self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)

    def _end(self, how: signal.Signals) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a paused server cannot act on SIGTERM
            self.process.send_signal(how)
            try:
                self.process.wait(timeout=STARTUP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def _loaded(self) -> bool:
        """Answers commands and has finished loading its AOF (PING answers LOADING before)."""
        if not redis_answers(self.port):
            return False
        with contextlib.suppress(subprocess.SubprocessError):
            return "loading:0" in redis_cli(self.port, "INFO", "persistence", timeout=2)
        return False


@dataclass
class RedisClusterServers:
    """Three cluster-enabled masters (no replicas) joined by ``redis-cli --cluster create``."""

    directory: Path
    nodes: list[RedisServer] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self, masters: int = 3, *, appendonly: bool = False) -> RedisClusterServers:
        try:
            for index in range(masters):
                node_dir = self.directory / f"node{index}"
                node_dir.mkdir(parents=True, exist_ok=True)
                node = RedisServer(
                    node_dir,
                    port=free_cluster_port(),
                    appendonly=appendonly,
                    extra_args=(
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        str(node_dir / "nodes.conf"),
                        "--cluster-node-timeout",
                        "5000",
                    ),
                )
                self.nodes.append(node.start())
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            create = ["--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"]
            subprocess.run(
                ["redis-cli", *create],
                capture_output=True,
                check=True,
                timeout=STARTUP_SECONDS,
            )
            self._wait_until_ok()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()
        self.nodes.clear()

    def _wait_until_ok(self) -> None:
        eventually(
            lambda: all(
                "cluster_state:ok" in redis_cli(node.port, "CLUSTER", "INFO") for node in self.nodes
            ),
            "the test cluster to reach cluster_state:ok",
            seconds=STARTUP_SECONDS,
        )


SERVICE_COMMAND = (sys.executable, "-m", "service")


@dataclass
class ServiceInstance:
    """One ``python -m service`` process on 127.0.0.1:``port`` with the given environment
    (REDIS_URL and friends); its output goes to ``log_file``."""

    log_file: Path
    env: dict[str, str]
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServiceInstance:
        env = {**os.environ, **self.env, "HOST": "127.0.0.1", "PORT": str(self.port)}
        env.setdefault("LOG_LEVEL", "WARNING")
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        with self.log_file.open("ab") as log:
            # A session of its own: the server's worker processes share its process group,
            # and killing the group kills them all (granian's worker outlives a killed parent).
            self.process = subprocess.Popen(
                SERVICE_COMMAND,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process = self.process
        with contextlib.suppress(AssertionError):  # the error below says more
            eventually(
                lambda: process.poll() is not None or http_ok(f"{self.url}/healthz"),
                f"the service on port {self.port} to answer or exit",
                seconds=STARTUP_SECONDS,
            )
        if process.poll() is not None or not http_ok(f"{self.url}/healthz"):
            self.kill()
            raise RedisServerError(
                f"service on port {self.port} did not start:\n{self.log_file.read_text()}"
            )
        return self

    def stop(self) -> None:
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        self._end(signal.SIGKILL)

    def cpu_seconds(self) -> float:
        """CPU time used so far by the server and its workers (its process group)."""
        return 0.0 if self.process is None else process_group_cpu_seconds(self.process.pid)

    def _end(self, how: signal.Signals) -> None:
        if self.process is None:
            return
        group = self.process.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, how)
        try:
            self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
            self.process.wait()
        # The group's other processes (granian's worker, the bots' and analyses' processes)
        # die on their own time; until the last has, the port may still be held, and an
        # instance restarted on it refuses to start beside it. A group that outlives the bound
        # is left behind as before: only a restart on this port needs it gone, and that fails.
        with contextlib.suppress(AssertionError):
            eventually(
                lambda: not _group_alive(group),
                f"the service's process group {group} to exit",
                seconds=STARTUP_SECONDS,
            )
        self.process = None


def _group_alive(group: int) -> bool:
    """Whether a process of the group is still running (zombies hold no port)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
            if int(fields[2]) == group and fields[0] != "Z":
                return True
    return False


def process_group_cpu_seconds(group: int) -> float:
    """User + system CPU seconds of the live processes in a process group, from /proc."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group:  # fields: state, ppid, pgrp, ... utime at 11, stime 12
                ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def http_ok(url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class LeanHttpClient:
    """A small HTTP/1.1 keep-alive client on asyncio streams, for load: httpx spends several
    milliseconds of CPU per request with many connections open, which on a 2-core machine starves
    the servers being measured. Bodies must carry Content-Length or be chunked (no SSE here)."""

    def __init__(self, base_url: str) -> None:
        address = urllib.parse.urlsplit(base_url)
        self.host = address.hostname or "127.0.0.1"
        self.port = address.port or 80
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> HttpResponse:
        body = b"" if json_body is None else json.dumps(json_body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if json_body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        head += [f"{name}: {value}" for name, value in (headers or {}).items()]
        message = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        reader, writer = (
            self._idle.pop() if self._idle else await asyncio.open_connection(self.host, self.port)
        )
        try:
            writer.write(message)
            response = await _read_response(reader)
        except BaseException:
            writer.close()
            raise
        if response.headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            self._idle.append((reader, writer))
        return response

    async def get(self, path: str, headers: dict[str, str] | None = None) -> HttpResponse:
        return await self.request("GET", path, headers=headers)

    async def post(
        self, path: str, json_body: Any, headers: dict[str, str] | None = None
    ) -> HttpResponse:
        return await self.request("POST", path, json_body=json_body, headers=headers)

    async def close(self) -> None:
        for _, writer in self._idle:
            writer.close()
        self._idle.clear()


async def _read_response(reader: asyncio.StreamReader) -> HttpResponse:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split(" ", 2)[1])
    headers = {}
    for line in head[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
        await reader.readuntil(b"\r\n")
        body = b"".join(chunks)
    else:
        body = await reader.read()
    return HttpResponse(status, headers, body)
