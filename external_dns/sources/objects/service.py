"""Service -> endpoints (external-dns `source/service.go`), on raw dicts.

`service_endpoints(svc, options, nodes=, pods=, endpoint_slices=)` handles one Service; the related Nodes,
Pods and EndpointSlices are passed in (any namespaces: they are filtered here), so the same code serves the
manifest source and informer-backed sources. `merge_service_endpoints(all_endpoints)` is the source-level
step after every Service: endpoints of equal key from several Services merge their targets into the one
whose `resource` label sorts first, then `merge_endpoints`.

Targets per host name (unless the `target` annotation gives them):
- LoadBalancer: `spec.externalIPs`, else every `status.loadBalancer.ingress[].ip` / `.hostname` (host names
  resolved to IPs with `resolve_load_balancer_hostname`); internal host names -> `spec.clusterIP`.
- ClusterIP: headless (`clusterIP: None`) -> per-pod records through EndpointSlices; else the ClusterIP for
  internal host names or with `publish_internal_services`.
- NodePort: node addresses (`access` annotation; `externalTrafficPolicy: Local` -> only nodes running the
  service's pods, best readiness tier first; unschedulable nodes skipped) plus one SRV record per node port.
- ExternalName: `spec.externalIPs`, else `spec.externalName` (CNAME).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import dns.exception
import structlog

from external_dns.endpoint.endpoint import (
    RECORD_TYPE_CNAME,
    RECORD_TYPE_SRV,
    RESOURCE_LABEL_KEY,
    Endpoint,
    new_endpoint,
)
from external_dns.endpoint.targets import new_targets
from external_dns.endpoint.utils import endpoints_for_hostname, merge_endpoints, suitable_type
from external_dns.sources.annotations import (
    ACCESS_PRIVATE,
    ACCESS_PUBLIC,
    ENDPOINTS_TYPE_HOST_IP,
    ENDPOINTS_TYPE_NODE_EXTERNAL_IP,
    ParsedAnnotations,
    annotation_targets,
    parse_annotations,
    target_problem,
)
from external_dns.sources.compat import (
    KOPS_EXTERNAL,
    KOPS_INTERNAL,
    KOPS_NODE_ROLE,
    MATE_HOSTNAME,
    MOLECULE_HOSTNAME,
    MOLECULE_LABEL,
    split_hosts,
)
from external_dns.sources.objects.common import (
    FieldError,
    ObjectEndpoints,
    admitted,
    attach,
    collect_objects,
    get_list,
    get_map,
    get_str,
    name_and_namespace,
    run_object,
    string_map,
    template_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem, object_ref
from external_dns.sources.selector import selector_from_set

log = structlog.get_logger(__name__)

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
_RESOLVE_TIMEOUT = 5.0


def default_resolver(hostname: str) -> list[str]:
    """A and AAAA addresses of `hostname` (dnspython, 5 s lifetime per query); raises on failure of both."""
    import dns.resolver  # its import (~10 ms) only when a service needs a hostname resolved

    out: list[str] = []
    errors: list[str] = []
    for rdtype in ("A", "AAAA"):
        try:
            answer = dns.resolver.resolve(hostname, rdtype, lifetime=_RESOLVE_TIMEOUT)
        except (dns.resolver.NoAnswer, dns.resolver.NXDOMAIN) as exc:
            errors.append(str(exc))
            continue
        except dns.exception.DNSException as exc:
            errors.append(str(exc))
            continue
        out.extend(r.to_text() for r in answer)
    if not out and errors:
        raise LookupError(f"unable to resolve {hostname!r}: {'; '.join(errors)}")
    return out


class _Service:
    """The state of one service_endpoints call."""

    def __init__(self, svc: Mapping[str, Any], options: SourceOptions, nodes: Sequence[Mapping[str, Any]],
                 pods: Sequence[Mapping[str, Any]], slices: Sequence[Mapping[str, Any]], ref: str) -> None:
        self.svc = svc
        self.options = options
        self.nodes = nodes
        self.pods = pods
        self.slices = slices
        self.ref = ref
        self.name, self.namespace = name_and_namespace(svc)
        self.resource = f"service/{self.namespace}/{self.name}"
        self.spec = get_map(svc, "spec")
        self.type = get_str(svc, "spec.type") or "ClusterIP"
        self.problems: list[Problem] = []
        self.ann = ParsedAnnotations()
        self._targets: dict[str, list[str]] = {}

    # -- entry ------------------------------------------------------------------------------------------
    def run(self) -> list[Endpoint]:
        opts = self.options
        if not admitted(self.svc, opts):
            return []
        if opts.service_type_filter and self.type not in opts.service_type_filter:
            return []
        self.ann = parse_annotations(string_map(self.svc, "metadata.annotations"), opts.annotation_prefix,
                                     self.ref, self.svc)
        if not self.ann.controller_matches():
            log.debug(f"Skipping service {self.namespace}/{self.name} because controller value does not "
                      f"match, found: {self.ann.controller}, required: dns-controller")
            return []
        self.problems.extend(self.ann.problems)
        endpoints: list[Endpoint] = []
        if not opts.ignore_hostname_annotation:
            for hostname in self.ann.hostnames:
                endpoints.extend(self.generate(hostname, use_cluster_ip=False))
            for hostname in self.ann.internal_hostnames:
                endpoints.extend(self.generate(hostname, use_cluster_ip=True))
        if not endpoints and opts.compatibility:  # as external-dns: legacy names only when ours give none
            endpoints = self.legacy(opts.compatibility)
        endpoints, problems = template_endpoints(
            self.svc, opts, "Service", self.ref, endpoints,
            own=lambda host: self.generate(host, use_cluster_ip=False),
            with_targets=lambda host, targets: endpoints_for_hostname(
                host, targets, self.ann.ttl, self.ann.provider_specific, self.ann.set_identifier, self.resource))
        self.problems.extend(problems)
        if not endpoints:
            log.debug(f"No endpoints could be generated from service {self.namespace}/{self.name}")
        return attach(endpoints, self.svc, self.resource)

    def once(self, what: str, compute: Callable[[], list[str]]) -> list[str]:
        """Targets are the same for every host name of the service: compute (and report problems) once."""
        if what not in self._targets:
            self._targets[what] = compute()
        return list(self._targets[what])

    def generate(self, hostname: str, *, use_cluster_ip: bool) -> list[Endpoint]:
        ann = self.ann
        targets = list(ann.targets)
        extra: list[Endpoint] = []
        if not targets:
            if self.type == "LoadBalancer":
                targets = self.once("cluster", self.cluster_ips) if use_cluster_ip else self.once(
                    "lb", self.load_balancer_targets)
            elif self.type == "ClusterIP":
                if get_str(self.svc, "spec.clusterIP") == "None":
                    extra = self.headless(hostname)
                elif use_cluster_ip or self.options.publish_internal_services:
                    targets = self.once("cluster", self.cluster_ips)
            elif self.type == "NodePort":
                targets = self.once("nodes", self.node_port_targets)
                extra = self.node_port_srv(hostname)
            elif self.type == "ExternalName":
                targets = self.once("external", self.external_name_targets)
            for ep in extra:
                ep.provider_specific = ann.copy_provider_specific()
                ep.set_identifier = ann.set_identifier
        return extra + endpoints_for_hostname(hostname, targets, ann.ttl, ann.provider_specific,
                                              ann.set_identifier, self.resource)

    # -- target helpers -----------------------------------------------------------------------------------
    def checked(self, targets: Iterable[str], field: str) -> list[str]:
        out: list[str] = []
        for t in targets:
            problem = target_problem(t)
            if problem is None:
                out.append(t)
            else:
                self.problems.append(Problem(self.ref, field, t, f"target skipped: {problem}", obj=self.svc))
        return out

    def strings(self, path: str) -> list[str]:
        items = get_list(self.svc, path)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise FieldError(f"{path}[{i}]", item, "must be a string")
        return [s for s in items if s]

    def cluster_ips(self) -> list[str]:
        ip = get_str(self.svc, "spec.clusterIP")
        if not ip or ip == "None":
            log.debug(f"Unable to associate {self.name} headless service with a Cluster IP")
            return []
        return self.checked([ip], "spec.clusterIP")

    def load_balancer_targets(self) -> list[str]:
        external = self.strings("spec.externalIPs")
        if external:
            return self.checked(external, "spec.externalIPs")
        out: list[str] = []
        for i, ing in enumerate(get_list(self.svc, "status.loadBalancer.ingress")):
            if not isinstance(ing, Mapping):
                raise FieldError(f"status.loadBalancer.ingress[{i}]", ing, "must be an object")
            where = f"status.loadBalancer.ingress[{i}]"
            ip = get_str(ing, "ip", at=where)
            if ip:
                out.extend(self.checked([ip], where + ".ip"))
            host = get_str(ing, "hostname", at=where)
            if host:
                if self.options.resolve_load_balancer_hostname:
                    out.extend(self.resolve(host, where + ".hostname"))
                else:
                    out.extend(self.checked([host], where + ".hostname"))
        return out

    def resolve(self, host: str, field: str) -> list[str]:
        resolver = self.options.resolver or default_resolver
        try:
            return self.checked(resolver(host), field)
        except (LookupError, OSError, dns.exception.DNSException) as exc:
            self.problems.append(Problem(self.ref, field, host, f"unable to resolve: {exc}", obj=self.svc))
            return []

    def external_name_targets(self) -> list[str]:
        external = self.strings("spec.externalIPs")
        if external:
            return self.checked(external, "spec.externalIPs")
        name = get_str(self.svc, "spec.externalName")
        return self.checked([name[:-1] if name.endswith(".") else name], "spec.externalName") if name else []

    # -- --compatibility (sources/compat.py) ------------------------------------------------------------------
    def legacy(self, mode: str) -> list[Endpoint]:
        annotations = string_map(self.svc, "metadata.annotations")
        hosts: list[str] = []
        if mode == "mate" and MATE_HOSTNAME in annotations:
            hosts = [annotations[MATE_HOSTNAME]]
        elif mode == "molecule" and string_map(self.svc, "metadata.labels").get(MOLECULE_LABEL[0]) == \
                MOLECULE_LABEL[1] and MOLECULE_HOSTNAME in annotations:
            hosts = split_hosts(annotations[MOLECULE_HOSTNAME])
        elif mode == "kops-dns-controller":
            external, internal = annotations.get(KOPS_EXTERNAL), annotations.get(KOPS_INTERNAL)
            if self.type == "NodePort":
                if (external is None) == (internal is None):  # neither, or both: none, as dns-controller
                    return []
                targets = self.kops_node_targets(external is not None)
                return [ep for host in split_hosts(external if external is not None else internal or "")
                        for ep in endpoints_for_hostname(host, targets, resource=self.resource)]
            if self.type == "LoadBalancer":
                hosts = split_hosts(external or "") + split_hosts(internal or "")
        targets = self.once("legacy-lb", self.legacy_lb_targets) if hosts else []
        return [ep for host in hosts for ep in endpoints_for_hostname(host, targets, resource=self.resource)]

    def legacy_lb_targets(self) -> list[str]:
        """Every `status.loadBalancer.ingress[]` ip and hostname (not resolved, no externalIPs)."""
        out: list[str] = []
        for i, ing in enumerate(get_list(self.svc, "status.loadBalancer.ingress")):
            where = f"status.loadBalancer.ingress[{i}]"
            if not isinstance(ing, Mapping):
                raise FieldError(where, ing, "must be an object")
            for key in ("ip", "hostname"):
                value = get_str(ing, key, at=where)
                if value:
                    out.extend(self.checked([value], f"{where}.{key}"))
        return out

    def kops_node_targets(self, external: bool) -> list[str]:
        """Addresses of the nodes with the kOps `node` role: ExternalIPs (and IPv6 InternalIPs with
        --expose-internal-ipv6) for `external`, InternalIPs for `internal`."""
        out: list[str] = []
        for node in self.nodes:
            if not isinstance(node, Mapping) or KOPS_NODE_ROLE not in string_map(node, "metadata.labels"):
                continue
            for addr in get_list(node, "status.addresses"):
                if not isinstance(addr, Mapping) or not isinstance(addr.get("address"), str):
                    continue
                kind, value = addr.get("type"), addr["address"]
                if (external and (kind == "ExternalIP" or (self.options.expose_internal_ipv6 and kind == "InternalIP"
                                                          and suitable_type(value) == "AAAA"))) or (not external and kind == "InternalIP"):
                    out.append(value)
        return self.checked(out, "status.addresses")

    # -- NodePort ------------------------------------------------------------------------------------------
    def namespace_pods(self) -> list[Mapping[str, Any]]:
        return [p for p in self.pods if isinstance(p, Mapping)
                and (get_map(p, "metadata").get("namespace") or "") == self.namespace]

    def local_nodes(self, by_name: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        selector_map = string_map(self.svc, "spec.selector")
        if not selector_map:
            return []
        selector = selector_from_set(selector_map)
        running: dict[str, Mapping[str, Any]] = {}
        ready: dict[str, Mapping[str, Any]] = {}
        serving: dict[str, Mapping[str, Any]] = {}
        for pod in self.namespace_pods():
            if not selector.matches(string_map(pod, "metadata.labels")):
                continue
            if get_str(pod, "status.phase") != "Running":
                continue
            node_name = get_str(pod, "spec.nodeName")
            node = by_name.get(node_name)
            if node is None:
                log.debug(f"Unable to find node where Pod {get_str(pod, 'metadata.name')} is running")
                continue
            running.setdefault(node_name, node)
            if _pod_ready(pod):
                ready.setdefault(node_name, node)
                if not get_map(pod, "metadata").get("deletionTimestamp"):
                    serving.setdefault(node_name, node)
        for tier in (serving, ready, running):
            if tier:
                return list(tier.values())
        return []

    def node_port_targets(self) -> list[str]:
        by_name = {get_str(n, "metadata.name"): n for n in self.nodes if isinstance(n, Mapping)}
        if get_str(self.svc, "spec.externalTrafficPolicy") == "Local":
            nodes = self.local_nodes(by_name)
        else:
            nodes = list(by_name.values())
        internal: list[str] = []
        external: list[str] = []
        ipv6: list[str] = []
        for node in nodes:
            if get_map(node, "spec").get("unschedulable") is True and self.options.exclude_unschedulable:
                log.debug(f"Skipping node {get_str(node, 'metadata.name')} since it is unschedulable")
                continue
            for addr in get_list(node, "status.addresses"):
                if not isinstance(addr, Mapping):
                    continue
                kind, value = addr.get("type"), addr.get("address")
                if not isinstance(value, str) or not value:
                    continue
                if kind == "ExternalIP":
                    external.append(value)
                elif kind == "InternalIP":
                    internal.append(value)
                    if suitable_type(value) == "AAAA":
                        ipv6.append(value)
        extra_v6 = ipv6 if self.options.expose_internal_ipv6 else []
        if self.ann.access == ACCESS_PUBLIC:
            return external + extra_v6
        if self.ann.access == ACCESS_PRIVATE:
            return internal
        if external:
            return external + extra_v6
        return internal

    def node_port_srv(self, hostname: str) -> list[Endpoint]:
        out: list[Endpoint] = []
        for i, port in enumerate(get_list(self.svc, "spec.ports")):
            if not isinstance(port, Mapping):
                raise FieldError(f"spec.ports[{i}]", port, "must be an object")
            node_port = port.get("nodePort") or 0
            if isinstance(node_port, bool) or not isinstance(node_port, int):
                raise FieldError(f"spec.ports[{i}].nodePort", node_port, "must be an integer")
            if node_port <= 0:
                continue
            protocol = (get_str(port, "protocol", at=f"spec.ports[{i}]") or "tcp").lower()
            ep = new_endpoint(f"_{self.name}._{protocol}.{hostname}", RECORD_TYPE_SRV,
                              f"0 50 {node_port} {hostname}.", ttl=self.ann.ttl)
            if ep is not None:
                out.append(ep)
        return out

    # -- headless ------------------------------------------------------------------------------------------
    def headless(self, hostname: str) -> list[Endpoint]:
        opts = self.options
        endpoints_type = self.ann.endpoints_type
        publish_pod_ips = endpoints_type not in (ENDPOINTS_TYPE_NODE_EXTERNAL_IP, ENDPOINTS_TYPE_HOST_IP) \
            and not opts.publish_host_ip
        publish_not_ready = self.spec.get("publishNotReadyAddresses") is True \
            or opts.always_publish_not_ready_addresses
        pods = {get_str(p, "metadata.name"): p for p in self.namespace_pods()}
        nodes = {get_str(n, "metadata.name"): n for n in self.nodes if isinstance(n, Mapping)}
        by_key: dict[tuple[str, str], list[str]] = {}
        pod_targets: dict[str, list[str]] = {}
        for es in self.slices:
            if not isinstance(es, Mapping):
                continue
            if (get_map(es, "metadata").get("namespace") or "") != self.namespace:
                continue
            if string_map(es, "metadata.labels").get(SERVICE_NAME_LABEL) != self.name:
                continue
            address_type = get_str(es, "addressType")
            es_name = get_str(es, "metadata.name")
            for ep in get_list(es, "endpoints"):
                if not isinstance(ep, Mapping):
                    continue
                ready = get_map(ep, "conditions").get("ready")
                if ready is False and not publish_not_ready:
                    continue
                if publish_pod_ips and address_type not in ("IPv4", "IPv6"):
                    log.debug(f"Skipping EndpointSlice {self.namespace}/{es_name} because its address type "
                              f"is unsupported: {address_type}")
                    continue
                target_ref = get_map(ep, "targetRef")
                if target_ref.get("kind") != "Pod":
                    continue
                pod_name = str(target_ref.get("name") or "")
                pod = pods.get(pod_name)
                if pod is None:
                    log.debug(f"Get pod {pod_name} of namespace {self.namespace}: not found")
                    continue
                domains = [hostname]
                pod_hostname = get_str(pod, "spec.hostname")
                if pod_hostname:
                    domains.append(f"{pod_hostname}.{hostname}")
                if pod_name not in pod_targets:
                    targets, problems = annotation_targets(string_map(pod, "metadata.annotations"),
                                                           opts.annotation_prefix,
                                                           object_ref(pod, "pod"), pod)
                    self.problems.extend(problems)
                    pod_targets[pod_name] = targets
                targets = list(pod_targets[pod_name])
                if not targets:
                    if endpoints_type == ENDPOINTS_TYPE_NODE_EXTERNAL_IP:
                        if opts.service_type_filter and "NodePort" not in opts.service_type_filter:
                            # as Go: Nodes are watched for NodePort only (sources/rbac.py), so no node is known
                            log.warning(f"Skipping EndpointSlice {self.namespace}/{es_name}: NodeExternalIP "
                                        "targets need the Nodes, which --service-type-filter without NodePort "
                                        "does not watch")
                            break
                        node = nodes.get(get_str(pod, "spec.nodeName"))
                        if node is None:
                            log.debug(f"Get node of pod {pod_name}: not found")
                            continue
                        for addr in get_list(node, "status.addresses"):
                            if not isinstance(addr, Mapping) or not isinstance(addr.get("address"), str):
                                continue
                            if addr.get("type") == "ExternalIP" or (
                                    opts.expose_internal_ipv6 and addr.get("type") == "InternalIP"
                                    and suitable_type(addr["address"]) == "AAAA"):
                                targets.append(addr["address"])
                    elif endpoints_type == ENDPOINTS_TYPE_HOST_IP or opts.publish_host_ip:
                        host_ip = get_str(pod, "status.hostIP")
                        targets = [host_ip] if host_ip else []
                    else:
                        addresses = [a for a in get_list(ep, "addresses") if isinstance(a, str) and a]
                        if not addresses:
                            log.warning(f"EndpointSlice {self.namespace}/{es_name} has no addresses for "
                                        f"endpoint of pod {pod_name}")
                            continue
                        targets = [addresses[0]]
                for domain in domains:
                    for target in targets:
                        by_key.setdefault((domain, suitable_type(target)), []).append(target)
        out: list[Endpoint] = []
        for (domain, rtype) in sorted(by_key):
            unique = list(dict.fromkeys(by_key[(domain, rtype)]))
            ep = new_endpoint(domain, rtype, *unique, ttl=self.ann.ttl)
            if ep is not None:
                out.append(ep)
        return out


def _pod_ready(pod: Mapping[str, Any]) -> bool:
    for cond in get_list(pod, "status.conditions"):
        if isinstance(cond, Mapping) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


def service_endpoints(svc: Mapping[str, Any], options: SourceOptions, *,
                      nodes: Sequence[Mapping[str, Any]] = (), pods: Sequence[Mapping[str, Any]] = (),
                      endpoint_slices: Sequence[Mapping[str, Any]] = ()) -> ObjectEndpoints:
    """Endpoints of one Service (empty when filtered out or not ours) and the problems found. A malformed
    object gives no endpoints and one error problem naming the field."""
    ref = object_ref(svc, "service")
    return run_object(svc, ref, lambda: _Service(svc, options, nodes, pods, endpoint_slices, ref))


def merge_service_endpoints(endpoints: Iterable[Endpoint], copy: bool = True) -> list[Endpoint]:
    """The service source's final step over all services (inputs are not modified: an endpoint is copied
    before its targets change; with `copy=False` the caller hands over endpoints built for this call, which
    are reused and changed instead)."""
    eps = sorted(endpoints, key=lambda e: e.labels.get(RESOURCE_LABEL_KEY, ""))
    if len(eps) > 1:
        merged: dict[tuple[str, str, str], list[Endpoint]] = {}
        for ep in eps:
            key = ep.key()
            existing = merged.get(key)
            if existing is None:
                normal = new_targets(*ep.targets)
                if normal != ep.targets:
                    ep = ep.copy() if copy else ep
                    ep.targets = normal
                merged[key] = [ep]
            elif existing[0].record_type == RECORD_TYPE_CNAME:
                log.debug(f"CNAME {ep.dns_name} with multiple targets found")
                existing.append(ep)
            else:
                first = existing[0].copy() if copy else existing[0]
                existing[0] = first
                first.targets = new_targets(*first.targets, *ep.targets)
                for ref in ep.ref_objects:
                    if not any(ref is r for r in first.ref_objects):
                        first.ref_objects.append(ref)
        eps = [ep for group in merged.values() for ep in group]
        eps.sort(key=lambda e: (e.dns_name, e.record_type))
    return merge_endpoints(eps, copy=copy)




def _meta_str(obj: Mapping[str, Any], key: str) -> str:
    meta = obj.get("metadata")
    value = meta.get(key) if isinstance(meta, Mapping) else None
    return value if isinstance(value, str) else ""


def collect_service_endpoints(services: Iterable[Mapping[str, Any]], options: SourceOptions, *,
                              nodes: Sequence[Mapping[str, Any]] = (), pods: Sequence[Mapping[str, Any]] = (),
                              endpoint_slices: Sequence[Mapping[str, Any]] = ()) -> ObjectEndpoints:
    """What a service source returns for all its Services: every service's endpoints, then
    `merge_service_endpoints`; problems of all services. Pods and EndpointSlices are grouped once (by
    namespace, and by service name for slices) so each service only looks at its own."""
    pods_by_ns: dict[str, list[Mapping[str, Any]]] = {}
    for p in pods:
        if isinstance(p, Mapping):
            pods_by_ns.setdefault(_meta_str(p, "namespace"), []).append(p)
    slices_by_service: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for es in endpoint_slices:
        if isinstance(es, Mapping):
            labels = es.get("metadata", {}).get("labels") if isinstance(es.get("metadata"), Mapping) else None
            owner = labels.get(SERVICE_NAME_LABEL) if isinstance(labels, Mapping) else None
            if isinstance(owner, str):
                slices_by_service.setdefault((_meta_str(es, "namespace"), owner), []).append(es)

    def one(svc: Mapping[str, Any]) -> ObjectEndpoints:
        ns, name = _meta_str(svc, "namespace"), _meta_str(svc, "name")
        return service_endpoints(svc, options, nodes=nodes, pods=pods_by_ns.get(ns, ()),
                                 endpoint_slices=slices_by_service.get((ns, name), ()))

    return collect_objects(services, one, merge_service_endpoints)


__all__ = ["collect_service_endpoints", "default_resolver", "merge_service_endpoints", "service_endpoints"]
