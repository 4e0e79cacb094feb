"""Pod (core/v1) -> endpoints, on raw dicts (external-dns's pod source): the `internal-hostname` and
`hostname` annotations, `--pod-source-domain` and `--fqdn-template` give names; the `target` annotation,
the pod IP or the node's addresses give targets (the rules are in `_Pod.run`). As external-dns, no
`resource` label is set, so the ownership TXT records match what Go writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import parse_ip
from external_dns.endpoint.utils import endpoints_for_hostname, merge_endpoints
from external_dns.sources.annotations import ParsedAnnotations, parse_annotations
from external_dns.sources.compat import KOPS_EXTERNAL, KOPS_INTERNAL, split_hosts
from external_dns.sources.objects.common import (
    FieldError,
    ObjectEndpoints,
    admitted,
    collect_objects,
    get_list,
    get_map,
    get_str,
    name_and_namespace,
    run_object,
    string_map,
    template_endpoints,
)
from external_dns.sources.objects.node import EXTERNAL_IP, INTERNAL_IP
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem, object_ref

log = structlog.get_logger(__name__)

NodeLookup = Callable[[str], Mapping[str, Any] | None]


@dataclass(frozen=True)
class PodOptions:
    """`--ignore-non-host-network-pods` and `--pod-source-domain`."""

    ignore_non_host_network_pods: bool = False  # external-dns's default (older releases skipped them)
    pod_source_domain: str = ""


def _pod_node_addresses(node: Mapping[str, Any]) -> list[str]:
    """ExternalIPs and IPv6 InternalIPs (IPv6 addresses are labelled InternalIP though usable outside)."""
    out: list[str] = []
    for i, addr in enumerate(get_list(node, "status.addresses")):
        if not isinstance(addr, Mapping):
            raise FieldError(f"status.addresses[{i}]", addr, "must be an object")
        kind, value = addr.get("type"), addr.get("address")
        ip = parse_ip(value) if isinstance(value, str) else None
        if ip is None:
            continue
        if kind == EXTERNAL_IP or (kind == INTERNAL_IP and ip.version == 6):
            out.append(str(value))
    return out


class _Pod:
    def __init__(self, pod: Mapping[str, Any], options: SourceOptions, pod_options: PodOptions,
                 node: NodeLookup) -> None:
        self.pod = pod
        self.options = options
        self.pod_options = pod_options
        self.node = node
        self.ref = object_ref(pod, "pod")
        self.name, self.namespace = name_and_namespace(pod)
        self.problems: list[Problem] = []
        self.ann = ParsedAnnotations()
        self.names: dict[str, list[str]] = {}  # host name -> targets, first-seen order

    def add(self, host: str, targets: Iterable[str]) -> None:
        bucket = self.names.setdefault(host, [])
        bucket.extend(t for t in targets if t and t not in bucket)

    def pod_ip(self) -> list[str]:
        ip = get_str(self.pod, "status.podIP")
        if ip and parse_ip(ip) is None:
            self.problems.append(Problem(self.ref, "status.podIP", ip, "not an IP address; skipped", obj=self.pod))
            return []
        return [ip] if ip else []

    def pod_ips(self) -> list[str]:
        out: list[str] = []
        for i, entry in enumerate(get_list(self.pod, "status.podIPs")):
            if not isinstance(entry, Mapping):
                raise FieldError(f"status.podIPs[{i}]", entry, "must be an object")
            ip = get_str(entry, "ip", at=f"status.podIPs[{i}]")
            if ip and parse_ip(ip) is not None:
                out.append(ip)
        return out or self.pod_ip()

    def node_addresses(self) -> list[str]:
        node_name = get_str(self.pod, "spec.nodeName")
        node = self.node(node_name) if node_name else None
        if node is None:
            log.debug(f"node \"{node_name}\" of pod {self.namespace}/{self.name} not found; ignoring")
            return []
        addresses = _pod_node_addresses(node)
        if not addresses:
            # as external-dns, IPv4 InternalIPs are not published under `hostname` (a bare-metal node often
            # has nothing else): say so rather than publish nothing silently
            self.problems.append(Problem(
                self.ref, "spec.nodeName", node_name,
                "the node has no ExternalIP or IPv6 InternalIP address, so the hostname annotation of this "
                "hostNetwork pod publishes nothing (the internal-hostname or target annotation gives an address)",
                obj=self.pod))
        return addresses

    def run(self) -> list[Endpoint]:
        """The pod's endpoints; targets are the `target` annotation when set. A pod without an IP yet
        (pending) or on a node not in the cache publishes nothing for those names until it has one (a normal
        transient state: no problem is reported)."""
        opts, popts = self.options, self.pod_options
        if not admitted(self.pod, opts):
            return []
        self.ann = parse_annotations(string_map(self.pod, "metadata.annotations"), opts.annotation_prefix,
                                     self.ref, self.pod)
        if not self.ann.controller_matches():
            return []
        if popts.ignore_non_host_network_pods and get_map(self.pod, "spec").get("hostNetwork") is not True:
            log.debug(f"skipping pod {self.name}. hostNetwork=false")
            return []
        self.problems.extend(self.ann.problems)
        targets = list(self.ann.targets)
        for host in self.ann.internal_hostnames:  # -> the pod IP
            self.add(host, targets or self.pod_ip())
        if self.ann.hostnames:
            # external-dns's annotation guide: the node's addresses for hostNetwork pods, the pod IP for
            # others (its code uses the node's addresses for both, which reach a pod only through hostPort)
            host_network = get_map(self.pod, "spec").get("hostNetwork") is True
            node_targets = targets or (self.node_addresses() if host_network else self.pod_ip())
            for host in self.ann.hostnames:
                self.add(host, node_targets)
        if opts.compatibility == "kops-dns-controller":  # sources/compat.py
            annotations = string_map(self.pod, "metadata.annotations")
            for host in split_hosts(annotations.get(KOPS_INTERNAL, "")):
                self.add(host, self.pod_ip())
            for host in split_hosts(annotations.get(KOPS_EXTERNAL, "")):
                self.add(host, self.node_addresses())
        if popts.pod_source_domain:  # <pod name>.<domain> -> the pod IP
            self.add(f"{self.name}.{popts.pod_source_domain.strip('.')}", targets or self.pod_ip())
        def with_targets(host: str, targets: list[str]) -> list[Endpoint]:
            return endpoints_for_hostname(host, targets, self.ann.ttl)

        existing = [ep for host, host_targets in self.names.items() for ep in with_targets(host, host_targets)]
        # --fqdn-template names (when nothing above gave one, or always with --combine-fqdn-annotation) point
        # to every pod IP; --fqdn-target-template pairs
        endpoints, problems = template_endpoints(self.pod, opts, "Pod", self.ref, existing,
                                                 own=lambda host: with_targets(host, self.pod_ips()),
                                                 with_targets=with_targets)
        self.problems.extend(problems)
        for ep in endpoints:
            ep.ref_objects.append(self.pod)
        return endpoints


def pod_endpoints(pod: Mapping[str, Any], options: SourceOptions, pod_options: PodOptions,
                  node: NodeLookup) -> ObjectEndpoints:
    """Endpoints of one Pod and the problems found; a malformed pod gives none and names the field."""
    ref = object_ref(pod, "pod")
    return run_object(pod, ref, lambda: _Pod(pod, options, pod_options, node))


def collect_pod_endpoints(pods: Iterable[Mapping[str, Any]], options: SourceOptions, pod_options: PodOptions,
                          node: NodeLookup) -> ObjectEndpoints:
    """What a pod source returns for all its Pods (merged) and the problems of all of them."""
    return collect_objects(pods, lambda pod: pod_endpoints(pod, options, pod_options, node), merge_endpoints)
