"""Resource catalogue of the test API server: which kinds exist, their URLs, scope and subresources.

One `ResourceType` per served resource; the discovery documents (`/api`, `/apis`, `/api/v1`,
`/apis/<group>/<version>`) and the router are derived from `RESOURCES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True)
class ResourceType:
    """One served resource (group/version/plural) and the knobs that shape its semantics."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    status_subresource: bool = False
    builtin: bool = True
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    singular: str = ""
    # Where the DNS-1123 subdomain rule is too lax: "label" (RFC 1123 label) or "dns1035".
    name_rule: str = "subdomain"
    # Does a DELETE that removes the object at once answer with the object (else a Status)?
    return_deleted_object: bool = False
    # Extra fieldSelector labels beyond metadata.name / metadata.namespace.
    field_labels: tuple[str, ...] = ()
    # Fields holding MicroTime values (dotted paths), which must carry exactly 6 fraction digits.
    micro_time_fields: tuple[str, ...] = ()
    # Does a PUT to a missing object create it (201), as the real server's strategy allows for Services?
    create_on_update: bool = False
    # Does the server keep metadata.generation (bumped on spec changes)? Services have none.
    generation: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def gvk(self) -> tuple[str, str]:
        return (self.api_version, self.kind)

    @property
    def group_resource(self) -> str:
        """`plural` or `plural.group`, as the API server names resources in messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()


RESOURCES: tuple[ResourceType, ...] = (
    ResourceType("", "v1", "Namespace", "namespaces", False, status_subresource=True, short_names=("ns",),
                 name_rule="label", return_deleted_object=True, field_labels=("status.phase",)),
    ResourceType("", "v1", "Service", "services", True, status_subresource=True, short_names=("svc",),
                 name_rule="label", return_deleted_object=True, field_labels=("spec.clusterIP", "spec.type"),
                 create_on_update=True, generation=False),
    ResourceType("", "v1", "Event", "events", True, short_names=("ev",),
                 field_labels=("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                               "involvedObject.uid", "involvedObject.apiVersion",
                               "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
                               "reportingComponent", "type"),
                 micro_time_fields=("eventTime", "series.lastObservedTime")),
    ResourceType("", "v1", "Pod", "pods", True, status_subresource=True, short_names=("po",),
                 return_deleted_object=True,
                 field_labels=("spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                               "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
                               "status.nominatedNodeName")),
    ResourceType("", "v1", "Node", "nodes", False, status_subresource=True, short_names=("no",),
                 field_labels=("spec.unschedulable",)),
    ResourceType("", "v1", "Endpoints", "endpoints", True, short_names=("ep",), singular="endpoints"),
    ResourceType("", "v1", "ConfigMap", "configmaps", True, short_names=("cm",)),
    ResourceType("", "v1", "Secret", "secrets", True, field_labels=("type",)),
    ResourceType("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", True,
                 field_labels=("addressType",)),
    ResourceType("networking.k8s.io", "v1", "Ingress", "ingresses", True, status_subresource=True,
                 short_names=("ing",)),
    ResourceType("externaldns.k8s.io", "v1alpha1", "DNSEndpoint", "dnsendpoints", True,
                 status_subresource=True, builtin=False, return_deleted_object=True),
    ResourceType("kuadrant.io", "v1alpha1", "DNSRecord", "dnsrecords", True, status_subresource=True,
                 builtin=False, return_deleted_object=True),
    ResourceType("coordination.k8s.io", "v1", "Lease", "leases", True,
                 micro_time_fields=("spec.acquireTime", "spec.renewTime")),
    ResourceType("events.k8s.io", "v1", "Event", "events", True, short_names=("ev",),
                 field_labels=("regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
                               "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath",
                               "reason", "reportingController", "type"),
                 micro_time_fields=("eventTime", "series.lastObservedTime")),
    # Gateway API (schemas in gateway_api.py): v1 standard channel, v1alpha2 experimental routes. As the upstream
    # CRDs: every kind is in the "gateway-api" category (`kubectl get gateway-api`), Gateway has short name "gtw".
    *(ResourceType("gateway.networking.k8s.io", version, kind, kind.lower() + "s", True, status_subresource=True,
                   builtin=False, return_deleted_object=True, categories=("gateway-api",),
                   short_names=("gtw",) if kind == "Gateway" else ())
      for version, kind in (("v1", "Gateway"), ("v1", "HTTPRoute"), ("v1", "GRPCRoute"), ("v1", "ListenerSet"),
                            ("v1alpha2", "TLSRoute"), ("v1alpha2", "TCPRoute"), ("v1alpha2", "UDPRoute"))),
)

BY_GVK: dict[tuple[str, str], ResourceType] = {r.gvk: r for r in RESOURCES}
BY_PATH: dict[tuple[str, str, str], ResourceType] = {(r.group, r.version, r.plural): r for r in RESOURCES}


def lookup_kind(api_version: str, kind: str) -> ResourceType:
    """The resource serving `kind` in `api_version`; KeyError naming both when unknown."""
    try:
        return BY_GVK[(api_version, kind)]
    except KeyError:
        raise KeyError(f"no resource for apiVersion={api_version!r} kind={kind!r}") from None


def group_versions() -> dict[str, list[str]]:
    """Group name -> versions served (core group is "")."""
    out: dict[str, list[str]] = {}
    for r in RESOURCES:
        versions = out.setdefault(r.group, [])
        if r.version not in versions:
            versions.append(r.version)
    return out


def resource_list(group: str, version: str) -> dict[str, Any] | None:
    """The APIResourceList discovery document for one group/version, or None if not served."""
    items = [r for r in RESOURCES if r.group == group and r.version == version]
    if not items:
        return None
    resources: list[dict[str, Any]] = []
    for r in items:
        entry: dict[str, Any] = {
            "name": r.plural,
            "singularName": r.singular_name,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": list(ALL_VERBS),
        }
        if r.short_names:
            entry["shortNames"] = list(r.short_names)
        if r.categories:
            entry["categories"] = list(r.categories)
        resources.append(entry)
        if r.status_subresource:
            resources.append({"name": f"{r.plural}/status", "singularName": "", "namespaced": r.namespaced,
                              "kind": r.kind, "verbs": ["get", "patch", "update"]})
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version, "resources": resources}


def api_group(group: str) -> dict[str, Any] | None:
    """The APIGroup discovery document for a named group, or None."""
    versions = group_versions().get(group)
    if not group or versions is None:
        return None
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": gvs, "preferredVersion": gvs[0]}


def api_group_list() -> dict[str, Any]:
    """The APIGroupList served at /apis."""
    groups = [api_group(g) for g in group_versions() if g]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [g for g in groups if g is not None]}
