"""The RBAC rules each source needs, as data: the chart's ClusterRole is rendered from `rbac_document()`
and `external-dns rbac` (cmd/rbac.py) prints `rules_for_sources(...)`. A new source registers its rules
in `SOURCE_RULES`; the reason for each permission sits beside its rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Rule = dict[str, list[str]]

# What an informer needs: LIST + WATCH (`get` for parity with external-dns).
READ = ["get", "list", "watch"]

CLUSTER_SCOPED_RESOURCES: tuple[str, ...] = ("nodes", "namespaces")

# Every run: the event recorder creates an Event, then PATCHes its series count (core/v1 and
# events.k8s.io/v1).
ALWAYS_RULES: list[Rule] = [
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]},
]

# --leader-elect reads, creates and renews (PUT) its Lease.
LEADER_ELECTION_RULES: list[Rule] = [
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "create", "update"]},
]

# The service source's rules per informer, so --service-type-filter can narrow them.
SERVICE_RULES: dict[str, Rule] = {
    "services": {"apiGroups": [""], "resources": ["services"], "verbs": READ},
    "pods": {"apiGroups": [""], "resources": ["pods"], "verbs": READ},
    "nodes": {"apiGroups": [""], "resources": ["nodes"], "verbs": READ},
    "endpointslices": {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": READ},
}

GATEWAY_GROUP = "gateway.networking.k8s.io"


def _gateway_rules(routes: str) -> list[Rule]:
    """A gateway route source: its routes, the Gateways they attach to, Namespaces (allowedRoutes selector)."""
    return [{"apiGroups": [GATEWAY_GROUP], "resources": [routes, "gateways"], "verbs": READ},
            {"apiGroups": [""], "resources": ["namespaces"], "verbs": READ}]


SOURCE_RULES: dict[str, list[Rule]] = {
    "service": list(SERVICE_RULES.values()),
    "ingress": [{"apiGroups": ["networking.k8s.io"], "resources": ["ingresses"], "verbs": READ}],
    "crd": [
        {"apiGroups": ["externaldns.k8s.io"], "resources": ["dnsendpoints"], "verbs": READ},
        # the crd source writes status.observedGeneration (a PUT)
        {"apiGroups": ["externaldns.k8s.io"], "resources": ["dnsendpoints/status"], "verbs": ["update"]},
    ],
    "manifest": [],
    "gateway-httproute": _gateway_rules("httproutes"),
    "gateway-grpcroute": _gateway_rules("grpcroutes"),
    "gateway-tlsroute": _gateway_rules("tlsroutes"),
    "gateway-tcproute": _gateway_rules("tcproutes"),
    "gateway-udproute": _gateway_rules("udproutes"),
    "node": [{"apiGroups": [""], "resources": ["nodes"], "verbs": READ}],
    # pods, and the nodes of hostNetwork pods
    "pod": [{"apiGroups": [""], "resources": ["pods", "nodes"], "verbs": READ}],
    # The DNSRecord controller (controller/dnsrecord): informer reads, its finalizer through a merge PATCH,
    # status through PUT .../status.
    "dnsrecord": [
        {"apiGroups": ["kuadrant.io"], "resources": ["dnsrecords"], "verbs": [*READ, "patch"]},
        {"apiGroups": ["kuadrant.io"], "resources": ["dnsrecords/status"], "verbs": ["update"]},
    ],
}


def service_informer_resources(service_types: Iterable[str] = ()) -> list[str]:
    """The resources the service source watches for these `--service-type-filter` values (empty = all):
    Services always; Pods and EndpointSlices for ClusterIP (headless) and NodePort
    (externalTrafficPolicy: Local); Nodes for NodePort only, as Go's service source (a headless Service's
    NodeExternalIP targets then need NodePort in the filter: without it they are skipped with a warning).
    So a filter without NodePort needs no cluster-scoped read (the chart's `namespaced`)."""
    types = set(service_types) or {"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"}
    out = ["services"]
    if types & {"ClusterIP", "NodePort"}:
        out += ["pods", "endpointslices"]
    if "NodePort" in types:
        out.append("nodes")
    return out


def merge_rules(rules: Iterable[Rule]) -> list[Rule]:
    """One rule per (apiGroup, verbs[, resourceNames]); resources sorted; first-seen order kept."""
    merged: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for rule in rules:
        verbs = tuple(rule["verbs"])
        names = tuple(rule.get("resourceNames", ()))
        for group in rule["apiGroups"]:
            resources = merged.setdefault((group, verbs, names), [])
            for resource in rule["resources"]:
                if resource not in resources:
                    resources.append(resource)
    out: list[Rule] = []
    for (group, verbs, names), resources in merged.items():
        merged_rule: Rule = {"apiGroups": [group], "resources": sorted(resources), "verbs": list(verbs)}
        if names:
            merged_rule["resourceNames"] = list(names)
        out.append(merged_rule)
    return out


# --gateway-listener-sets: the gateway sources also read ListenerSets (in every namespace).
LISTENER_SET_RULES: list[Rule] = [{"apiGroups": [GATEWAY_GROUP], "resources": ["listenersets"], "verbs": READ}]


def rules_for_sources(names: Iterable[str], *, service_types: Sequence[str] = (),
                      leader_election: bool = False, listener_sets: bool = False) -> list[Rule]:
    """The ClusterRole rules for running these sources plus what every run needs (and the Lease rule with
    `leader_election`), merged (`merge_rules`). `service_types` narrows the service source as
    `--service-type-filter` narrows its informers; `listener_sets` (--gateway-listener-sets) adds the
    ListenerSets the gateway sources then read. ValueError names an unknown source."""
    wanted = list(dict.fromkeys(n for n in names if n))
    unknown = [n for n in wanted if n not in SOURCE_RULES]
    if unknown:
        raise ValueError(f"no RBAC rules for source(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(SOURCE_RULES))})")
    rules: list[Rule] = []
    for name in wanted:
        if name == "service":
            rules += [SERVICE_RULES[r] for r in service_informer_resources(service_types)]
        else:
            rules += SOURCE_RULES[name]
        if listener_sets and name.startswith("gateway-"):
            rules += LISTENER_SET_RULES
    rules += ALWAYS_RULES
    if leader_election:
        rules += LEADER_ELECTION_RULES
    return merge_rules(rules)


def rbac_document() -> dict[str, Any]:
    """Every rule, grouped as the chart's files/rbac-rules.yaml holds them."""
    return {
        "clusterScopedResources": list(CLUSTER_SCOPED_RESOURCES),
        "always": [dict(r) for r in ALWAYS_RULES],
        "leaderElection": [dict(r) for r in LEADER_ELECTION_RULES],
        "gatewayListenerSets": [dict(r) for r in LISTENER_SET_RULES],
        "sources": {name: [dict(r) for r in rules] for name, rules in SOURCE_RULES.items()},
    }


def cluster_role(name: str, rules: list[Rule]) -> dict[str, Any]:
    """A ClusterRole manifest holding `rules`."""
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
            "rules": rules}


if __name__ == "__main__":  # the printer was `python -m external_dns.sources.rbac`; commands live in cmd/
    import sys

    print("external_dns.sources.rbac: the printer moved: run `external-dns rbac SOURCE...` (same arguments)",
          file=sys.stderr)
    raise SystemExit(2)
