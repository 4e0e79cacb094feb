"""SourceOptions: how the object -> endpoints functions behave (the source flags of external-dns).

Selectors and the FQDN template are parsed once, when the options are built; a bad one raises ValueError
(SelectorError / TemplateError) naming the option, so configuration errors surface at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX
from external_dns.sources.compat import COMPATIBILITY_MODES
from external_dns.sources.selector import Selector, SelectorError, parse_selector
from external_dns.sources.template import FQDNTemplate, GoTemplate, TemplateError, parse_fqdn_template

SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")

# hostname -> IP strings (used with resolve_load_balancer_hostname)
Resolver = Callable[[str], list[str]]


@dataclass
class SourceOptions:
    """Options shared by the Service, Ingress and DNSEndpoint logic (and the sources built on it)."""

    annotation_prefix: str = DEFAULT_ANNOTATION_PREFIX
    namespace: str = ""
    annotation_filter: str = ""
    label_filter: str = ""
    fqdn_template: str | Sequence[str] = ""
    # external-dns's --target-template (targets for the --fqdn-template names in sources whose targets come from
    # templates: none here, as none of Go's Service, Ingress, Node, Pod) and --fqdn-target-template (`host:target`
    # pairs)
    target_template: str | Sequence[str] = ""
    fqdn_target_template: str | Sequence[str] = ""
    combine_fqdn_annotation: bool = False
    ignore_hostname_annotation: bool = False
    publish_internal_services: bool = False
    publish_host_ip: bool = False
    always_publish_not_ready_addresses: bool = False
    service_type_filter: Sequence[str] = ()
    ingress_class_names: Sequence[str] = ()
    ignore_ingress_tls_spec: bool = False
    ignore_ingress_rules_spec: bool = False
    default_targets: Sequence[str] = ()
    force_default_targets: bool = False
    min_ttl: int = 0
    resolve_load_balancer_hostname: bool = False
    expose_internal_ipv6: bool = False
    exclude_unschedulable: bool = True
    exclude_target_nets: Sequence[str] = ()
    target_net_filter: Sequence[str] = ()
    # --compatibility: legacy annotations read too (sources/compat.py; "" = none)
    compatibility: str = ""
    # Injected DNS lookup for resolve_load_balancer_hostname (default: dnspython with a timeout).
    resolver: Resolver | None = field(default=None, repr=False)

    label_selector: Selector = field(init=False, repr=False)
    annotation_selector: Selector = field(init=False, repr=False)
    template: FQDNTemplate | None = field(init=False, repr=False)
    target: GoTemplate | None = field(init=False, repr=False)
    fqdn_target: GoTemplate | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.annotation_prefix:
            raise ValueError("annotation_prefix cannot be empty")
        if not self.annotation_prefix.endswith("/"):
            raise ValueError(f"annotation_prefix must end with '/', got {self.annotation_prefix!r}")
        try:
            self.label_selector = parse_selector(self.label_filter)
        except SelectorError as exc:
            raise SelectorError(f"label_filter: {exc}") from None
        try:
            self.annotation_selector = parse_selector(self.annotation_filter)
        except SelectorError as exc:
            raise SelectorError(f"annotation_filter: {exc}") from None
        self.template = _template("fqdn_template", self.fqdn_template)
        self.target = _template("target_template", self.target_template)
        self.fqdn_target = _template("fqdn_target_template", self.fqdn_target_template)
        if self.ignore_hostname_annotation and self.template is None:
            raise ValueError("FQDN Template must be set if ignoring annotations")
        if self.compatibility and self.compatibility not in COMPATIBILITY_MODES:
            raise ValueError(f"compatibility: unknown mode {self.compatibility!r} (one of: "
                             f"{', '.join(COMPATIBILITY_MODES)})")
        unknown = [t for t in self.service_type_filter if t not in SERVICE_TYPES]
        if unknown:
            raise ValueError(f"service_type_filter: unknown service type(s) {', '.join(unknown)} "
                             f"(one of: {', '.join(SERVICE_TYPES)})")
        self.service_type_filter = tuple(self.service_type_filter)
        self.ingress_class_names = tuple(self.ingress_class_names)
        self.default_targets = tuple(self.default_targets)

    @property
    def any_template(self) -> bool:
        """Whether a template may read any field of an object (informers then keep objects whole). The
        `--target-template` is parsed and checked as Go does, but no source here applies it (as in Go)."""
        return self.template is not None or self.fqdn_target is not None


def joined_templates(value: str | Sequence[str]) -> str:
    """A repeatable template flag as one text: outputs are comma lists, so the union is the joined text."""
    return value if isinstance(value, str) else ",".join(t for t in value if t.strip())


def _template(name: str, text: str | Sequence[str]) -> GoTemplate | None:
    try:
        return parse_fqdn_template(text)
    except TemplateError as exc:
        raise TemplateError(f"{name}: {exc}") from None
