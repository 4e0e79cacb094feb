"""Ingress (networking.k8s.io/v1) -> endpoints (external-dns `source/ingress.go`), on raw dicts.

Targets: the `target` annotation, else every `status.loadBalancer.ingress[].ip` / `.hostname`.
Host names: `spec.rules[].host` (unless `ignore_ingress_rules_spec`), `spec.tls[].hosts[]` (unless
`ignore_ingress_tls_spec`), the `hostname` annotation (unless `ignore_hostname_annotation`), selected by the
`ingress-hostname-source` annotation (`defined-hosts-only` / `annotation-only`; another value -> nothing,
reported). The FQDN template is used when nothing else gave endpoints, or always with
`combine_fqdn_annotation`. `--ingress-class`: `spec.ingressClassName` when set, else the legacy
`kubernetes.io/ingress.class` annotation, must be one of the names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.utils import endpoints_for_hostname, merge_endpoints
from external_dns.sources.annotations import (
    HOSTNAME_SOURCE_ANNOTATION_ONLY,
    HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY,
    INGRESS_HOSTNAME_SOURCE_KEY,
    ParsedAnnotations,
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
    get_list,
    get_str,
    name_and_namespace,
    run_object,
    string_map,
    template_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem, object_ref

log = structlog.get_logger(__name__)

INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def ingress_class_matches(ing: Mapping[str, Any], class_names: Iterable[str]) -> bool:
    """`--ingress-class`: True without names; else spec.ingressClassName (when non-empty) or, failing that,
    the legacy class annotation must be one of them."""
    names = list(class_names)
    if not names:
        return True
    class_name = get_str(ing, "spec.ingressClassName")
    if class_name:
        return class_name in names
    return string_map(ing, "metadata.annotations").get(INGRESS_CLASS_ANNOTATION) in names


class _Ingress:
    def __init__(self, ing: Mapping[str, Any], options: SourceOptions, ref: str) -> None:
        self.ing = ing
        self.options = options
        self.ref = ref
        self.name, self.namespace = name_and_namespace(ing)
        self.resource = f"ingress/{self.namespace}/{self.name}"
        self.problems: list[Problem] = []
        self.ann = ParsedAnnotations()
        self.targets: list[str] = []

    def status_targets(self) -> list[str]:
        out: list[str] = []
        for i, lb in enumerate(get_list(self.ing, "status.loadBalancer.ingress")):
            if not isinstance(lb, Mapping):
                raise FieldError(f"status.loadBalancer.ingress[{i}]", lb, "must be an object")
            for key in ("ip", "hostname"):
                value = get_str(lb, key, at=f"status.loadBalancer.ingress[{i}]")
                if not value:
                    continue
                problem = target_problem(value[:-1] if value.endswith(".") else value)
                if problem is None:
                    out.append(value)
                else:
                    self.problems.append(Problem(self.ref, f"status.loadBalancer.ingress[{i}].{key}", value,
                                                 f"target skipped: {problem}", obj=self.ing))
        return out

    def for_host(self, host: str, field: str) -> list[Endpoint]:
        problem = hostname_problem(host)
        if problem is not None:
            self.problems.append(Problem(self.ref, field, host, f"hostname skipped: {problem}", obj=self.ing))
            return []
        return endpoints_for_hostname(host, self.targets, self.ann.ttl, self.ann.provider_specific,
                                      self.ann.set_identifier, self.resource)

    def defined_hosts(self) -> list[Endpoint]:
        out: list[Endpoint] = []
        if not self.options.ignore_ingress_rules_spec:
            for i, rule in enumerate(get_list(self.ing, "spec.rules")):
                if not isinstance(rule, Mapping):
                    raise FieldError(f"spec.rules[{i}]", rule, "must be an object")
                host = get_str(rule, "host", at=f"spec.rules[{i}]")
                if host:
                    out.extend(self.for_host(host, f"spec.rules[{i}].host"))
        if not self.options.ignore_ingress_tls_spec:
            for i, tls in enumerate(get_list(self.ing, "spec.tls")):
                if not isinstance(tls, Mapping):
                    raise FieldError(f"spec.tls[{i}]", tls, "must be an object")
                for j, host in enumerate(get_list(tls, "hosts", at=f"spec.tls[{i}]")):
                    if not isinstance(host, str):
                        raise FieldError(f"spec.tls[{i}].hosts[{j}]", host, "must be a string")
                    if host:
                        out.extend(self.for_host(host, f"spec.tls[{i}].hosts[{j}]"))
        return out

    def from_object(self) -> list[Endpoint]:
        defined = self.defined_hosts()
        annotated: list[Endpoint] = []
        if not self.options.ignore_hostname_annotation:
            for host in self.ann.hostnames:
                annotated.extend(self.for_host(host, self.options.annotation_prefix + "hostname"))
        source = self.ann.ingress_hostname_source
        if source is None:
            return defined + annotated
        if source == HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY:
            return defined
        if source == HOSTNAME_SOURCE_ANNOTATION_ONLY:
            return annotated
        self.problems.append(Problem(
            self.ref, self.options.annotation_prefix + INGRESS_HOSTNAME_SOURCE_KEY, source,
            f"unknown value (one of: {HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY}, {HOSTNAME_SOURCE_ANNOTATION_ONLY}); "
            "no host names are published", obj=self.ing))
        return []

    def run(self) -> list[Endpoint]:
        opts = self.options
        if not admitted(self.ing, opts) or not ingress_class_matches(self.ing, opts.ingress_class_names):
            return []
        self.ann = parse_annotations(string_map(self.ing, "metadata.annotations"), opts.annotation_prefix,
                                     self.ref, self.ing)
        if not self.ann.controller_matches():
            log.debug(f"Skipping ingress {self.namespace}/{self.name} because controller value does not "
                      f"match, found: {self.ann.controller}, required: dns-controller")
            return []
        self.problems.extend(self.ann.problems)
        self.targets = list(self.ann.targets) or self.status_targets()
        endpoints = self.from_object()
        endpoints, problems = template_endpoints(
            self.ing, opts, "Ingress", self.ref, endpoints,
            own=lambda host: self.for_host(host, "--fqdn-template"),
            with_targets=lambda host, targets: endpoints_for_hostname(
                host, targets, self.ann.ttl, self.ann.provider_specific, self.ann.set_identifier, self.resource),
            pairs=False)  # as Go's Ingress source: --fqdn-template only
        self.problems.extend(problems)
        if not endpoints:
            log.debug(f"No endpoints could be generated from ingress {self.namespace}/{self.name}")
        return attach(endpoints, self.ing, self.resource)


def ingress_endpoints(ing: Mapping[str, Any], options: SourceOptions) -> ObjectEndpoints:
    """Endpoints of one Ingress (empty when filtered out or not ours) and the problems found. A malformed
    object gives no endpoints and one error problem naming the field."""
    ref = object_ref(ing, "ingress")
    return run_object(ing, ref, lambda: _Ingress(ing, options, ref))


def merge_ingress_endpoints(endpoints: Iterable[Endpoint]) -> list[Endpoint]:
    """The ingress source's final step over all ingresses: `merge_endpoints`."""
    return merge_endpoints(endpoints)


def collect_ingress_endpoints(ingresses: Iterable[Mapping[str, Any]], options: SourceOptions) -> ObjectEndpoints:
    """What an ingress source returns for all its Ingresses (merged) and the problems of all of them."""
    return collect_objects(ingresses, lambda ing: ingress_endpoints(ing, options), merge_ingress_endpoints)
