"""The controller, leader election and Kubernetes API flags: names and defaults, aliases, the environment,
and the checks (client-go's leader election rules, positive QPS/burst/timeout, at least one worker)."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import build_parser, load_config, parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.flags_controller import validate_leader_election

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory", "--policy=sync"]


def test_defaults() -> None:
    cfg = parse_config(BASE, {})
    assert cfg.controller.workers == 2 and cfg.controller.events is False and cfg.controller.events_emit == ()
    assert cfg.controller.min_event_sync_interval == 5.0 and cfg.controller.metrics_address == ":7979"
    election = cfg.leader_election
    assert election.enabled is False and (election.lease_duration, election.renew_deadline,
                                          election.retry_period) == (15.0, 10.0, 2.0)
    assert election.namespace == "default" and election.name == "external-dns-py"
    assert (cfg.kube.kubeconfig, cfg.kube.server) == ("", "")
    assert (cfg.kube.request_timeout, cfg.kube.qps, cfg.kube.burst) == (30.0, 5.0, 10)


def test_flags_parse_into_the_typed_config() -> None:
    _parser, cfg = load_config([*BASE, "--workers=4", "--events", "--events-emit=RecordReady",
                                "--events-emit=RecordError", "--min-event-sync-interval=1s",
                                "--metrics-address=127.0.0.1:0", "--leader-elect", "--leader-elect-name=dns",
                                "--request-timeout=5s", "--kube-api-qps=20.5", "--kube-api-burst=40",
                                "--server=https://127.0.0.1:6443"], environ={})
    assert cfg.controller.workers == 4 and cfg.controller.events is True
    assert cfg.controller.events_emit == ("RecordReady", "RecordError")
    assert cfg.controller.min_event_sync_interval == 1.0 and cfg.controller.metrics_address == "127.0.0.1:0"
    assert cfg.leader_election.enabled is True and cfg.leader_election.name == "dns"
    assert cfg.kube.request_timeout == 5.0 and cfg.kube.qps == 20.5 and cfg.kube.burst == 40
    assert cfg.kube.server == "https://127.0.0.1:6443"


def test_environment_sets_flags() -> None:
    cfg = parse_config(BASE, {"EXTERNAL_DNS_WORKERS": "3", "EXTERNAL_DNS_EVENTS": "true",
                              "EXTERNAL_DNS_KUBECONFIG": "/tmp/kc"})
    assert cfg.controller.workers == 3 and cfg.controller.events is True and cfg.kube.kubeconfig == "/tmp/kc"


def test_unknown_event_reason_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse([*BASE, "--events-emit=RecordMaybe"], environ={})
    assert exited.value.code == 2 and "--events-emit" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "message"), [
    (["--workers=0"], "--workers must be at least 1, got 0"),
    (["--min-event-sync-interval=-1s"], "--min-event-sync-interval must not be negative, got -1s"),
    (["--kube-api-qps=0"], "--kube-api-qps must be greater than 0"),
    (["--kube-api-burst=0"], "--kube-api-burst must be greater than 0"),
    (["--kube-api-request-timeout=0s"], "--kube-api-request-timeout must be positive"),
    (["--leader-elect", "--leader-elect-name="], "--leader-elect-name must not be empty"),
    (["--leader-elect", "--leader-elect-namespace="], "--leader-elect-namespace must not be empty"),
    (["--leader-elect", "--leader-elect-lease-duration=10s"],
     r"--leader-elect-lease-duration \(10s\) must be greater than --leader-elect-renew-deadline \(10s\)"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})


def test_leader_election_timings_are_only_checked_when_enabled() -> None:
    _parser, cfg = load_config([*BASE, "--leader-elect-lease-duration=1s"], environ={})
    assert cfg.leader_election.lease_duration == 1.0


@pytest.mark.parametrize(("lease", "renew", "retry", "message"), [
    (15.0, 10.0, 0.0, "--leader-elect-retry-period must be positive"),
    (15.0, 2.4, 2.0, r"--leader-elect-renew-deadline \(2.4s\) must be greater than 1.2 x"),
    (15.5, 10.0, 2.0, "--leader-elect-lease-duration must be a whole number of seconds"),
])
def test_client_go_leader_election_rules(lease: float, renew: float, retry: float, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        validate_leader_election(lease, renew, retry)


def test_client_go_leader_election_accepts_its_own_defaults() -> None:
    validate_leader_election(15.0, 10.0, 2.0)
    validate_leader_election(2.0, 1.3, 1.0)
