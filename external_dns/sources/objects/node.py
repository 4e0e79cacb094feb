"""Node (core/v1) -> endpoints, on raw dicts (external-dns's node source): the node's name (or the
`--fqdn-template` names) -> the `target` annotation, else the node's addresses. Endpoints of several nodes
under one name merge into one record set with every node's address.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import structlog

from external_dns.endpoint.endpoint import RESOURCE_LABEL_KEY, Endpoint
from external_dns.endpoint.targets import parse_ip
from external_dns.endpoint.utils import endpoints_for_hostname, merge_endpoints
from external_dns.sources.annotations import hostname_problem, parse_annotations, target_problem
from external_dns.sources.objects.common import (
    FieldError,
    ObjectEndpoints,
    collect_objects,
    field_problem,
    get_list,
    get_map,
    get_str,
    string_map,
    template_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem, object_ref

log = structlog.get_logger(__name__)

EXTERNAL_IP = "ExternalIP"
INTERNAL_IP = "InternalIP"


def node_admitted(node: Mapping[str, Any], options: SourceOptions) -> bool:
    """`--label-filter` and `--annotation-filter` (no namespace: nodes are cluster-scoped)."""
    if not options.label_selector.empty() and not options.label_selector.matches(string_map(node, "metadata.labels")):
        return False
    return options.annotation_selector.empty() or options.annotation_selector.matches(
        string_map(node, "metadata.annotations"))


def node_addresses(node: Mapping[str, Any], expose_internal_ipv6: bool) -> tuple[list[str], list[Problem]]:
    """The node's published addresses and the malformed ones skipped: every ExternalIP (IPv4 and IPv6), plus
    the IPv6 InternalIPs with `expose_internal_ipv6`; a node without ExternalIP publishes its InternalIPs."""
    ref = object_ref(node, "node")
    external: list[str] = []
    internal: list[str] = []
    internal_v6: list[str] = []
    problems: list[Problem] = []
    for i, addr in enumerate(get_list(node, "status.addresses")):
        at = f"status.addresses[{i}]"
        if not isinstance(addr, Mapping):
            raise FieldError(at, addr, "must be an object")
        kind, value = get_str(addr, "type", at=at), get_str(addr, "address", at=at)
        if kind not in (EXTERNAL_IP, INTERNAL_IP):
            continue
        ip = parse_ip(value)
        if ip is None:
            problems.append(Problem(ref, f"{at}.address", value, "not an IP address; skipped", obj=node))
            continue
        if kind == EXTERNAL_IP:
            external.append(value)
        elif ip.version == 6:
            internal_v6.append(value)
        else:
            internal.append(value)
    if external:
        return external + (internal_v6 if expose_internal_ipv6 else []), problems
    return internal + internal_v6, problems


def node_endpoints(node: Mapping[str, Any], options: SourceOptions) -> ObjectEndpoints:
    """Endpoints of one Node (empty when filtered out, not ours or unschedulable) and the problems found."""
    ref = object_ref(node, "node")
    problems: list[Problem] = []
    try:
        name = get_str(node, "metadata.name")
        if not node_admitted(node, options):
            return ObjectEndpoints([], [])
        ann = parse_annotations(string_map(node, "metadata.annotations"), options.annotation_prefix, ref, node)
        if not ann.controller_matches():
            log.debug(f"Skipping node {name} because controller value does not match, found: {ann.controller}, "
                      "required: dns-controller")
            return ObjectEndpoints([], [])
        # --exclude-unschedulable (default on): a cordoned node publishes nothing
        if options.exclude_unschedulable and get_map(node, "spec").get("unschedulable") is True:
            log.debug(f"Skipping node {name} because it is unschedulable")
            return ObjectEndpoints([], [])
        problems.extend(ann.problems)
        names: list[str] = []
        if options.template is None:
            problem = hostname_problem(name)
            names = [name] if problem is None else []
            if problem is not None:
                problems.append(Problem(ref, "metadata.name", name, f"hostname skipped: {problem}", obj=node))
        targets = list(ann.targets)
        if not targets:
            targets, addr_problems = node_addresses(node, options.expose_internal_ipv6)
            problems.extend(addr_problems)
            if not targets:
                # reported and skipped; Go fails the whole sync here, which would stop every other record
                problems.append(Problem(ref, "status.addresses", "",
                                        "the node has no ExternalIP or InternalIP address; it publishes nothing",
                                        obj=node))
                return ObjectEndpoints([], problems)
        targets = [t for t in targets if target_problem(t) is None]
        resource = f"node/{name}"

        def with_targets(host: str, host_targets: list[str]) -> list[Endpoint]:
            return endpoints_for_hostname(host, host_targets, ann.ttl, (), "", resource)

        existing = [ep for host in names for ep in with_targets(host, targets)]
        # --fqdn-template names (the node's addresses), --fqdn-target-template pairs
        endpoints, template_problems = template_endpoints(node, options, "Node", ref, existing,
                                                          own=lambda host: with_targets(host, targets),
                                                          with_targets=with_targets)
        problems.extend(template_problems)
    except FieldError as exc:
        return ObjectEndpoints([], [*problems, field_problem(ref, exc, node)])
    for ep in endpoints:
        ep.labels[RESOURCE_LABEL_KEY] = resource
        ep.ref_objects.append(node)
    return ObjectEndpoints(endpoints, problems)


def collect_node_endpoints(nodes: Iterable[Mapping[str, Any]], options: SourceOptions) -> ObjectEndpoints:
    """What a node source returns for all its Nodes (merged) and the problems of all of them."""
    return collect_objects(nodes, lambda node: node_endpoints(node, options), merge_endpoints)
