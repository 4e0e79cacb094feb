"""Controller flag group (defaults, aliases, validation) and kube_api_client configuration lookup."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import kubernetes.client
import pytest
import urllib3

from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.wiring import kube_api_client

BASE = ["--source=service", "--provider=inmemory", "--policy=sync"]

KUBECONFIG = """
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://kubeconfig.example:6443", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: abc123}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
"""


def test_controller_flag_defaults() -> None:
    _, cfg = load_config(BASE, environ={})
    assert cfg.controller.workers == 2
    assert cfg.controller.events is False
    assert cfg.controller.min_event_sync_interval == 5.0
    assert cfg.leader_election.enabled is False
    assert (cfg.leader_election.lease_duration, cfg.leader_election.renew_deadline, cfg.leader_election.retry_period) == (
        15.0, 10.0, 2.0)
    assert cfg.leader_election.namespace == "default"
    assert cfg.leader_election.name == "external-dns-py"
    assert cfg.controller.metrics_address == ":7979"
    assert cfg.kube.kubeconfig == "" and cfg.kube.server == ""
    assert cfg.kube.request_timeout == 30.0
    assert (cfg.kube.qps, cfg.kube.burst) == (5.0, 10)


def test_request_timeout_alias_and_environment() -> None:
    _, cfg = load_config([*BASE, "--request-timeout=1m"], environ={})
    assert cfg.kube.request_timeout == 60.0
    _, cfg = load_config(BASE, environ={"EXTERNAL_DNS_KUBE_API_QPS": "20", "EXTERNAL_DNS_WORKERS": "4"})
    assert (cfg.kube.qps, cfg.controller.workers) == (20.0, 4)


@pytest.mark.parametrize(("argv", "message"), [
    (["--kube-api-qps=0"], "--kube-api-qps"),
    (["--kube-api-burst=-1"], "--kube-api-burst"),
    (["--workers=0"], "--workers"),
    (["--leader-elect", "--leader-elect-lease-duration=10s", "--leader-elect-renew-deadline=10s"],
     "--leader-elect-lease-duration"),
    (["--leader-elect", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=2s"],
     "--leader-elect-renew-deadline"),
    (["--leader-elect", "--leader-elect-lease-duration=15.5s"], "whole number"),
])
def test_controller_flag_validation(argv: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *argv], environ={})


def test_leader_election_timings_are_only_checked_when_enabled() -> None:
    _, cfg = load_config([*BASE, "--leader-elect-renew-deadline=20s"], environ={})
    assert cfg.leader_election.enabled is False


def test_kube_api_client_from_kubeconfig_and_server_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(KUBECONFIG)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    _, cfg = load_config([*BASE, f"--kubeconfig={path}"], environ={})
    api = kube_api_client(cfg)
    try:
        assert api.configuration.host == "https://kubeconfig.example:6443"
        assert api.configuration.api_key.get("BearerToken") == "Bearer abc123"
    finally:
        api.close()
    _, cfg = load_config([*BASE, f"--kubeconfig={path}", "--server=https://override.example:8443/"], environ={})
    api = kube_api_client(cfg)
    try:
        assert api.configuration.host == "https://override.example:8443"
    finally:
        api.close()


def test_kube_api_client_errors_name_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    _, cfg = load_config(BASE, environ={})
    with pytest.raises(ConfigError, match="--kubeconfig or --server"):
        kube_api_client(cfg)
    broken = tmp_path / "broken"
    broken.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\n")
    _, cfg = load_config([*BASE, f"--kubeconfig={broken}"], environ={})
    with pytest.raises(ConfigError, match="--kubeconfig"):
        kube_api_client(cfg)
    _, cfg = load_config([*BASE, "--server=http://127.0.0.1:1"], environ={})
    api = kube_api_client(cfg)
    try:
        assert api.configuration.host == "http://127.0.0.1:1"
    finally:
        api.close()


@pytest.mark.integration
def test_kube_api_client_talks_to_the_api_and_throttles(kubeconfig_file: str, kubeapi: Any) -> None:
    _, cfg = load_config([*BASE, f"--kubeconfig={kubeconfig_file}", "--kube-api-qps=5", "--kube-api-burst=2"],
                         environ={})
    api = kube_api_client(cfg)
    try:
        core = kubernetes.client.CoreV1Api(api)
        started = time.monotonic()
        for _ in range(5):
            resp = core.read_namespace("default", _preload_content=False)
            assert json.loads(resp.data)["metadata"]["name"] == "default"
        elapsed = time.monotonic() - started
        # burst 2 is free, the next 3 wait 1/5 s each
        assert elapsed >= 0.55, f"5 requests at 5 qps / burst 2 took only {elapsed:.2f}s"
    finally:
        api.close()
    gets = [r for r in kubeapi.requests if r[0] == "GET" and r[1].startswith("/api/v1/namespaces/default")]
    assert len(gets) == 5


@pytest.mark.integration
def test_kube_api_requests_are_timed_as_external_dns_does(kubeconfig_file: str, kubeapi: Any) -> None:
    """Every request of the client and of the informers' own lists lands in
    `external_dns_http_request_duration_seconds` (Go wraps its client-go transport the same way): scheme, host,
    the path's last segment, method, status."""
    from prometheus_client import REGISTRY

    from external_dns.informers.api import list_page

    _, cfg = load_config([*BASE, f"--kubeconfig={kubeconfig_file}"], environ={})
    api = kube_api_client(cfg)
    host = str(api.configuration.host).split("://", 1)[1]
    labels = {"handler": "instrumented_http", "scheme": "http", "host": host, "method": "GET"}

    def count(path: str, status: str) -> float:
        return REGISTRY.get_sample_value("external_dns_http_request_duration_seconds_count",
                                         {**labels, "path": path, "status": status}) or 0.0

    before = (count("default", "200"), count("nope", "404"), count("services", "200"))
    try:
        core = kubernetes.client.CoreV1Api(api)
        core.read_namespace("default", _preload_content=False)
        with pytest.raises(kubernetes.client.ApiException):
            core.read_namespace("nope", _preload_content=False)
        list_page(api, "/api/v1/services", [("limit", "10")], (5.0, 5.0))
    finally:
        api.close()
    assert (count("default", "200"), count("nope", "404"), count("services", "200")) == \
        (before[0] + 1, before[1] + 1, before[2] + 1)


