"""Wiring for the `external-dns` commands: the parsed flags become the controller pipeline (provider ->
registry -> sources -> Controller with its safety gate), the plan-first engine's options and the
long-running process's features. The only place besides the builders that reads the flag namespace."""

from __future__ import annotations

import argparse
import functools
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog

from external_dns.cmd.build import REGISTRY_BUILDERS, build_provider, load_builder
from external_dns.cmd.flags_safety import apply_batch_size_given, plan_output_files, safety_config
from external_dns.controller.controller import Controller
from external_dns.controller.once import OnceOptions
from external_dns.controller.safety_gate import SafetyGate
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.errors import ConfigError
from external_dns.providers.provider import CachedProvider, Provider
from external_dns.registry.registry import Registry
from external_dns.sources.source import Source

log = structlog.get_logger(__name__)

if TYPE_CHECKING:  # the long-running process is imported only when it runs
    from external_dns.controller.dnsrecord.reconcile import Options as DNSRecordOptions
    from external_dns.controller.leader_election import LeaderElectionOptions
    from external_dns.controller.process import ControllerProcess, ProcessFeature, ProcessOptions


def build_domain_filter(cfg: argparse.Namespace) -> DomainFilter:
    try:
        return DomainFilter(include=cfg.domain_filter or [], exclude=cfg.exclude_domains or [],
                            regex=cfg.regex_domain_filter or "", regex_exclusion=cfg.regex_domain_exclusion or "")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def kube_api_client(cfg: argparse.Namespace) -> Any:
    """An `ApiClient` for `--kubeconfig`, `--server`, `--kube-api-request-timeout`, `--kube-api-qps` and
    `--kube-api-burst` (missing attributes take the flag defaults)."""
    from external_dns.controller.kube import api_client  # the Kubernetes client: only when a source needs it

    return api_client(getattr(cfg, "kubeconfig", "") or "", getattr(cfg, "server", "") or "",
                      qps=float(getattr(cfg, "kube_api_qps", 5.0)), burst=int(getattr(cfg, "kube_api_burst", 10)),
                      request_timeout=float(getattr(cfg, "kube_api_request_timeout", 30.0)))


