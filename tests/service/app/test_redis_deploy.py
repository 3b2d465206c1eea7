"""deploy/ agrees with itself and with the app: the probes and health checks name endpoints the
app serves, the selectors select the pods, the configuration is what the settings read, the
nginx configuration is valid nginx, and the Kubernetes manifests build.

(No container runtime or cluster here: the image and the compose file are not run by the tests;
deploy/local-cluster.py, which runs the same topology without containers, is, in
test_redis_local_cluster.py.)
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML comes with litestar, without stubs
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.redis_servers import free_port
from tests.waiting import WAIT_SECONDS

DEPLOY = Path(__file__).parents[3] / "deploy"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def manifests() -> dict[str, dict[str, Any]]:
    """Every Kubernetes object under deploy/k8s, by kind (and name where a kind repeats)."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document and document.get("kind") != "Kustomization":
                found[f"{document['kind']}/{document['metadata']['name']}"] = document
    return found


def served_paths() -> dict[str, int]:
    """The status of GET on the operational endpoints, from the app itself (memory store)."""
    with TestClient(create_app(Settings())) as client:
        return {path: client.get(path).status_code for path in ("/healthz", "/readyz")}


def test_the_deployment_probes_the_apps_health_and_readiness_endpoints() -> None:
    deployment = manifests()["Deployment/three-thirteen"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    env = {item["name"]: item["value"] for item in container["env"]}
    assert ports[container["readinessProbe"]["httpGet"]["port"]] == int(env["PORT"])
    assert served_paths() == {"/healthz": 200, "/readyz": 200}


def test_the_service_hpa_and_pdb_point_at_the_deployments_pods() -> None:
    objects = manifests()
    deployment = objects["Deployment/three-thirteen"]
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    service = objects["Service/three-thirteen"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    container_ports = {
        p["name"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
    }
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= container_ports
    pdb = objects["PodDisruptionBudget/three-thirteen"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    hpa = objects["HorizontalPodAutoscaler/three-thirteen"]
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "three-thirteen",
    }
    assert hpa["spec"]["minReplicas"] > pdb["spec"]["maxUnavailable"]


def test_the_pods_run_as_non_root_and_redis_keeps_an_append_only_file() -> None:
    objects = manifests()
    pod = objects["Deployment/three-thirteen"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    redis = objects["StatefulSet/redis"]["spec"]["template"]["spec"]["containers"][0]
    assert "--appendonly" in redis["args"]
    assert redis["args"][redis["args"].index("--appendonly") + 1] == "yes"


def test_the_configmap_is_what_the_settings_read() -> None:
    data = manifests()["ConfigMap/three-thirteen"]["data"]
    settings = Settings.from_env(data)
    assert settings.redis_url == data["REDIS_URL"]
    assert settings.game_ttl == float(data["GAME_TTL"])
    assert settings.idempotency_ttl == float(data["IDEMPOTENCY_TTL"])
    assert settings.redis_cluster is False


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl (kustomize)")
def test_the_kubernetes_manifests_build_with_kustomize() -> None:
    built = subprocess.run(
        ["kubectl", "kustomize", str(DEPLOY / "k8s")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    kinds = sorted(d["kind"] for d in yaml.safe_load_all(built) if d)
    assert kinds == sorted(
        [
            "Namespace",
            "ConfigMap",
            "Service",
            "Service",
            "StatefulSet",
            "Deployment",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
        ]
    )


def test_compose_runs_three_instances_on_an_append_only_redis_behind_nginx() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    apps = sorted(name for name, service in services.items() if "environment" in service)
    assert apps == ["app1", "app2", "app3"]
    for name in apps:
        assert services[name]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        Settings.from_env(services[name]["environment"])
    command = services["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    upstream = re.findall(r"server (\w+):8000", (DEPLOY / "nginx.conf").read_text())
    assert upstream == apps


_METRICS_OFF = re.compile(
    r"location \^~ /metrics \{+\s*default_type application/problem\+json;\s*return 404 '"
)


def test_metrics_stay_off_the_public_path_and_every_instance_gets_the_metrics_token() -> None:
    """nginx answers /metrics itself, never from an instance (the local cluster's generated
    configuration too); compose hands METRICS_TOKEN to every instance, and the pods read it
    from a Secret when there is one."""
    assert _METRICS_OFF.search((DEPLOY / "nginx.conf").read_text())
    assert _METRICS_OFF.search((DEPLOY / "local-cluster.py").read_text())
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    for name in ("app1", "app2", "app3"):
        assert services[name]["environment"]["METRICS_TOKEN"] == "${METRICS_TOKEN:-}"
    pod = manifests()["Deployment/three-thirteen"]["spec"]["template"]["spec"]
    sources = pod["containers"][0]["envFrom"]
    assert {"secretRef": {"name": "three-thirteen", "optional": True}} in sources


def test_the_image_is_multi_stage_non_root_and_checks_its_health() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)", dockerfile, flags=re.MULTILINE)
    assert len(stages) >= 2
    final_stage = dockerfile.split(f"AS {stages[-1]}")[1]
    user = re.search(r"^USER (\S+)", final_stage, flags=re.MULTILINE)
    assert user is not None
    assert user.group(1).split(":")[0] not in ("0", "root")
    healthcheck = re.search(r"^HEALTHCHECK .*\n(?:.*\n)*?\s+CMD (.*)$", final_stage, re.MULTILINE)
    assert healthcheck is not None
    assert "/healthz" in healthcheck.group(1)
    assert re.search(r'^CMD \["python", "-m", "service"\]$', final_stage, re.MULTILINE)


def test_the_image_compiles_the_modules_that_make_native_compiles() -> None:
    """The same engine group: its name and its modules."""
    makefile = (DEPLOY.parent / "Makefile").read_text()
    dockerfile = (DEPLOY / "Dockerfile").read_text()

    def files(text: str) -> set[Path]:
        """The modules a line names, its patterns expanded."""
        patterns = re.findall(r"[\w/]+(?:/\*)?\.py", text)
        return {path for pattern in patterns for path in DEPLOY.parent.glob(pattern)}

    group = re.search(r"^ENGINE_GROUP := (\S+)$", makefile, re.M)
    engine_modules = re.search(r"^ENGINE_MODULES := (.+)$", makefile, re.M)
    image_group = re.search(
        r"build_native\.py (\S+) \\\n\s+--python-executable \S+ (.+) \\", dockerfile
    )
    assert group is not None
    assert engine_modules is not None
    assert image_group is not None
    assert image_group.group(1) == group.group(1)
    assert files(image_group.group(2)) == files(engine_modules.group(1))
    assert DEPLOY.parent / "engine/analysis/search.py" in files(engine_modules.group(1))


@pytest.mark.skipif(NGINX is None, reason="needs nginx")
def test_the_nginx_configuration_is_valid(tmp_path: Path) -> None:
    """nginx -t on deploy/nginx.conf, with the compose host names and user made local."""
    config = (DEPLOY / "nginx.conf").read_text()
    config = re.sub(r"server app\d:8000", lambda _: f"server 127.0.0.1:{free_port()}", config)
    config = config.replace("user nginx;", "").replace("/tmp/nginx.pid", str(tmp_path / "pid"))
    config = config.replace("listen 8080;", f"listen 127.0.0.1:{free_port()};")
    config = config.replace("http {", f"http {{\n    client_body_temp_path {tmp_path}/body;", 1)
    config = config.replace("http {", f"http {{\n    proxy_temp_path {tmp_path}/proxy;", 1)
    path = tmp_path / "nginx.conf"
    path.write_text(config)
    assert NGINX is not None
    checked = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )
    assert checked.returncode == 0, checked.stderr
