"""cmd/wiring.py: parsed flags -> the pipeline (provider -> registry -> sources -> Controller with its
safety gate) and the typed options of the plan-first engine, the long-running process, leader election
and the DNSRecord controller."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from external_dns.cmd.config import Config, load_config
from external_dns.cmd.wiring import (
    KubeClient,
    build_controller,
    build_domain_filter,
    dnsrecord_options,
    leader_election_options,
    once_options,
    process_features,
    process_options,
)
from external_dns.controller.controller import Controller
from external_dns.controller.safety_gate import SafetyGate, find_safety_gate
from external_dns.errors import ConfigError
from external_dns.plan.output.live import LivePlanOutputs
from external_dns.plan.policy import UpsertOnlyPolicy
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry.txt import TXTRegistry

BASE = ["--source=manifest", "--provider=inmemory", "--inmemory-zone=example.org", "--policy=upsert-only",
        "--txt-owner-id=team-a"]


def flags(tmp_path: Path, *args: str) -> Config:
    _parser, cfg = load_config([*BASE, f"--manifest-dir={tmp_path}", *args], environ={})
    return cfg


def test_build_controller_wires_the_pipeline_with_the_safety_gate(tmp_path: Path) -> None:
    cfg = flags(tmp_path, "--domain-filter=example.org", "--managed-record-types=A", "--dry-run")
    controller = build_controller(cfg, {"stop": threading.Event()})
    assert isinstance(controller, Controller)
    assert isinstance(controller.registry, TXTRegistry) and controller.registry.owner_id() == "team-a"
    assert isinstance(controller.registry.provider, InMemoryProvider)
    assert controller.managed_record_types == ["A"] and controller.dry_run
    assert controller.domain_filter is not None and controller.domain_filter.match("www.example.org")
    assert not controller.domain_filter.match("www.example.com")
    assert [type(p) for p in controller.policies] == [UpsertOnlyPolicy]
    assert isinstance(find_safety_gate(controller.pre_apply_checks), SafetyGate)
    assert controller.zone_keys() == ["example.org"]


def test_a_bad_domain_filter_regex_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="regex"):
        build_domain_filter(flags(tmp_path, "--regex-domain-filter=(a"))


def test_once_options_come_from_the_flags(tmp_path: Path) -> None:
    out = tmp_path / "plan.md"
    options = once_options(flags(tmp_path, "--plan-output=json", f"--plan-output-file=markdown={out}",
                                 "--apply-batch-size=7", "--progress=none", "--dry-run"))
    assert options.plan_output == ["json"]
    assert options.plan_output_files == {"markdown": str(out)}
    assert (options.provider, options.registry, options.dry_run) == ("inmemory", "txt", True)
    assert (options.apply_batch_size, options.progress) == (7, "none")


def test_process_options_and_leader_election(tmp_path: Path) -> None:
    cfg = flags(tmp_path, "--interval=1m30s", "--workers=4", "--events", "--metrics-address=127.0.0.1:0")
    options = process_options(cfg)
    assert (options.interval, options.workers, options.events) == (90.0, 4, True)
    assert options.metrics_address == "127.0.0.1:0" and options.leader_election is None
    cfg = flags(tmp_path, "--leader-elect", "--leader-elect-namespace=dns", "--leader-elect-lease-duration=30s",
                "--leader-elect-renew-deadline=20s", "--leader-elect-retry-period=4s")
    election = process_options(cfg).leader_election
    assert election is not None and election == leader_election_options(cfg)
    assert (election.namespace, election.lease_duration, election.renew_deadline, election.retry_period) == (
        "dns", 30.0, 20.0, 4.0)


def test_dnsrecord_options(tmp_path: Path) -> None:
    options = dnsrecord_options(flags(tmp_path, "--min-requeue-time=2s", "--requeue-time=10m", "--valid-for=5m",
                                      "--write-counter-limit=3"))
    assert (options.min_requeue_time, options.requeue_time, options.valid_for) == (2.0, 600.0, 300.0)
    assert options.write_counter_limit == 3


class _Process:
    def __init__(self, controller: Controller) -> None:
        self.controller = controller


def test_process_features_only_what_the_flags_ask_for(tmp_path: Path) -> None:
    assert process_features(flags(tmp_path)) == []  # --plan-output=log: the controller's own log lines
    assert process_features(flags(tmp_path, "--source=dnsrecord", "--dry-run")) == []  # it would write
    cfg = flags(tmp_path, "--plan-output=json", f"--plan-output-file=json={tmp_path / 'live.json'}")
    [feature] = process_features(cfg)
    controller = build_controller(cfg, {})
    feature(_Process(controller))  # type: ignore[arg-type]
    assert [type(o) for o in controller.plan_observers] == [LivePlanOutputs]
    controller.run_once("example.org")  # the latest plan is written on every pass, in dry-run too
    assert (tmp_path / "live.json").exists()


def test_kube_client_is_built_once_on_first_use(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    made: list[Config] = []

    def fake(cfg: Config) -> object:
        made.append(cfg)
        return object()

    monkeypatch.setattr("external_dns.cmd.wiring.kube_api_client", fake)
    client = KubeClient(flags(tmp_path))
    assert not client.created and made == []
    first = client()
    assert client() is first and client.created and len(made) == 1