class KubeClient:
    """Builds the Kubernetes client on first use, once."""

    def __init__(self, cfg: argparse.Namespace) -> None:
        self._cfg = cfg
        self._lock = threading.Lock()
        self._client: Any = None

    def __call__(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = kube_api_client(self._cfg)
            return self._client

    @property
    def created(self) -> bool:
        with self._lock:
            return self._client is not None


def build_source(cfg: argparse.Namespace, context: Mapping[str, Any]) -> Source:
    """Every `--source`, combined and wrapped by the sources' pipeline (MultiSource, target filter, min TTL)."""
    from external_dns.cmd.build_sources import build_source_pipeline

    return build_source_pipeline(cfg, context)


def build_registry(cfg: argparse.Namespace) -> Registry:
    """The provider (cached with --provider-cache-time) under the chosen registry."""
    provider: Provider = build_provider(cfg)
    if getattr(cfg, "provider_cache_time", 0.0) > 0:
        provider = CachedProvider(provider, cfg.provider_cache_time)
    registry: Registry = load_builder(REGISTRY_BUILDERS, "registry", cfg.registry)(cfg, provider)
    return registry


def build_controller(cfg: argparse.Namespace, context: Mapping[str, Any]) -> Controller:
    """provider -> registry -> sources -> Controller, with the per-zone safety gate before every write."""
    domain_filter = build_domain_filter(cfg)
    registry = build_registry(cfg)
    source = build_source(cfg, context)
    controller = Controller(
        source,
        registry,
        cfg.policy,
        domain_filter=domain_filter,
        managed_record_types=cfg.managed_record_types,
        exclude_record_types=cfg.exclude_record_types or [],
        old_owner_id=cfg.migrate_from_txt_owner,
        dry_run=cfg.dry_run,
    )
    install_safety_gate(controller, cfg)
    return controller


def install_safety_gate(controller: Controller, cfg: argparse.Namespace) -> SafetyGate:
    """Add the per-zone SafetyGate to the controller's pre-apply checks (the long-running controller then
    refuses an unsafe zone, applies the others and retries it at the next sync)."""
    gate = SafetyGate(safety_config(cfg), owner_id=controller.registry.owner_id(),
                      managed_record_types=controller.managed_record_types, zones=controller.zone_keys)
    controller.add_pre_apply_check(gate)
    return gate


def once_options(cfg: argparse.Namespace) -> OnceOptions:
    """The plan-first engine's options (`--once`, `plan`, `apply`)."""
    return OnceOptions(
        safety=safety_config(cfg), plan_output=list(getattr(cfg, "plan_output", None) or []),
        plan_output_files=plan_output_files(cfg), plan_file=getattr(cfg, "plan_file", "") or "",
        provider=cfg.provider, registry=cfg.registry, dry_run=bool(cfg.dry_run), progress=cfg.progress,
        progress_interval=float(cfg.progress_interval), apply_batch_size=int(cfg.apply_batch_size),
        apply_batch_size_given=apply_batch_size_given(cfg))


def _attach_plan_outputs(formats: list[str], files: dict[str, str], process: ControllerProcess) -> None:
    """`--plan-output` formats other than `log` and `--plan-output-file` in the long-running mode: the
    latest plan of every zone, before the safety check, in dry-run too."""
    from external_dns.plan.output.live import LivePlanOutputs

    controller = process.controller
    controller.plan_observers.append(LivePlanOutputs(formats, files, owner_id=controller.registry.owner_id(),
                                                     managed_record_types=controller.managed_record_types,
                                                     default_ttl=controller.registry.provider.record_default_ttl))


def process_features(cfg: argparse.Namespace) -> list[ProcessFeature]:
    """The long-running process's optional features the flags ask for."""
    features: list[ProcessFeature] = []
    from external_dns.plan.output.live import LivePlanOutputs

    formats, files = list(getattr(cfg, "plan_output", None) or []), plan_output_files(cfg)
    if LivePlanOutputs(formats, files).active:
        features.append(functools.partial(_attach_plan_outputs, formats, files))
    if "dnsrecord" in (getattr(cfg, "source", None) or []):
        if getattr(cfg, "dry_run", False):
            log.warning("--dry-run: the DNSRecord controller is not started (it would write to the provider, "
                        "the records' status and their finalizers)")
        else:
            features.append(functools.partial(_install_dnsrecord, dnsrecord_options(cfg),
                                              str(getattr(cfg, "namespace", "") or ""),
                                              int(getattr(cfg, "dnsrecord_workers", 2) or 2)))
    return features


def _install_dnsrecord(options: DNSRecordOptions, namespace: str, workers: int, process: ControllerProcess) -> None:
    from external_dns.controller.dnsrecord.controller import install  # the Kubernetes client: only when run

    install(process, options, namespace=namespace, workers=workers)


def dnsrecord_options(cfg: argparse.Namespace) -> DNSRecordOptions:
    """The DNSRecord controller's timings from `--min-requeue-time`, `--requeue-time`, `--valid-for` and
    `--write-counter-limit`."""
    from external_dns.controller.dnsrecord.reconcile import Options

    return Options(min_requeue_time=float(getattr(cfg, "min_requeue_time", Options.min_requeue_time)),
                   requeue_time=float(getattr(cfg, "requeue_time", Options.requeue_time)),
                   valid_for=float(getattr(cfg, "valid_for", Options.valid_for)),
                   write_counter_limit=int(getattr(cfg, "write_counter_limit", Options.write_counter_limit)))


def leader_election_options(cfg: argparse.Namespace) -> LeaderElectionOptions:
    """The `--leader-elect-*` flags."""
    from external_dns.controller.leader_election import LeaderElectionOptions

    return LeaderElectionOptions(
        name=cfg.leader_elect_name, namespace=cfg.leader_elect_namespace,
        lease_duration=float(cfg.leader_elect_lease_duration), renew_deadline=float(cfg.leader_elect_renew_deadline),
        retry_period=float(cfg.leader_elect_retry_period),
        request_timeout=float(getattr(cfg, "kube_api_request_timeout", 10.0)))


def process_options(cfg: argparse.Namespace) -> ProcessOptions:
    """The long-running process's options."""
    from external_dns.controller.process import ProcessOptions

    return ProcessOptions(
        metrics_address=cfg.metrics_address, workers=int(getattr(cfg, "workers", 2)), interval=float(cfg.interval),
        min_event_sync_interval=float(getattr(cfg, "min_event_sync_interval", 5.0)),
        events=bool(getattr(cfg, "events", False)), dry_run=bool(getattr(cfg, "dry_run", False)),
        events_emit=tuple(e for e in getattr(cfg, "events_emit", None) or () if e),
        leader_election=leader_election_options(cfg) if getattr(cfg, "leader_elect", False) else None)
