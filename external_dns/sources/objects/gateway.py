"""Gateway API routes (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute) -> endpoints, on raw dicts
(external-dns's gateway-*route sources): a route's host names, intersected with the host names of the
listeners of the Gateways that accepted it, get those Gateways' addresses. With --gateway-listener-sets a
parent may also be a ListenerSet (Gateway API v1.5): its own listeners, its parent Gateway's addresses (or
its own `target` annotation). Each rule sits beside the method implementing it (`route_hosts`, `run` for
parents, `listener_set_parent` for ListenerSets, `parent_hosts` for listeners, `_gateway_targets`). Bad input
is reported as a `Problem` naming the object and field, and never blocks other routes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key
from external_dns.endpoint.utils import endpoints_for_hostname, merge_endpoints
from external_dns.sources.annotations import (
    HOSTNAME_KEY,
    HOSTNAME_SOURCE_ANNOTATION_ONLY,
    HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY,
    TARGET_KEY,
    TTL_KEY,
    ParsedAnnotations,
    annotation_targets,
    hostname_problem,
    parse_annotations,
    target_problem,
)
from external_dns.sources.objects.common import (
    FieldError,
    ObjectEndpoints,
    admitted,
    attach,
    collect_objects,
    field_problem,
    get_list,
    get_map,
    get_str,
    name_and_namespace,
    run_object,
    string_map,
    template_hostnames,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem, object_ref
from external_dns.sources.selector import Selector, SelectorError, parse_selector

log = structlog.get_logger(__name__)

GATEWAY_GROUP = "gateway.networking.k8s.io"
GATEWAY_KIND = "Gateway"
LISTENER_SET_KIND = "ListenerSet"
GATEWAY_HOSTNAME_SOURCE_KEY = "gateway-hostname-source"

# route kind -> listener protocols it can attach to
ROUTE_PROTOCOLS: dict[str, tuple[str, ...]] = {
    "HTTPRoute": ("HTTP", "HTTPS"),
    "GRPCRoute": ("HTTP", "HTTPS"),
    "TLSRoute": ("TLS",),
    "TCPRoute": ("TCP",),
    "UDPRoute": ("UDP",),
}
# TCPRoute and UDPRoute have no spec.hostnames: only annotations or the template name them.
KINDS_WITH_HOSTNAMES = frozenset({"HTTPRoute", "GRPCRoute", "TLSRoute"})


@dataclass
class GatewayOptions:
    """`--gateway-name`, `--gateway-namespace`, `--gateway-label-filter` (parsed once; a bad selector raises
    SelectorError naming the option)."""

    gateway_name: str = ""
    gateway_namespace: str = ""
    gateway_label_filter: str = ""
    listener_sets: bool = False  # --gateway-listener-sets: routes attached to ListenerSets are followed
    label_selector: Selector = field(init=False, repr=False)

    def __post_init__(self) -> None:
        try:
            self.label_selector = parse_selector(self.gateway_label_filter)
        except SelectorError as exc:
            raise SelectorError(f"gateway_label_filter: {exc}") from None


@dataclass
class GatewayLookup:
    """Where a route finds its parents: `gateway(namespace, name)` and `namespace_labels(name)` (None when
    the namespace is unknown: a `Selector` then admits nothing). `complete` is False when Gateways were
    filtered before the lookup (a server-side `--gateway-label-filter`): a Gateway not found may then exist,
    so it is not reported."""

    gateway: Callable[[str, str], Mapping[str, Any] | None]
    namespace_labels: Callable[[str], Mapping[str, str] | None] = lambda _name: None
    complete: bool = True
    listener_set: Callable[[str, str], Mapping[str, Any] | None] = lambda _ns, _name: None
    # Per-Gateway results computed once per lookup (one collect pass) and shared by its routes:
    # id(gateway) -> (gateway, targets, problems). The Gateway is kept so its id cannot be reused.
    targets_memo: dict[int, tuple[Mapping[str, Any], list[str], list[Problem]]] = field(default_factory=dict)


def _by_key(objects: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], Mapping[str, Any]]:
    out: dict[tuple[str, str], Mapping[str, Any]] = {}
    for obj in objects:
        meta = obj.get("metadata") if isinstance(obj, Mapping) else None
        if isinstance(meta, Mapping):
            out[(str(meta.get("namespace") or ""), str(meta.get("name") or ""))] = obj
    return out


def lookup_from(gateways: Iterable[Mapping[str, Any]], namespaces: Iterable[Mapping[str, Any]] = (),
                listener_sets: Iterable[Mapping[str, Any]] = ()) -> GatewayLookup:
    """A GatewayLookup over lists of objects (tests, the manifest source)."""
    by_key = _by_key(gateways)
    sets = _by_key(listener_sets)
    labels: dict[str, Mapping[str, str]] = {}
    for ns in namespaces:
        meta = ns.get("metadata") if isinstance(ns, Mapping) else None
        if isinstance(meta, Mapping):
            raw = meta.get("labels")
            labels[str(meta.get("name") or "")] = raw if isinstance(raw, Mapping) else {}
    return GatewayLookup(lambda ns, name: by_key.get((ns, name)), labels.get,
                         listener_set=lambda ns, name: sets.get((ns, name)))


def _normal(host: str) -> str:
    return name_key(host)


def match_hostname(listener: str, route: str) -> str | None:
    """The host name a listener host name and a route host name share ("" when both are empty), or None
    when they do not intersect. `*.a.b` covers every name ending in `.a.b` (never `a.b` itself)."""
    a, b = _normal(listener), _normal(route)
    if not a:
        return b
    if not b or a == b:
        return a
    if len(b) < len(a) or (len(a) == len(b) and b.startswith("*.")):
        a, b = b, a
    if a.startswith("*.") and b.endswith(a[1:]):
        return b
    return None


def _condition_true(conditions: list[Any], kind: str) -> bool:
    return any(isinstance(c, Mapping) and c.get("type") == kind and c.get("status") == "True"
               for c in conditions)


def _int_or_none(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(path, value, "must be an integer")
    return value


@dataclass(frozen=True)
class _ParentRef:
    group: str
    kind: str
    namespace: str
    name: str
    section: str
    port: int | None


def _parent_ref(ref: Any, route_ns: str, at: str) -> _ParentRef:
    if not isinstance(ref, Mapping):
        raise FieldError(at, ref, "must be an object")
    return _ParentRef(get_str(ref, "group", GATEWAY_GROUP, at=at) or GATEWAY_GROUP,
                      get_str(ref, "kind", GATEWAY_KIND, at=at) or GATEWAY_KIND,
                      get_str(ref, "namespace", at=at) or route_ns, get_str(ref, "name", at=at),
                      get_str(ref, "sectionName", at=at), _int_or_none(ref.get("port"), f"{at}.port"))


class _Route:
    def __init__(self, route: Mapping[str, Any], kind: str, options: SourceOptions, gw_options: GatewayOptions,
                 lookup: GatewayLookup) -> None:
        self.route = route
        self.kind = kind
        self.options = options
        self.gw_options = gw_options
        self.lookup = lookup
        self.ref = object_ref(route, kind)
        self.name, self.namespace = name_and_namespace(route)
        self.resource = f"{kind.lower()}/{self.namespace}/{self.name}"  # the `resource` label
        self.problems: list[Problem] = []
        self.ann = ParsedAnnotations()

    def problem(self, field_path: str, value: str, message: str) -> None:
        self.problems.append(Problem(self.ref, field_path, value, message, obj=self.route))

    # -- host names -------------------------------------------------------------------------------------------
    def spec_hosts(self) -> list[str]:
        if self.kind not in KINDS_WITH_HOSTNAMES:
            return []
        out: list[str] = []
        for i, host in enumerate(get_list(self.route, "spec.hostnames")):
            if not isinstance(host, str):
                raise FieldError(f"spec.hostnames[{i}]", host, "must be a string")
            host = _normal(host)
            problem = hostname_problem(host) if host else "empty host name"
            if problem is not None:
                self.problem(f"spec.hostnames[{i}]", host, f"hostname skipped: {problem}")
            elif host not in out:
                out.append(host)
        return out

    def route_hosts(self) -> list[str]:
        """The route's own host names; [""] when it has none (each listener's host name is used then).
        `spec.hostnames` (HTTPRoute, GRPCRoute, TLSRoute) and the `hostname` annotation (unless
        --ignore-hostname-annotation), narrowed by the route's `gateway-hostname-source` annotation; the FQDN
        template when nothing else gave a name, or always with --combine-fqdn-annotation."""
        opts = self.options
        spec = self.spec_hosts()
        annotated = [] if opts.ignore_hostname_annotation else list(self.ann.hostnames)
        raw_source = string_map(self.route, "metadata.annotations").get(
            opts.annotation_prefix + GATEWAY_HOSTNAME_SOURCE_KEY)
        source = None if raw_source is None else raw_source.strip().lower()
        if source == HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY:
            hosts = spec
        elif source == HOSTNAME_SOURCE_ANNOTATION_ONLY:
            hosts = annotated
        else:
            if source is not None:
                self.problem(opts.annotation_prefix + GATEWAY_HOSTNAME_SOURCE_KEY, raw_source or "",
                             f"unknown value (one of: {HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY}, "
                             f"{HOSTNAME_SOURCE_ANNOTATION_ONLY}); both sources are used")
            hosts = spec + [h for h in annotated if h not in spec]
        if opts.template is not None and (opts.combine_fqdn_annotation or not hosts):
            names, problems = template_hostnames(self.route, opts, self.kind, self.ref)
            self.problems.extend(problems)
            hosts = hosts + [n for n in names if n not in hosts] if opts.combine_fqdn_annotation else names
        return hosts or [""]

    # -- parents ----------------------------------------------------------------------------------------------
    def spec_parents(self) -> list[_ParentRef]:
        return [_parent_ref(ref, self.namespace, f"spec.parentRefs[{i}]")
                for i, ref in enumerate(get_list(self.route, "spec.parentRefs"))]

    def check_missing_parents(self, spec_refs: list[_ParentRef]) -> None:
        """A parentRef naming a Gateway (or, with --gateway-listener-sets, a ListenerSet) that does not exist
        is reported (a filtered-out Gateway is not)."""
        for i, ref in enumerate(spec_refs):
            if ref.group != GATEWAY_GROUP:
                continue
            if ref.kind == GATEWAY_KIND and self.lookup.complete and self.wanted(ref):
                missing = self.lookup.gateway(ref.namespace, ref.name) is None
            elif ref.kind == LISTENER_SET_KIND and self.gw_options.listener_sets:
                missing = self.lookup.listener_set(ref.namespace, ref.name) is None
            else:
                continue
            if missing:
                self.problem(f"spec.parentRefs[{i}].name", ref.name,
                             f"{ref.kind} {ref.namespace}/{ref.name} does not exist; this parent publishes nothing")

    def wanted(self, ref: _ParentRef) -> bool:
        g = self.gw_options
        return (not g.gateway_name or ref.name == g.gateway_name) and \
            (not g.gateway_namespace or ref.namespace == g.gateway_namespace)

    def allowed(self, gw_ns: str, listener: Mapping[str, Any], at: str) -> bool:
        """`allowedRoutes` of one listener admits this route (namespaces and kinds)."""
        allowed = get_map(listener, "allowedRoutes", at)
        namespaces = get_map(allowed, "namespaces", f"{at}.allowedRoutes")
        origin = get_str(namespaces, "from", "Same", at=f"{at}.allowedRoutes.namespaces") or "Same"
        if origin == "Same" and self.namespace != gw_ns:
            return False
        if origin == "Selector":
            labels = self.lookup.namespace_labels(self.namespace)
            selector = get_map(namespaces, "selector", f"{at}.allowedRoutes.namespaces")
            if labels is None or not _label_selector_matches(selector, labels):
                return False
        elif origin not in ("Same", "All"):
            return False
        kinds = get_list(allowed, "kinds", f"{at}.allowedRoutes")
        if not kinds:
            return True
        return any(isinstance(k, Mapping) and k.get("kind") == self.kind
                   and (k.get("group") or GATEWAY_GROUP) == GATEWAY_GROUP for k in kinds)

    def gateway_targets(self, gw: Mapping[str, Any]) -> list[str]:
        """The Gateway's targets (computed once per collect pass); its problems join this route's (the
        report de-duplicates them)."""
        memo = self.lookup.targets_memo.get(id(gw))
        if memo is None or memo[0] is not gw:
            problems_before = len(self.problems)
            try:
                targets = self._gateway_targets(gw)
            except FieldError:
                del self.problems[problems_before:]
                raise
            memo = (gw, targets, self.problems[problems_before:])
            self.lookup.targets_memo[id(gw)] = memo
            return list(targets)
        self.problems.extend(memo[2])
        return list(memo[1])

    def _gateway_targets(self, gw: Mapping[str, Any]) -> list[str]:
        """The Gateway's `target` annotation, else its `status.addresses[].value` (`run` combines the targets
        of every Gateway giving a host name, per host name)."""
        gw_ref = object_ref(gw, GATEWAY_KIND)
        annotations = string_map(gw, "metadata.annotations")
        prefix = self.options.annotation_prefix
        for key in (HOSTNAME_KEY, TTL_KEY, GATEWAY_HOSTNAME_SOURCE_KEY):
            # external-dns reads only `target` on a Gateway; say so instead of ignoring these silently
            if prefix + key in annotations:
                self.problems.append(Problem(gw_ref, prefix + key, annotations[prefix + key],
                                             f"the {key} annotation is read on the routes, not on their Gateway; "
                                             "ignored", obj=gw))
        targets, problems = annotation_targets(annotations, prefix, gw_ref, gw)
        self.problems.extend(problems)
        if targets:
            return targets
        out: list[str] = []
        for i, addr in enumerate(get_list(gw, "status.addresses")):
            if not isinstance(addr, Mapping):
                raise FieldError(f"status.addresses[{i}]", addr, "must be an object")
            value = get_str(addr, "value", at=f"status.addresses[{i}]").rstrip(".")
            problem = target_problem(value) if value else "empty address"
            if problem is not None:
                self.problems.append(Problem(gw_ref, f"status.addresses[{i}].value", value,
                                             f"target skipped: {problem}", obj=gw))
            elif value not in out:
                out.append(value)
        if not out:
            self.problems.append(Problem(
                gw_ref, "status.addresses", "",
                f"the Gateway has no addresses and no {self.options.annotation_prefix}target annotation; "
                f"routes attached to it get no DNS records", obj=gw))
        return out

    def parent_hosts(self, ref: _ParentRef, gw: Mapping[str, Any], hosts: list[str],
                     accepted: set[str] | None = None) -> list[str]:
        """The host names this route gets through one accepting parent's (a Gateway's, or a ListenerSet's)
        matching listeners: all listeners, or the one `parentRef.sectionName` names; the protocol must suit
        the route kind; `parentRef.port`, when set, must equal the listener's; `allowedRoutes` must admit the
        route (`Same`: the parent's namespace); `accepted`, when given, names the listeners the parent's
        status accepted (a ListenerSet's). Each route host name is intersected with the listener's
        (`match_hostname`)."""
        out: list[str] = []
        hostless: list[tuple[str, str]] = []  # (listener name, field) of matching listeners without hostname
        gw_ns = name_and_namespace(gw)[1]
        protocols = ROUTE_PROTOCOLS[self.kind]
        for i, listener in enumerate(get_list(gw, "spec.listeners")):
            at = f"spec.listeners[{i}]"
            if not isinstance(listener, Mapping):
                raise FieldError(at, listener, "must be an object")
            if ref.section and get_str(listener, "name", at=at) != ref.section:
                continue
            if accepted is not None and get_str(listener, "name", at=at) not in accepted:
                continue
            if get_str(listener, "protocol", at=at) not in protocols:
                continue
            if ref.port is not None and _int_or_none(listener.get("port"), f"{at}.port") != ref.port:
                continue
            if not self.allowed(gw_ns, listener, at):
                continue
            listener_host = get_str(listener, "hostname", at=at)
            for host in hosts:
                shared = match_hostname(listener_host, host)
                if shared is None:
                    continue
                if not shared:
                    hostless.append((get_str(listener, "name", at=at), f"{at}.hostname"))
                elif shared not in out:
                    out.append(shared)
        if hostless and not out:  # reported only when no other listener of this Gateway named the route
            name, field_path = hostless[0]
            self.problem(
                "spec.hostnames", "",
                f"no host name to publish: neither the route nor listener {name!r} ({field_path}) of {ref.kind} "
                f"{gw_ns}/{ref.name} has one (set spec.hostnames or the {self.options.annotation_prefix}hostname "
                "annotation)")
        return out

    def gateway_parent(self, ref: _ParentRef, gw: Mapping[str, Any], hosts: list[str]) -> tuple[list[str], list[str]]:
        """(host names, targets) through an accepting Gateway parent."""
        got = self.parent_hosts(ref, gw, hosts)
        return got, self.gateway_targets(gw) if got else []

    def listener_set_parent(self, ref: _ParentRef, ls: Mapping[str, Any],
                            hosts: list[str]) -> tuple[list[str], list[str]]:
        """(host names, targets) through a ListenerSet parent (--gateway-listener-sets), as external-dns: the
        ListenerSet exists and is `Accepted`; its `spec.parentRef` Gateway (namespace: the ListenerSet's by
        default) passes --gateway-name / --gateway-namespace / --gateway-label-filter, exists and admits the
        ListenerSet's namespace (`spec.allowedListeners.namespaces.from`: All, Same, Selector; none when
        unset); the ListenerSet's listeners its status accepted are matched as a Gateway's are. Targets: the
        ListenerSet's `target` annotation, else its Gateway's."""
        ls_ns = name_and_namespace(ls)[1]
        if not _condition_true(get_list(ls, "status.conditions"), "Accepted"):
            log.debug(f"ListenerSet {ref.namespace}/{ref.name} is not accepted by its Gateway")
            return [], []
        parent = _parent_ref(get_map(ls, "spec").get("parentRef"), ls_ns, "spec.parentRef")
        if (parent.group, parent.kind) != (GATEWAY_GROUP, GATEWAY_KIND) or not self.wanted(parent):
            return [], []
        gw = self.lookup.gateway(parent.namespace, parent.name)
        if gw is None:
            if self.lookup.complete:
                self.problems.append(Problem(object_ref(ls, LISTENER_SET_KIND), "spec.parentRef.name", parent.name,
                                             f"Gateway {parent.namespace}/{parent.name} does not exist; routes "
                                             "attached to this ListenerSet publish nothing", obj=ls))
            return [], []
        if not self.label_admits(gw):
            return [], []
        if not self.listeners_allowed(gw, ls_ns):
            log.debug(f"Gateway {parent.namespace}/{parent.name} does not allow ListenerSets of namespace {ls_ns}")
            return [], []
        accepted = {get_str(s, "name", at="status.listeners") for s in get_list(ls, "status.listeners")
                    if isinstance(s, Mapping) and _condition_true(get_list(s, "conditions"), "Accepted")}
        got = self.parent_hosts(ref, ls, hosts, accepted)
        if not got:
            return [], []
        targets, problems = annotation_targets(string_map(ls, "metadata.annotations"), self.options.annotation_prefix,
                                               object_ref(ls, LISTENER_SET_KIND), ls)
        self.problems.extend(problems)
        return got, targets or self.gateway_targets(gw)

    def label_admits(self, gw: Mapping[str, Any]) -> bool:
        """--gateway-label-filter admits the Gateway (client-side, for lookups over lists)."""
        selector = self.gw_options.label_selector
        return selector.empty() or selector.matches(string_map(gw, "metadata.labels"))

    def listeners_allowed(self, gw: Mapping[str, Any], ls_ns: str) -> bool:
        """The Gateway's `spec.allowedListeners` admits ListenerSets of namespace `ls_ns` (none when unset)."""
        namespaces = get_map(gw, "spec.allowedListeners.namespaces")
        origin = get_str(namespaces, "from", "None", at="spec.allowedListeners.namespaces") or "None"
        if origin == "All":
            return True
        if origin == "Same":
            return ls_ns == name_and_namespace(gw)[1]
        if origin == "Selector":
            labels = self.lookup.namespace_labels(ls_ns)
            selector = get_map(namespaces, "selector", "spec.allowedListeners.namespaces")
            return labels is not None and _label_selector_matches(selector, labels)
        return False

    def run(self) -> list[Endpoint]:
        """The route's endpoints. A parent counts when its `status.parents[]` entry names one of the route's
        `spec.parentRefs` (a Gateway, or a ListenerSet with --gateway-listener-sets; namespace defaults to the
        route's) and is `Accepted`; a Gateway must pass --gateway-name / --gateway-namespace /
        --gateway-label-filter and exist (a ListenerSet: `listener_set_parent`). TTL, set identifier and
        provider-specific properties come from the route's annotations."""
        opts = self.options
        if not admitted(self.route, opts):
            return []
        self.ann = parse_annotations(string_map(self.route, "metadata.annotations"), opts.annotation_prefix,
                                     self.ref, self.route)
        if not self.ann.controller_matches():
            log.debug(f"Skipping {self.kind} {self.namespace}/{self.name} because controller value does not "
                      f"match, found: {self.ann.controller}, required: dns-controller")
            return []
        self.problems.extend(p for p in self.ann.problems if p.field != opts.annotation_prefix + TARGET_KEY)
        if self.ann.targets:
            # external-dns reads `target` on Gateways only; say so instead of ignoring it silently
            self.problem(opts.annotation_prefix + TARGET_KEY, ",".join(self.ann.targets),
                         "the target annotation is read on the parent Gateway, not on the route; ignored")
        hosts = self.route_hosts()
        spec_refs = self.spec_parents()
        self.check_missing_parents(spec_refs)
        host_targets: dict[str, list[str]] = {}
        seen_parents: set[tuple[str, str, str, str, int | None]] = set()
        for i, status in enumerate(get_list(self.route, "status.parents")):
            at = f"status.parents[{i}]"
            if not isinstance(status, Mapping):
                raise FieldError(at, status, "must be an object")
            ref = _parent_ref(status.get("parentRef"), self.namespace, f"{at}.parentRef")
            if ref.group != GATEWAY_GROUP or ref not in spec_refs:
                continue  # another kind of parent, or a stale status entry for a removed parentRef
            resolve: Callable[[], tuple[list[str], list[str]]]
            if ref.kind == GATEWAY_KIND:
                owner = self.lookup.gateway(ref.namespace, ref.name) if self.wanted(ref) else None
                if owner is None or not self.label_admits(owner):
                    continue  # filtered out, or reported once per parentRef by check_missing_parents
                resolve = functools.partial(self.gateway_parent, ref, owner, hosts)
            elif ref.kind == LISTENER_SET_KIND and self.gw_options.listener_sets:
                owner = self.lookup.listener_set(ref.namespace, ref.name)
                if owner is None:
                    continue
                resolve = functools.partial(self.listener_set_parent, ref, owner, hosts)
            else:
                continue
            if not _condition_true(get_list(status, "conditions", at), "Accepted"):
                log.debug(f"{ref.kind} {ref.namespace}/{ref.name} has not accepted {self.kind} "
                          f"{self.namespace}/{self.name}")
                continue
            key = (ref.kind, ref.namespace, ref.name, ref.section, ref.port)
            if key in seen_parents:
                continue
            seen_parents.add(key)
            try:
                got, targets = resolve()
            except FieldError as exc:  # a malformed parent: reported on it, other parents still count
                self.problems.append(field_problem(object_ref(owner, ref.kind), exc, owner))
                continue
            for host in got:
                bucket = host_targets.setdefault(host, [])
                bucket.extend(t for t in targets if t not in bucket)
        endpoints: list[Endpoint] = []
        for host, targets in host_targets.items():
            endpoints.extend(endpoints_for_hostname(host, targets, self.ann.ttl, self.ann.provider_specific,
                                                    self.ann.set_identifier, self.resource))
        if not endpoints:
            log.debug(f"No endpoints could be generated from {self.kind} {self.namespace}/{self.name}")
        return attach(endpoints, self.route, self.resource)


def _label_selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A metav1.LabelSelector (matchLabels, matchExpressions) against labels; an empty one matches all."""
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping) or any(labels.get(k) != v for k, v in match_labels.items()):
        return False
    for expr in selector.get("matchExpressions") or []:
        if not isinstance(expr, Mapping):
            return False
        key, op, values = str(expr.get("key") or ""), expr.get("operator"), expr.get("values") or []
        has = key in labels
        if op == "In" and not (has and labels[key] in values):
            return False
        if op == "NotIn" and has and labels[key] in values:
            return False
        if op == "Exists" and not has:
            return False
        if op == "DoesNotExist" and has:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def route_endpoints(route: Mapping[str, Any], kind: str, options: SourceOptions, gw_options: GatewayOptions,
                    lookup: GatewayLookup) -> ObjectEndpoints:
    """Endpoints of one route of `kind` (a key of ROUTE_PROTOCOLS) and the problems found. A malformed route
    gives no endpoints and one error problem naming the field."""
    if kind not in ROUTE_PROTOCOLS:
        raise ValueError(f"unknown route kind {kind!r} (one of: {', '.join(ROUTE_PROTOCOLS)})")
    ref = object_ref(route, kind)
    return run_object(route, ref, lambda: _Route(route, kind, options, gw_options, lookup))


def collect_route_endpoints(routes: Iterable[Mapping[str, Any]], kind: str, options: SourceOptions,
                            gw_options: GatewayOptions, lookup: GatewayLookup) -> ObjectEndpoints:
    """What a gateway-<kind> source returns for all its routes (merged) and the problems of all of them."""
    return collect_objects(routes, lambda r: route_endpoints(r, kind, options, gw_options, lookup),
                           merge_endpoints)
