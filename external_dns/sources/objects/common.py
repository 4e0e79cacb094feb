"""Helpers shared by the per-kind object functions: typed access to raw Kubernetes dicts (a wrong type
raises `FieldError` naming the field path), the namespace / label / annotation admission check, FQDN template
host names, and the `ObjectEndpoints` result type."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple, Protocol

import structlog

from external_dns.endpoint.endpoint import RESOURCE_LABEL_KEY, Endpoint
from external_dns.endpoint.limits import short
from external_dns.sources.annotations import hostname_problem
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import ERROR, Problem
from external_dns.sources.template import TemplateError

log = structlog.get_logger(__name__)


def source_name(kind: str) -> str:
    """The --source name of an object kind: what a template's `isSource` compares with."""
    if kind.endswith("Route") and kind != "Route":
        return "gateway-" + kind.lower()
    return kind.lower()


class ObjectEndpoints(NamedTuple):
    """What one object yields: its endpoints and the problems found on the way."""

    endpoints: list[Endpoint]
    problems: list[Problem]


def collect_objects(objs: Iterable[Mapping[str, Any]], one: Callable[[Mapping[str, Any]], ObjectEndpoints],
                    merge: Callable[[list[Endpoint]], list[Endpoint]]) -> ObjectEndpoints:
    """What a source returns for all its objects: every object's endpoints through `one`, then `merge` over
    all of them; the problems of all objects."""
    endpoints: list[Endpoint] = []
    problems: list[Problem] = []
    for obj in objs:
        eps, probs = one(obj)
        endpoints.extend(eps)
        problems.extend(probs)
    return ObjectEndpoints(merge(endpoints), problems)


