"""The two compose files (Docker is not run here): both parse, the cluster one names a cluster
URL hulldown accepts whose startup nodes are services of that file, and the hulldown and proxy
services are the same in both (docs/scaling.md: when to use which)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from hulldown.store.connect import parse_cluster_url

ROOT = Path(__file__).resolve().parents[2]


def load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / name).read_text())
    return loaded


def test_cluster_compose_file_is_consistent_with_the_single_redis_one() -> None:
    single, cluster = load("docker-compose.yml"), load("docker-compose.cluster.yml")
    services = cluster["services"]
    url = services["hulldown"]["environment"]["REDIS_URL"]
    parsed = parse_cluster_url(url)
    assert parsed.nodes and all(host in services and port == 6379 for host, port in parsed.nodes)
    nodes = [name for name in services if name.startswith("redis-") and name != "redis-cluster-init"]
    assert len(nodes) == 6
    for name in nodes:
        command = services[name]["command"]
        assert command[command.index("--cluster-enabled") + 1] == "yes"
        assert command[command.index("--appendonly") + 1] == "yes"
        assert services[name]["volumes"][0].split(":")[0] in cluster["volumes"]
    init = services["redis-cluster-init"]
    assert "--cluster-replicas 1" in init["command"][0]
    assert set(init["depends_on"]) == set(nodes)
    assert services["hulldown"]["depends_on"] == {
        "redis-cluster-init": {"condition": "service_completed_successfully"}
    }
    for key in ("build", "deploy", "healthcheck"):
        assert services["hulldown"][key] == single["services"]["hulldown"][key], key
    assert services["proxy"] == single["services"]["proxy"]
