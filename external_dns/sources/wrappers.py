"""Source wrappers (external-dns `source/wrappers`): the pipeline between the sources and the plan.

- `MultiSource(sources, default_targets=(), force_default_targets=False)`: concatenates its children,
  applies `--default-targets`, then de-duplicates as external-dns's dedup source: endpoints failing the edge
  validation (`endpoint/limits.py`: every field against DNS's limits, a superset of `check_endpoint`) are
  dropped with a warning naming the object and field (and listed in `problems`), multi-target lists are normalised (sorted, unique) and exact
  duplicates (type, name, set identifier, targets) are removed (their ref_objects merge into the kept one).
- `TargetFilterSource(source, target_filter)`: `--target-net-filter` / `--exclude-target-net`; an endpoint
  whose targets are all filtered out is dropped.
- `PostProcessorSource(source, min_ttl=0, provider="", prefer_alias=False)`: `--min-ttl` (only unset
  TTLs), provider-specific properties of other providers removed, `--prefer-alias` on CNAMEs.

Each forwards `add_event_handler` to its children, exposes the children's `problems` and names them in
`wrapped()`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence

import structlog

from external_dns.endpoint.endpoint import (
    PROVIDER_SPECIFIC_ALIAS,
    RECORD_TYPE_CNAME,
    RESOURCE_LABEL_KEY,
    Endpoint,
)
from external_dns.endpoint.limits import (
    describe,
    endpoint_problem,
    endpoint_ref,
    hold_of,
    is_hold,
    short,
    to_ascii,
)
from external_dns.endpoint.target_filter import TargetNetFilter
from external_dns.endpoint.targets import Targets, new_targets
from external_dns.endpoint.utils import endpoints_for_hostname
from external_dns.sources import metrics
from external_dns.sources.problems import Problem
from external_dns.sources.source import Source, problems_of

log = structlog.get_logger(__name__)


def _source_type(ep: Endpoint) -> str:
    resource = ep.labels.get(RESOURCE_LABEL_KEY, "")
    return resource.split("/", 1)[0] if "/" in resource else "unknown"


def apply_default_targets(endpoints: Iterable[Endpoint], default_targets: Sequence[str],
                          force: bool = False) -> list[Endpoint]:
    """Endpoints without targets (all of them with `force`) get `default_targets`, the record type
    recomputed from the targets (labels, TTL, set identifier and provider-specific properties kept)."""
    if not default_targets:
        return list(endpoints)
    out: list[Endpoint] = []
    for ep in endpoints:
        if is_hold(ep):
            out.append(ep)  # a refused endpoint's stand-in: no targets on purpose
            continue
        if ep.targets and not force:
            log.warning(f"Endpoint {ep.dns_name} has targets; --default-targets not applied",
                        dns_name=ep.dns_name)
            out.append(ep)
            continue
        for new in endpoints_for_hostname(ep.dns_name, default_targets, ep.record_ttl, ep.provider_specific,
                                          ep.set_identifier):
            new.labels = {**ep.labels, **new.labels}
            new.ref_objects = list(ep.ref_objects)
            out.append(new)
    return out


def dedup_endpoints(endpoints: Iterable[Endpoint], skipped: list[Problem] | None = None) -> list[Endpoint]:
    """Replace invalid endpoints by holds (warning naming the object and field; a Problem appended to
    `skipped`): the plan then keeps their name and type's current records as they are (endpoint/limits.py);
    drop exact duplicates; publish the wrapper metrics."""
    invalid: Counter[tuple[str, str]] = Counter()
    duplicated: Counter[tuple[str, str]] = Counter()
    seen: dict[str, Endpoint] = {}
    out: list[Endpoint] = []
    for ep in endpoints:
        if ep is None:
            continue
        if not ep.targets and is_hold(ep):
            out.append(ep)  # a source's own hold (an object field it could not read), warned about there
            continue
        problem = endpoint_problem(ep)  # every field against DNS's limits (endpoint/limits.py)
        if problem is not None:
            hold = hold_of(ep, problem)
            if hold is not None:
                out.append(hold)
            where = endpoint_ref(ep)
            log.warning(f"Skipping endpoint [{short(ep.set_identifier, 40)[1:-1]}:{short(ep.dns_name)[1:-1]}] "
                        f"due to invalid configuration [{ep.record_type}:{short(';'.join(ep.targets))[1:-1]}]",
                        **{k: v for k, v in (("object", where), ("field", problem.field),
                                             ("reason", problem.reason)) if v})
            invalid[(ep.record_type, _source_type(ep))] += 1
            if skipped is not None:
                obj = ep.ref_objects[0] if ep.ref_objects else None
                skipped.append(Problem(where or describe(ep), problem.field, "",
                                       f"{describe(ep)}: {problem.reason}; endpoint skipped", obj=obj))
            continue
        to_ascii(ep)  # IDNA names and host targets as the providers store them
        if len(ep.targets) > 1:
            ep.targets = new_targets(*ep.targets)
        identity = f"{ep.record_type}/{ep.dns_name}/{ep.set_identifier}/{';'.join(ep.targets)}"
        kept = seen.get(identity)
        if kept is not None:
            log.debug(f"Removing duplicate endpoint {ep}")
            duplicated[(ep.record_type, _source_type(ep))] += 1
            for ref in ep.ref_objects:
                if not any(ref is r for r in kept.ref_objects):
                    kept.ref_objects.append(ref)
            continue
        seen[identity] = ep
        out.append(ep)
    metrics.publish(metrics.SOURCE_INVALID_ENDPOINTS, invalid)
    metrics.publish(metrics.SOURCE_DEDUPLICATED_ENDPOINTS, duplicated)
    return out


class MultiSource(Source):
    """All children's endpoints, with default targets applied, invalid ones and duplicates removed."""

    def __init__(self, sources: Sequence[Source], default_targets: Sequence[str] = (),
                 force_default_targets: bool = False) -> None:
        self.sources = list(sources)
        self.default_targets = [t for t in default_targets if t]
        self.force_default_targets = force_default_targets
        self._skipped: list[Problem] = []  # endpoints refused by the last `endpoints()` (edge validation)

    @property
    def problems(self) -> list[Problem]:
        return problems_of(self.sources) + self._skipped

    def wrapped(self) -> Sequence[Source]:
        return self.sources

    def endpoints(self) -> list[Endpoint]:
        collected: list[Endpoint] = []
        for source in self.sources:
            collected.extend(source.endpoints())
        collected = apply_default_targets(collected, self.default_targets, self.force_default_targets)
        skipped: list[Problem] = []
        out = dedup_endpoints(collected, skipped)
        self._skipped = skipped
        return out

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        for source in self.sources:
            source.add_event_handler(handler)

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        # Default targets and de-duplication work endpoint by endpoint and name by name: on the endpoints of
        # `names` they give exactly `endpoints()`'s endpoints of `names`.
        collected: list[Endpoint] = []
        for source in self.sources:
            part = source.endpoints_for_names(names)
            if part is None:
                return None
            collected.extend(part)
        collected = apply_default_targets(collected, self.default_targets, self.force_default_targets)
        return dedup_endpoints(collected, [])

    def take_dirty_names(self) -> set[str] | None:
        out: set[str] | None = set()
        for source in self.sources:
            part = source.take_dirty_names()  # every child is asked, so each forgets what it handed out
            out = None if out is None or part is None else out | part
        return out


