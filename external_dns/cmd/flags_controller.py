"""Controller flags: workers, event-driven syncs, leader election, the metrics/health address and the
Kubernetes API connection (`--kubeconfig`, `--server`, request timeout, client-side QPS/burst)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group
from external_dns.durations import format_go_duration as go

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

# --events-emit values (external-dns's record event reasons).
EMITTABLE_EVENTS = ("RecordReady", "RecordDeleted", "RecordError")

# client-go leader election: RenewDeadline must exceed JitterFactor * RetryPeriod.
LEADER_ELECT_JITTER = 1.2


def add_flags(p: FlagParser) -> None:
    p.group("controller")
    p.add("--workers", type=int, default=2, help="number of worker threads processing the work queue")
    p.add("--events", type=bool, default=False,
          help="trigger a sync when a watched Kubernetes object changes (in addition to --interval)")
    p.add("--events-emit", repeat=True, choices=EMITTABLE_EVENTS,
          help="Kubernetes Events to emit about records on their source objects (repeatable; none unless "
               "listed, as upstream)")
    p.add("--min-event-sync-interval", type=duration, default=5.0,
          help="minimum time between two event-triggered syncs")
    p.add("--metrics-address", default=":7979", help="address of the /healthz, /readyz and /metrics server")

    p.group("leader election")
    p.add("--leader-elect", type=bool, default=False, help="run leader election (a coordination.k8s.io Lease)")
    p.add("--leader-elect-lease-duration", type=duration, default=15.0,
          help="how long a non-leader waits after the last renewal before taking over")
    p.add("--leader-elect-renew-deadline", type=duration, default=10.0,
          help="how long the leader keeps retrying a renewal before giving up leadership")
    p.add("--leader-elect-retry-period", type=duration, default=2.0,
          help="wait between acquire/renew attempts")
    p.add("--leader-elect-namespace", default="default", help="namespace of the leader election Lease")
    p.add("--leader-elect-name", default="external-dns-py", help="name of the leader election Lease")

    p.group("Kubernetes API")
    p.add("--kubeconfig", default="", help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
    p.add("--server", default="", help="Kubernetes API server URL (overrides the kubeconfig's server)")
    p.add("--kube-api-request-timeout", type=duration, default=30.0, aliases=("--request-timeout",),
          help="timeout of Kubernetes API requests (--request-timeout is a deprecated alias)")
    p.add("--kube-api-qps", type=float, default=5.0, help="client-side rate limit of Kubernetes API requests")
    p.add("--kube-api-burst", type=int, default=10, help="burst of the client-side Kubernetes API rate limit")


@flag_group
class ControllerFlags(FlagGroup):
    """The long-running controller: workers, event-driven syncs, Events, the metrics address."""

    workers: int = flag("--workers")
    events: bool = flag("--events")
    events_emit: tuple[str, ...] = flag("--events-emit")
    min_event_sync_interval: float = flag("--min-event-sync-interval")
    metrics_address: str = flag("--metrics-address")


@flag_group
class LeaderElectionFlags(FlagGroup):
    """Leader election on a coordination.k8s.io Lease."""

    enabled: bool = flag("--leader-elect")
    lease_duration: float = flag("--leader-elect-lease-duration")
    renew_deadline: float = flag("--leader-elect-renew-deadline")
    retry_period: float = flag("--leader-elect-retry-period")
    namespace: str = flag("--leader-elect-namespace")
    name: str = flag("--leader-elect-name")


@flag_group
class KubeAPIFlags(FlagGroup):
    """The Kubernetes API connection (every client: sources, Events, the Lease)."""

    kubeconfig: str = flag("--kubeconfig")
    server: str = flag("--server")
    request_timeout: float = flag("--kube-api-request-timeout")
    qps: float = flag("--kube-api-qps")
    burst: int = flag("--kube-api-burst")


def validate(cfg: Config) -> None:
    controller, kube, election = cfg.controller, cfg.kube, cfg.leader_election
    if controller.workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {controller.workers}")
    if controller.min_event_sync_interval < 0:
        raise ConfigError(f"--min-event-sync-interval must not be negative, got "
                          f"{go(controller.min_event_sync_interval)}")
    if kube.qps <= 0:
        raise ConfigError(f"--kube-api-qps must be greater than 0, got {kube.qps}")
    if kube.burst <= 0:
        raise ConfigError(f"--kube-api-burst must be greater than 0, got {kube.burst}")
    if kube.request_timeout <= 0:
        raise ConfigError(f"--kube-api-request-timeout must be positive, got {go(kube.request_timeout)}")
    if election.enabled:
        validate_leader_election(election.lease_duration, election.renew_deadline, election.retry_period)
        if not election.name:
            raise ConfigError("--leader-elect-name must not be empty")
        if not election.namespace:
            raise ConfigError("--leader-elect-namespace must not be empty")


def validate_leader_election(lease_duration: float, renew_deadline: float, retry_period: float) -> None:
    """client-go's checks: lease duration > renew deadline > 1.2 * retry period > 0; whole-second lease."""
    if retry_period <= 0:
        raise ConfigError(f"--leader-elect-retry-period must be positive, got {go(retry_period)}")
    if lease_duration <= renew_deadline:
        raise ConfigError(f"--leader-elect-lease-duration ({go(lease_duration)}) must be greater than "
                          f"--leader-elect-renew-deadline ({go(renew_deadline)})")
    if renew_deadline <= LEADER_ELECT_JITTER * retry_period:
        raise ConfigError(f"--leader-elect-renew-deadline ({go(renew_deadline)}) must be greater than "
                          f"{LEADER_ELECT_JITTER} x --leader-elect-retry-period ({go(retry_period)})")
    if lease_duration < 1 or lease_duration != int(lease_duration):
        raise ConfigError(f"--leader-elect-lease-duration must be a whole number of seconds >= 1 "
                          f"(Lease leaseDurationSeconds), got {go(lease_duration)}")
