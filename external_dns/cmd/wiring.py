"""Wiring for the `external-dns` commands: the typed configuration (cmd/config.Config) becomes the controller
pipeline (provider -> registry -> sources -> Controller with its safety gate), the plan-first engine's
options, the long-running process's options and its features."""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog

from external_dns.cmd.build import REGISTRY_BUILDERS, build_domain_filter, build_provider, load_builder
from external_dns.cmd.flags_safety import apply_batch_size_given, plan_output_files, safety_config
from external_dns.controller.controller import Controller
from external_dns.controller.once import OnceOptions
from external_dns.controller.safety_gate import SafetyGate
from external_dns.plan.safety import SafetyConfig
from external_dns.providers.provider import CachedProvider, Provider
from external_dns.registry.registry import Registry
from external_dns.sources.source import Source

log = structlog.get_logger(__name__)

__all__ = ["KubeClient", "build_controller", "build_domain_filter", "build_registry", "build_source",
           "dnsrecord_options", "install_safety_gate", "kube_api_client", "leader_election_options", "once_options",
           "process_features", "process_options"]

if TYPE_CHECKING:  # the long-running process is imported only when it runs
    from external_dns.cmd.config import Config
    from external_dns.controller.dnsrecord.reconcile import Options as DNSRecordOptions
    from external_dns.controller.leader_election import LeaderElectionOptions
    from external_dns.controller.process import ControllerProcess, ProcessFeature, ProcessOptions


def kube_api_client(cfg: Config) -> Any:
    """An `ApiClient` for `--kubeconfig`, `--server`, `--kube-api-request-timeout`, `--kube-api-qps` and
    `--kube-api-burst`."""
    from external_dns.controller.kube import api_client  # the Kubernetes client: only when a source needs it

    kube = cfg.kube
    return api_client(kube.kubeconfig, kube.server, qps=kube.qps, burst=kube.burst,
                      request_timeout=kube.request_timeout)


class KubeClient:
    """Builds the Kubernetes client on first use, once."""

    def __init__(self, cfg: Config) -> None:
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


def build_source(cfg: Config, context: Mapping[str, Any]) -> Source:
    """Every `--source`, combined and wrapped by the sources' pipeline (MultiSource, target filter, min TTL)."""
    from external_dns.cmd.build_sources import build_source_pipeline

    return build_source_pipeline(cfg, context)


def build_registry(cfg: Config) -> Registry:
    """The provider (cached with --provider-cache-time) under the chosen registry."""
    provider: Provider = build_provider(cfg)
    if cfg.local.provider_cache_time > 0:
        provider = CachedProvider(provider, cfg.local.provider_cache_time)
    registry: Registry = load_builder(REGISTRY_BUILDERS, "registry", cfg.core.registry)(cfg, provider)
    return registry


def build_controller(cfg: Config, context: Mapping[str, Any]) -> Controller:
    """provider -> registry -> sources -> Controller, with the per-zone safety gate before every write."""
    domain_filter = build_domain_filter(cfg)
    registry = build_registry(cfg)
    source = build_source(cfg, context)
    controller = Controller(
        source,
        registry,
        cfg.core.policy,
        domain_filter=domain_filter,
        managed_record_types=list(cfg.filters.managed_record_types),
        exclude_record_types=list(cfg.filters.exclude_record_types),
        old_owner_id=cfg.txt.migrate_from_owner,
        dry_run=cfg.core.dry_run,
    )
    install_safety_gate(controller, cfg)
    return controller


def install_safety_gate(controller: Controller, cfg: Config) -> SafetyGate:
    """Add the per-zone SafetyGate to the controller's pre-apply checks (the long-running controller then
    refuses an unsafe zone, applies the others and retries it at the next sync)."""
    gate = SafetyGate(safety_config(cfg), owner_id=controller.registry.owner_id(),
                      managed_record_types=controller.managed_record_types, zones=controller.zone_keys)
    controller.add_pre_apply_check(gate)
    return gate