class TargetFilterSource(Source):
    """Keeps only targets the TargetNetFilter admits; endpoints left without targets are dropped."""

    def __init__(self, source: Source, target_filter: TargetNetFilter) -> None:
        self.source = source
        self.target_filter = target_filter

    @property
    def problems(self) -> list[Problem]:
        return problems_of([self.source])

    def wrapped(self) -> Sequence[Source]:
        return (self.source,)

    def endpoints(self) -> list[Endpoint]:
        return self._filter(self.source.endpoints())

    def _filter(self, eps: list[Endpoint]) -> list[Endpoint]:
        if not self.target_filter.is_enabled():
            return eps
        out: list[Endpoint] = []
        for ep in eps:
            if is_hold(ep):
                out.append(ep)  # a refused endpoint's stand-in: no targets to filter
                continue
            kept = [t for t in ep.targets if self.target_filter.match(t)]
            if len(kept) != len(ep.targets):
                log.debug("Filtered targets", dns_name=ep.dns_name,
                          dropped=[t for t in ep.targets if t not in kept])
            if not kept:
                log.debug("Skipping endpoint because all targets were filtered out", endpoint=str(ep))
                continue
            ep.targets = Targets(kept)
            out.append(ep)
        return out

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.source.add_event_handler(handler)

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        eps = self.source.endpoints_for_names(names)
        return None if eps is None else self._filter(eps)

    def take_dirty_names(self) -> set[str] | None:
        return self.source.take_dirty_names()


class PostProcessorSource(Source):
    """`--min-ttl`, provider-specific properties of the configured provider only, `--prefer-alias`."""

    def __init__(self, source: Source, min_ttl: int = 0, provider: str = "", prefer_alias: bool = False) -> None:
        self.source = source
        self.min_ttl = min_ttl
        self.provider = provider
        self.prefer_alias = prefer_alias

    @property
    def problems(self) -> list[Problem]:
        return problems_of([self.source])

    def wrapped(self) -> Sequence[Source]:
        return (self.source,)

    def endpoints(self) -> list[Endpoint]:
        return self._process(self.source.endpoints())

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        eps = self.source.endpoints_for_names(names)
        return None if eps is None else self._process(eps)

    def take_dirty_names(self) -> set[str] | None:
        return self.source.take_dirty_names()

    def _process(self, eps: list[Endpoint]) -> list[Endpoint]:
        for ep in eps:
            if self.min_ttl > 0:
                ep.with_min_ttl(self.min_ttl)
            ep.retain_provider_properties(self.provider)
            if (self.prefer_alias and ep.record_type == RECORD_TYPE_CNAME
                    and ep.get_provider_specific_property(PROVIDER_SPECIFIC_ALIAS) is None):
                ep.set_provider_specific_property(PROVIDER_SPECIFIC_ALIAS, "true")
        return eps

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.source.add_event_handler(handler)