class FieldError(ValueError):
    """A field of a raw object has the wrong shape; `field` is its path (`spec.ports[0].nodePort`)."""

    def __init__(self, field: str, value: Any, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.value = value
        self.message = message


def _short(value: Any) -> str:
    if isinstance(value, str):  # cut before anything else: a value may be megabytes long
        return value if len(value) <= 120 else value[:117] + "..."
    return short(value, 120)  # bounded repr: an aliased YAML structure is never expanded


def field_problem(ref: str, exc: FieldError, obj: Mapping[str, Any] | None) -> Problem:
    return Problem(ref, exc.field, _short(exc.value), f"{exc.message}; object skipped", severity=ERROR, obj=obj)


class ObjectRun(Protocol):
    """One object's per-kind state: `run()` gives its endpoints, `problems` what it found on the way."""

    problems: list[Problem]

    def run(self) -> list[Endpoint]: ...


def run_object(obj: Mapping[str, Any], ref: str, make: Callable[[], ObjectRun]) -> ObjectEndpoints:
    """Endpoints of one object through its state `make()` and the problems found. A malformed object gives no
    endpoints: the problems found before the bad field, then one error naming that field."""
    state: ObjectRun | None = None
    try:
        state = make()
        endpoints = state.run()
    except FieldError as exc:
        earlier = state.problems if state is not None else []
        return ObjectEndpoints([], [*earlier, field_problem(ref, exc, obj)])
    return ObjectEndpoints(endpoints, state.problems)


def _join(at: str, path: str) -> str:
    return f"{at}.{path}" if at and path else (at or path)


def get_map(obj: Mapping[str, Any], path: str, at: str = "") -> Mapping[str, Any]:
    """The mapping at a dotted path; missing/None -> {}; anything else -> FieldError. `at` is the path of
    `obj` itself inside the object the error is about (`spec.ports[0]`)."""
    value: Any = obj
    parts = path.split(".")
    for i, part in enumerate(parts):
        if value is None:
            return {}
        if not isinstance(value, (dict, Mapping)):  # dict first: a C check, not the ABC's
            raise FieldError(_join(at, ".".join(parts[:i])), value, "must be an object")
        value = value.get(part)
    if value is None:
        return {}
    if not isinstance(value, (dict, Mapping)):
        raise FieldError(_join(at, path), value, "must be an object")
    return value


def get_list(obj: Mapping[str, Any], path: str, at: str = "") -> list[Any]:
    """The list at a dotted path; missing/None -> []; anything else -> FieldError."""
    parent, _, last = path.rpartition(".")
    container = get_map(obj, parent, at) if parent else obj
    value = container.get(last)
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(_join(at, path), value, "must be a list")
    return value


def get_str(obj: Mapping[str, Any], path: str, default: str = "", at: str = "") -> str:
    """The string at a dotted path; missing/None -> default; numbers are not strings -> FieldError."""
    parent, _, last = path.rpartition(".")
    container = get_map(obj, parent, at) if parent else obj
    value = container.get(last)
    if value is None:
        return default
    if not isinstance(value, str):
        raise FieldError(_join(at, path), value, "must be a string")
    return value


def string_map(obj: Mapping[str, Any], path: str) -> dict[str, str]:
    """A map of strings (labels, annotations, selectors); a non-string value -> FieldError."""
    out: dict[str, str] = {}
    for k, v in get_map(obj, path).items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise FieldError(f"{path}[{k!r}]", v, "must be a string (quote it in YAML)")
        out[k] = v
    return out


def name_and_namespace(obj: Mapping[str, Any]) -> tuple[str, str]:
    return get_str(obj, "metadata.name"), get_str(obj, "metadata.namespace")


def admitted(obj: Mapping[str, Any], options: SourceOptions) -> bool:
    """Namespace (`--namespace`), `--label-filter` and `--annotation-filter` checks."""
    _name, namespace = name_and_namespace(obj)
    if options.namespace and namespace != options.namespace:
        return False
    if not options.label_selector.empty() and not options.label_selector.matches(string_map(obj, "metadata.labels")):
        return False
    return options.annotation_selector.empty() or options.annotation_selector.matches(
        string_map(obj, "metadata.annotations"))


def template_hostnames(obj: Mapping[str, Any], options: SourceOptions, kind: str, ref: str
                       ) -> tuple[list[str], list[Problem]]:
    """Host names from `--fqdn-template` for `obj` (none without a template); bad output is a problem."""
    if options.template is None:
        return [], []
    try:
        names = options.template.render(obj, kind, source_name(kind))
    except TemplateError as exc:
        return [], [Problem(ref, "--fqdn-template", options.template.text, str(exc), obj=obj)]
    good: list[str] = []
    problems: list[Problem] = []
    for name in names:
        problem = hostname_problem(name)
        if problem is None:
            good.append(name)
        else:
            problems.append(Problem(ref, "--fqdn-template", options.template.text,
                                    f"hostname skipped: {problem}", obj=obj))
    return good, problems


def template_endpoints(obj: Mapping[str, Any], options: SourceOptions, kind: str, ref: str,
                       existing: list[Endpoint], own: Callable[[str], list[Endpoint]],
                       with_targets: Callable[[str, list[str]], list[Endpoint]], *, pairs: bool = True,
                       ) -> tuple[list[Endpoint], list[Problem]]:
    """The endpoints after the templates, as external-dns's template engine combines them: without
    `--combine-fqdn-annotation` templates are used only when `existing` is empty. First the
    `--fqdn-target-template` `host:target` pairs (unless `pairs` is off: Go's Ingress source reads none); then
    (if those gave none, or combining) the `--fqdn-template` names with the object's own targets (`own(host)`).
    `with_targets(host, targets)` builds endpoints for given targets. `--target-template` is not applied: Go
    applies it only in sources whose targets come from templates (gloo, traefik, f5, unstructured), never in
    Service, Ingress, Node or Pod (docs/migrating.md#target-template-on-services-and-ingresses)."""
    if not options.any_template or (existing and not options.combine_fqdn_annotation):
        return existing, []
    problems: list[Problem] = []
    result = list(existing) if options.combine_fqdn_annotation else []
    paired = _pair_endpoints(obj, options, kind, ref, with_targets, problems) if pairs else []
    result.extend(paired)
    if paired and not options.combine_fqdn_annotation:
        return result, problems
    names, name_problems = template_hostnames(obj, options, kind, ref)
    problems.extend(name_problems)
    for host in names:
        result.extend(own(host))
    return result, problems


def _pair_endpoints(obj: Mapping[str, Any], options: SourceOptions, kind: str, ref: str,
                    with_targets: Callable[[str, list[str]], list[Endpoint]], problems: list[Problem],
                    ) -> list[Endpoint]:
    if options.fqdn_target is None:
        return []
    flag, text = "--fqdn-target-template", options.fqdn_target.text
    try:
        pairs, skipped = options.fqdn_target.pairs(obj, kind, source_name(kind))
    except TemplateError as exc:
        problems.append(Problem(ref, flag, text, str(exc), obj=obj))
        return []
    for item in skipped:  # external-dns skips these at debug level: a field may not be populated yet
        log.debug(f"Skipping incomplete host:target pair \"{item}\" from {ref}")
    targets_by_host: dict[str, list[str]] = {}
    for host, target in pairs:
        problem = hostname_problem(host)
        if problem is not None:
            problems.append(Problem(ref, flag, text, f"hostname skipped: {problem}", obj=obj))
            continue
        targets_by_host.setdefault(host, []).append(target)
    return [ep for host, targets in targets_by_host.items() for ep in with_targets(host, targets)]


def attach(endpoints: list[Endpoint], obj: Mapping[str, Any], resource: str) -> list[Endpoint]:
    """Set the `resource` label and remember `obj` in ref_objects on every endpoint."""
    for ep in endpoints:
        ep.labels[RESOURCE_LABEL_KEY] = resource
        if not any(r is obj for r in ep.ref_objects):
            ep.ref_objects.append(obj)
    return endpoints