def once_options(cfg: Config) -> OnceOptions:
    """The plan-first engine's options (`--once`, `plan`, `apply`)."""
    output = cfg.plan_output
    return OnceOptions(
        safety=safety_config(cfg), plan_output=list(output.formats), plan_output_files=plan_output_files(cfg),
        plan_file=output.plan_file, provider=cfg.core.provider, registry=cfg.core.registry,
        dry_run=cfg.core.dry_run, progress=output.progress, progress_interval=output.progress_interval,
        apply_batch_size=int(output.apply_batch_size), apply_batch_size_given=apply_batch_size_given(cfg))


def _attach_plan_outputs(formats: list[str], files: dict[str, str], safety: SafetyConfig,
                         process: ControllerProcess) -> None:
    """`--plan-output` formats other than `log` and `--plan-output-file` in the long-running mode: the
    latest plan of every zone, before the safety check, in dry-run too."""
    from external_dns.plan.output.live import LivePlanOutputs

    controller = process.controller
    controller.plan_observers.append(LivePlanOutputs(formats, files, owner_id=controller.registry.owner_id(),
                                                     managed_record_types=controller.managed_record_types,
                                                     default_ttl=controller.registry.provider.record_default_ttl,
                                                     safety=safety))


def process_features(cfg: Config) -> list[ProcessFeature]:
    """The long-running process's optional features the flags ask for."""
    features: list[ProcessFeature] = []
    from external_dns.plan.output.live import LivePlanOutputs

    formats, files = list(cfg.plan_output.formats), plan_output_files(cfg)
    if LivePlanOutputs(formats, files).active:
        features.append(functools.partial(_attach_plan_outputs, formats, files, safety_config(cfg)))
    if "dnsrecord" in cfg.core.source_names:
        if cfg.core.dry_run:
            log.warning("--dry-run: the DNSRecord controller is not started (it would write to the provider, "
                        "the records' status and their finalizers)")
        else:
            features.append(functools.partial(_install_dnsrecord, dnsrecord_options(cfg), cfg.sources.namespace,
                                              cfg.dnsrecord.workers))
    return features


def _install_dnsrecord(options: DNSRecordOptions, namespace: str, workers: int, process: ControllerProcess) -> None:
    from external_dns.controller.dnsrecord.controller import install  # the Kubernetes client: only when run

    install(process, options, namespace=namespace, workers=workers)


def dnsrecord_options(cfg: Config) -> DNSRecordOptions:
    """The DNSRecord controller's timings from `--min-requeue-time`, `--requeue-time`, `--valid-for` and
    `--write-counter-limit`."""
    from external_dns.controller.dnsrecord.reconcile import Options

    rec = cfg.dnsrecord
    return Options(min_requeue_time=rec.min_requeue_time, requeue_time=rec.requeue_time, valid_for=rec.valid_for,
                   write_counter_limit=rec.write_counter_limit)


def leader_election_options(cfg: Config) -> LeaderElectionOptions:
    """The `--leader-elect-*` flags."""
    from external_dns.controller.leader_election import LeaderElectionOptions

    election = cfg.leader_election
    return LeaderElectionOptions(
        name=election.name, namespace=election.namespace, lease_duration=election.lease_duration,
        renew_deadline=election.renew_deadline, retry_period=election.retry_period,
        request_timeout=cfg.kube.request_timeout)


def process_options(cfg: Config) -> ProcessOptions:
    """The long-running process's options."""
    from external_dns.controller.process import ProcessOptions

    controller = cfg.controller
    return ProcessOptions(
        metrics_address=controller.metrics_address, workers=controller.workers, interval=cfg.core.interval,
        min_event_sync_interval=controller.min_event_sync_interval, events=controller.events,
        dry_run=cfg.core.dry_run, events_emit=tuple(e for e in controller.events_emit if e),
        leader_election=leader_election_options(cfg) if cfg.leader_election.enabled else None)