def test_default_request_timeout_applies_to_requests_without_one() -> None:
    with socket.socket() as silent:  # accepts connections (backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        _, cfg = load_config([*BASE, f"--server=http://127.0.0.1:{port}", "--kube-api-request-timeout=0.3s"],
                             environ={})
        api = kube_api_client(cfg)
        api.configuration.retries = 0
        api.rest_client.pool_manager.connection_pool_kw["retries"] = False
        try:
            started = time.monotonic()
            with pytest.raises(urllib3.exceptions.HTTPError):
                kubernetes.client.CoreV1Api(api).read_namespace("default")
            assert time.monotonic() - started < 5.0
        finally:
            api.close()


def test_in_cluster_service_account_when_neither_flag_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from external_dns.controller import kube

    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text("sa-token-1")
    (account / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n")
    monkeypatch.setattr(kube, "SERVICE_ACCOUNT_DIR", account)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube/config
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    _, cfg = load_config(BASE, environ={})
    api = kube_api_client(cfg)
    try:
        conf = api.configuration
        assert conf.host == "https://10.96.0.1:443"
        assert conf.ssl_ca_cert == str(account / "ca.crt")
        assert conf.get_api_key_with_prefix("BearerToken").lower() == "bearer sa-token-1"
    finally:
        api.close()
    # --server keeps the service account's credentials and changes only the URL
    _, cfg = load_config([*BASE, "--server=https://api.internal:6443"], environ={})
    api = kube_api_client(cfg)
    try:
        assert api.configuration.host == "https://api.internal:6443"
        assert api.configuration.get_api_key_with_prefix("BearerToken").lower() == "bearer sa-token-1"
    finally:
        api.close()
    # a mounted account without its CA is a configuration error naming where it looked
    (account / "ca.crt").unlink()
    _, cfg = load_config(BASE, environ={})
    with pytest.raises(ConfigError, match="in-cluster configuration"):
        kube_api_client(cfg)


def test_kubeconfig_fifo_device_and_huge_file_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO used to block the start forever, a symlink to /dev/zero to be read until memory ran out."""
    import os

    from external_dns.controller import kube

    monkeypatch.setattr(kube, "MAX_KUBECONFIG_BYTES", 1000)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    huge = tmp_path / "huge"
    huge.write_text("# padding\n" * 200)
    for path, words in ((fifo, "not a regular file"), (zero, "not a regular file"), (huge, "larger than 1000")):
        _, cfg = load_config([*BASE, f"--kubeconfig={path}"], environ={})
        with pytest.raises(ConfigError, match=f"--kubeconfig {path}: {words}"):
            kube_api_client(cfg)
