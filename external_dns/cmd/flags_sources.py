"""Source flags: the manifest source and the object -> endpoints options shared by every Kubernetes source
(names, defaults and start-up checks of external-dns)."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group
from external_dns.durations import format_go_duration as go
from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX
from external_dns.sources.compat import COMPATIBILITY_MODES
from external_dns.sources.objects.ingress import INGRESS_CLASS_ANNOTATION
from external_dns.sources.options import SERVICE_TYPES
from external_dns.sources.selector import SelectorError, parse_selector
from external_dns.sources.template import TemplateError, parse_fqdn_template

if TYPE_CHECKING:
    from external_dns.cmd.config import Config


def add_flags(p: FlagParser) -> None:
    p.group("sources")
    p.add("--manifest-dir", default="",
          help="directory of Kubernetes manifests (*.yaml, *.yml, *.json) read by the manifest source")
    p.add("--namespace", default="", help="limit sources to this namespace (default: all)")
    p.add("--annotation-filter", default="",
          help="only objects whose annotations match this label selector (e.g. 'a in (x,y),!b')")
    p.add("--label-filter", default="", help="only objects whose labels match this label selector")
    p.add("--annotation-prefix", default=DEFAULT_ANNOTATION_PREFIX,
          help="prefix of the external-dns annotations (must end with '/')")
    # Repeatable as upstream's list; values are never split on commas (a template may contain commas).
    p.add("--fqdn-template", repeat=True, split=False,
          help="template for host names of objects without hostname annotation, e.g. '{{.Name}}.example.org' "
               "(repeatable; each template's output may be a comma-separated list)")
    p.add("--target-template", repeat=True, split=False,
          help="template for the targets of the --fqdn-template host names in sources whose targets come from "
               "templates (checked, as external-dns, but no source here has such targets: Service, Ingress, "
               "Node and Pod keep their own, as in external-dns; repeatable)")
    p.add("--fqdn-target-template", repeat=True, split=False,
          help="template for 'host:target' pairs, e.g. '{{.Name}}.example.org:{{.Spec.clusterIP}}' "
               "(repeatable; pairs are comma-separated; used before --fqdn-template; not by the ingress "
               "source, as external-dns)")
    p.add("--compatibility", default="", choices=("", *COMPATIBILITY_MODES),
          help="also read the annotations of the controller ExternalDNS replaces (Services: mate, molecule, "
               "kops-dns-controller; Pods: kops-dns-controller)")
    p.add("--combine-fqdn-annotation", type=bool, default=False,
          help="use the FQDN template together with the hostname annotations")
    p.add("--ignore-hostname-annotation", type=bool, default=False,
          help="ignore hostname annotations (requires --fqdn-template)")
    p.add("--publish-internal-services", type=bool, default=False,
          help="publish the ClusterIP of ClusterIP services")
    p.add("--publish-host-ip", type=bool, default=False,
          help="publish the host IP of pods behind headless services instead of the pod IP")
    p.add("--always-publish-not-ready-addresses", type=bool, default=False,
          help="publish not-ready addresses of headless services")
    p.add("--service-type-filter", repeat=True, choices=SERVICE_TYPES,
          help="only services of these types (repeatable; default: all)")
    p.add("--ingress-class", repeat=True, help="only ingresses of these classes (repeatable; default: all)")
    p.add("--ignore-ingress-tls-spec", type=bool, default=False, help="ignore spec.tls hosts of ingresses")
    p.add("--ignore-ingress-rules-spec", type=bool, default=False, help="ignore spec.rules hosts of ingresses")
    p.add("--default-targets", repeat=True, help="targets for endpoints that have none (repeatable)")
    p.add("--force-default-targets", type=bool, default=False,
          help="replace the targets of every endpoint with --default-targets")
    p.add("--prefer-alias", type=bool, default=False,
          help="mark CNAME records without an alias property alias=true (providers with ALIAS records use them)")
    p.add("--nat64-networks", repeat=True,
          help="for each AAAA record in one of these /96 NAT64 prefixes, also publish the embedded IPv4 as an "
               "A record (repeatable)")
    p.add("--min-ttl", type=duration, default=0.0, help="TTL for records without one (e.g. 60s; 0 = off)")
    p.add("--exclude-target-net", repeat=True, help="drop targets in this CIDR (repeatable)")
    p.add("--target-net-filter", repeat=True, help="keep only targets in this CIDR (repeatable)")
    p.add("--resolve-service-load-balancer-hostname", type=bool, default=False,
          help="resolve load balancer host names of services to IP addresses")
    p.add("--expose-internal-ipv6", type=bool, default=False,
          help="publish IPv6 InternalIP node addresses for NodePort services and NodeExternalIP endpoints")
    p.add("--exclude-unschedulable", type=bool, default=True,
          help="skip unschedulable (cordoned) nodes: node source and NodePort services")
    p.add("--gateway-name", default="", help="gateway sources: only routes attached to Gateways of this name")
    p.add("--gateway-namespace", default="",
          help="gateway sources: only routes attached to Gateways in this namespace (default: all)")
    p.add("--gateway-label-filter", default="",
          help="gateway sources: only routes attached to Gateways whose labels match this label selector")
    p.add("--gateway-listener-sets", type=bool, default=False,
          help="gateway sources: also follow routes attached to ListenerSets (Gateway API v1.5) to their Gateway")
    p.add("--ignore-non-host-network-pods", type=bool, default=False,
          help="pod source: skip pods that do not run with hostNetwork")
    p.add("--pod-source-domain", default="",
          help="pod source: also publish every pod as <pod name>.<this domain> with its pod IP")
    p.add("--listen-endpoint-events", type=bool, default=False,
          help="with --events, EndpointSlice changes also trigger a sync (service source)")
    p.add("--kube-access-check", type=bool, default=True,
          help="at start-up, check that RBAC allows every verb the Kubernetes sources need")
    p.add("--crd-source-apiversion", default="externaldns.k8s.io/v1alpha1",
          help="API version of the CRD source's objects (only externaldns.k8s.io/v1alpha1 is supported)")
    p.add("--crd-source-kind", default="DNSEndpoint",
          help="kind of the CRD source's objects (only DNSEndpoint is supported)")


@flag_group
class SourceFlags(FlagGroup):
    """How the sources turn objects into endpoints (shared by every source), and the manifest source."""

    manifest_dir: str = flag("--manifest-dir")
    namespace: str = flag("--namespace")
    annotation_filter: str = flag("--annotation-filter")
    label_filter: str = flag("--label-filter")
    annotation_prefix: str = flag("--annotation-prefix")
    fqdn_template: tuple[str, ...] = flag("--fqdn-template")
    target_template: tuple[str, ...] = flag("--target-template")
    fqdn_target_template: tuple[str, ...] = flag("--fqdn-target-template")
    compatibility: str = flag("--compatibility")
    combine_fqdn_annotation: bool = flag("--combine-fqdn-annotation")
    ignore_hostname_annotation: bool = flag("--ignore-hostname-annotation")
    publish_internal_services: bool = flag("--publish-internal-services")
    publish_host_ip: bool = flag("--publish-host-ip")
    always_publish_not_ready_addresses: bool = flag("--always-publish-not-ready-addresses")
    service_type_filter: tuple[str, ...] = flag("--service-type-filter")
    ingress_class: tuple[str, ...] = flag("--ingress-class")
    ignore_ingress_tls_spec: bool = flag("--ignore-ingress-tls-spec")
    ignore_ingress_rules_spec: bool = flag("--ignore-ingress-rules-spec")
    default_targets: tuple[str, ...] = flag("--default-targets")
    force_default_targets: bool = flag("--force-default-targets")
    prefer_alias: bool = flag("--prefer-alias")
    nat64_networks: tuple[str, ...] = flag("--nat64-networks")
    min_ttl: float = flag("--min-ttl")
    exclude_target_net: tuple[str, ...] = flag("--exclude-target-net")
    target_net_filter: tuple[str, ...] = flag("--target-net-filter")
    resolve_service_load_balancer_hostname: bool = flag("--resolve-service-load-balancer-hostname")
    expose_internal_ipv6: bool = flag("--expose-internal-ipv6")
    exclude_unschedulable: bool = flag("--exclude-unschedulable")
    gateway_name: str = flag("--gateway-name")
    gateway_namespace: str = flag("--gateway-namespace")
    gateway_label_filter: str = flag("--gateway-label-filter")
    gateway_listener_sets: bool = flag("--gateway-listener-sets")
    ignore_non_host_network_pods: bool = flag("--ignore-non-host-network-pods")
    pod_source_domain: str = flag("--pod-source-domain")
    listen_endpoint_events: bool = flag("--listen-endpoint-events")
    kube_access_check: bool = flag("--kube-access-check")
    crd_source_apiversion: str = flag("--crd-source-apiversion")
    crd_source_kind: str = flag("--crd-source-kind")


def _nat64(values: tuple[str, ...]) -> None:
    for value in values:
        if not value:
            continue
        try:
            net = ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise ConfigError(f"--nat64-networks: invalid CIDR {value!r}") from None
        if net.version != 6 or net.prefixlen != 96:
            raise ConfigError(f"--nat64-networks: {value!r} must be an IPv6 /96 network")


def _cidrs(name: str, values: tuple[str, ...]) -> None:
    for value in values:
        if not value:
            continue
        try:
            ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise ConfigError(f"{name}: invalid CIDR {value!r}") from None


def validate(cfg: Config) -> None:
    src = cfg.sources
    prefix = src.annotation_prefix
    if not prefix:
        raise ConfigError("--annotation-prefix cannot be empty")
    if not prefix.endswith("/"):
        raise ConfigError("--annotation-prefix must end with '/'")
    try:
        parse_selector(src.label_filter)
    except SelectorError as exc:
        raise ConfigError(f"--label-filter does not specify a valid label selector: {exc}") from None
    try:
        annotation_selector = parse_selector(src.annotation_filter)
    except SelectorError as exc:
        raise ConfigError(f"--annotation-filter does not specify a valid label selector: {exc}") from None
    parsed = {}
    for name, templates in (("--fqdn-template", src.fqdn_template), ("--target-template", src.target_template),
                            ("--fqdn-target-template", src.fqdn_target_template)):
        try:  # a repeated template flag is one template: its outputs joined with commas, as upstream's list
            parsed[name] = parse_fqdn_template(templates)
        except TemplateError as exc:
            raise ConfigError(f"{name}: {exc}") from None
    template = parsed["--fqdn-template"]
    if src.ignore_hostname_annotation and template is None:
        raise ConfigError("--ignore-hostname-annotation: FQDN Template must be set if ignoring annotations "
                          "(--fqdn-template)")
    if [c for c in src.ingress_class if c] and INGRESS_CLASS_ANNOTATION in annotation_selector.key_set():
        raise ConfigError("--ingress-class is mutually exclusive with the kubernetes.io/ingress.class "
                          "annotation filter")
    try:
        parse_selector(src.gateway_label_filter)
    except SelectorError as exc:
        raise ConfigError(f"--gateway-label-filter does not specify a valid label selector: {exc}") from None
    if src.min_ttl < 0:
        raise ConfigError(f"--min-ttl must not be negative, got {go(src.min_ttl)}")
    _cidrs("--exclude-target-net", src.exclude_target_net)
    _cidrs("--target-net-filter", src.target_net_filter)
    _nat64(src.nat64_networks)
    if src.crd_source_apiversion != "externaldns.k8s.io/v1alpha1" or src.crd_source_kind != "DNSEndpoint":
        raise ConfigError(f"--crd-source-apiversion/--crd-source-kind: only externaldns.k8s.io/v1alpha1 "
                          f"DNSEndpoint is supported, got {src.crd_source_apiversion} {src.crd_source_kind}")
    if "manifest" in cfg.core.source_names and not src.manifest_dir:
        raise ConfigError("--manifest-dir must be set for --source=manifest")
