"""`InformerSource`: what the Service, Ingress and DNSEndpoint sources share.

* Informers come from the process-wide `SharedInformerFactory` (namespace `--namespace` or all), each with
  the source's slimming transformer and indexes, set before the factory starts.
* `endpoints()` reads only the caches (it never lists): the first call starts the factory and waits for the
  caches when nothing else did (`--once`), within `sync_timeout` (60 s, as external-dns) or raises
  `CacheSyncError` naming the informer.
* `add_event_handler(fn)`: `fn()` runs on every add/update/delete of an admitted object of the source's
  primary kind (and of EndpointSlices with `--listen-endpoint-events`), on the informer's delivery thread.
* Problems (bad annotations, bad spec fields) are logged once per object version as warnings naming
  `<kind>/<namespace>/<name>`, the field or annotation and the value; with a `recorder` (set by the
  process, see sources/informer/hooks.py) each also becomes a Warning Event on the object. `problems`
  holds the problems of the last `endpoints()` call.
* `check_access(api_client, checks)` asks the API server whether each verb the source needs is allowed (a
  LIST with limit=1, a WATCH closed at once, a status PUT on an object that does not exist) and raises
  `MissingPermissionError` naming every missing rule; the builders call it at start-up.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.events import Recorder, emit_problem_events
from external_dns.informers import (
    FilteringResourceEventHandler,
    InformerStartedError,
    Resource,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
    SharedInformerFactory,
    Transformer,
)
from external_dns.informers.api import ApiStatusError, TransportError, WatchStream, list_page
from external_dns.informers.store import IndexFunc
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem, log_problems
from external_dns.sources.source import Source

log = structlog.get_logger(__name__)

DEFAULT_SYNC_TIMEOUT = 60.0
_OPTIONS_NAMESPACE = object()
# informer -> union of the slimming needs of the sources sharing it (see `_shared_informer`)
_NEEDS: weakref.WeakKeyDictionary[SharedIndexInformer, frozenset[str]] = weakref.WeakKeyDictionary()
_NEEDS_LOCK = threading.Lock()
_PROBE_TIMEOUT = (5.0, 10.0)


class CacheSyncError(RuntimeError):
    """An informer cache did not sync in time (external-dns: `failed to sync <kind> after 60s`)."""


class ResourceNotServedError(RuntimeError):
    """The API server serves none of the versions of a resource a source reads (its CRD is not installed)."""


def served(api_client: Any, resource: Resource) -> bool | None:
    """Does the API server serve `resource` at its version? Asked through discovery
    (`/apis/<group>/<version>`, readable by every authenticated user); None when the answer is not known
    (connection or server error), so the caller keeps its default."""
    try:
        group_version = f"/apis/{resource.group}/{resource.version}" if resource.group else f"/api/{resource.version}"
        doc = list_page(api_client, group_version, [], _PROBE_TIMEOUT)
    except ApiStatusError as exc:
        return False if exc.status == 404 else None
    except TransportError:
        return None
    listed = doc.get("resources")
    return isinstance(listed, list) and any(isinstance(r, Mapping) and r.get("name") == resource.plural
                                            for r in listed)


def first_served(api_client: Any, candidates: Sequence[Resource], source: str) -> Resource:
    """The first of `candidates` (one resource in versions of preference) the API server serves; the last
    one when discovery cannot tell; ResourceNotServedError when it serves none of them."""
    answers = []
    for resource in candidates:
        answer = served(api_client, resource)
        if answer:
            return resource
        answers.append(answer)
    if any(a is None for a in answers):
        return candidates[-1]
    versions = " or ".join(r.version for r in candidates)
    first = candidates[0]
    raise ResourceNotServedError(
        f"--source={source}: the Kubernetes API server does not serve {first.plural} (API group "
        f'"{first.group}", version {versions}); install the CRD that defines it')


class MissingPermissionError(RuntimeError):
    """The API server refused a verb a source needs (RBAC)."""


@dataclass(frozen=True)
class AccessCheck:
    """One verb on one resource the source needs (`subresource` "status" for the status PUT)."""

    resource: Resource
    verb: str
    namespace: str | None = None
    subresource: str = ""

    def rule(self, verbs: Sequence[str] = ()) -> str:
        """The ClusterRole rule granting `verbs` (default: this check's verb), in YAML flow style."""
        resource = self.resource.plural + (f"/{self.subresource}" if self.subresource else "")
        verbs_text = ", ".join(f'"{v}"' for v in (verbs or [self.verb]))
        return f'{{apiGroups: ["{self.resource.group}"], resources: ["{resource}"], verbs: [{verbs_text}]}}'

    def describe(self) -> str:
        resource = self.resource.plural + (f"/{self.subresource}" if self.subresource else "")
        where = f'in namespace "{self.namespace}"' if self.namespace and self.resource.namespaced else \
            "cluster-wide"
        return f'{self.verb} {resource} (API group "{self.resource.group}") {where}'


def _probe(api_client: Any, check: AccessCheck) -> ApiStatusError | None:
    """None when the verb is allowed (any answer but 401/403), else the refusal."""
    path = check.resource.path(check.namespace)
    try:
        if check.verb == "list":
            list_page(api_client, path, [("limit", "1")], _PROBE_TIMEOUT)
        elif check.verb == "watch":
            try:
                page = list_page(api_client, path, [("limit", "1")], _PROBE_TIMEOUT)
                rv = str((page.get("metadata") or {}).get("resourceVersion") or "0")
            except ApiStatusError:
                rv = "0"  # list refused (reported by its own check): still find out about watch
            stream = WatchStream(api_client, path, [("watch", "true"), ("resourceVersion", rv),
                                                    ("timeoutSeconds", "1")], _PROBE_TIMEOUT)
            stream.close()
            stream.release()
        elif check.verb == "update":
            return _probe_update(api_client, check)
        else:
            raise ValueError(f"check_access: unsupported verb {check.verb!r}")
    except ApiStatusError as exc:
        return exc if exc.status in (401, 403) else None
    except TransportError:
        return None  # not an RBAC answer: the informer's own retries will report connection problems
    return None


def _probe_update(api_client: Any, check: AccessCheck) -> ApiStatusError | None:
    """PUT on an object that does not exist: authorization comes first, so 403 means not allowed."""
    from kubernetes.client.exceptions import ApiException

    namespace = check.namespace or "default"
    name = f"external-dns-access-probe-{uuid.uuid4().hex[:12]}"
    sub = f"/{check.subresource}" if check.subresource else ""
    body = {"apiVersion": check.resource.api_version, "kind": check.resource.kind,
            "metadata": {"name": name, "namespace": namespace}}
    try:
        resp = api_client.call_api(f"{check.resource.path(namespace)}/{name}{sub}", "PUT",
                                   header_params={"Accept": "application/json", "Content-Type": "application/json"},
                                   body=body, auth_settings=["BearerToken"], _preload_content=False,
                                   _request_timeout=_PROBE_TIMEOUT)
        resp.release_conn()
    except ApiException as exc:
        if exc.status in (401, 403):
            return ApiStatusError.from_response(int(exc.status), str(exc.reason or ""),
                                                (exc.body or b"") if isinstance(exc.body, bytes)
                                                else str(exc.body or "").encode(), None)
    except Exception:
        return None
    return None


# A probe is at most a list and a watch request, each bounded by _PROBE_TIMEOUT: a thread still running past
# this has hung in a way the timeouts did not catch.
_PROBE_JOIN = 3 * sum(_PROBE_TIMEOUT)


def _probe_all(api_client: Any, checks: Sequence[AccessCheck]) -> list[ApiStatusError | None]:
    """`_probe` of every check, all at once (one thread each, the first in the caller's): start-up waits for
    one round trip to the API server instead of one per verb (a Service source asks eight)."""
    answers: list[ApiStatusError | None] = [None] * len(checks)
    failures: list[BaseException] = []

    def probe(i: int) -> None:
        try:
            answers[i] = _probe(api_client, checks[i])
        except BaseException as exc:  # raised in the caller's thread below, as a sequential probe would
            failures.append(exc)

    threads = [threading.Thread(target=probe, args=(i,), name=f"access-check-{i}", daemon=True)
               for i in range(1, len(checks))]
    for thread in threads:
        thread.start()
    if checks:
        probe(0)
    for thread in threads:
        thread.join(_PROBE_JOIN)
    if failures:
        raise failures[0]
    return answers


def check_access(api_client: Any, checks: Iterable[AccessCheck], source: str) -> None:
    """Raise `MissingPermissionError` naming every refused verb and the ClusterRole rule it needs (verbs of
    one resource are grouped into one rule)."""
    refused: dict[tuple[Resource, str, str | None], list[tuple[str, ApiStatusError]]] = {}
    checks = list(checks)
    for check, answer in zip(checks, _probe_all(api_client, checks), strict=True):
        if answer is None:
            continue
        if answer.status == 401:
            raise MissingPermissionError(f"--source={source}: the Kubernetes API server refused the credentials "
                                         f"(401 Unauthorized): {answer.message}")
        refused.setdefault((check.resource, check.subresource, check.namespace), []).append((check.verb, answer))
    if not refused:
        return
    missing: list[str] = []
    for (resource, subresource, namespace), answers in refused.items():
        verbs = [verb for verb, _ in answers]
        group = AccessCheck(resource, ", ".join(verbs), namespace, subresource)
        missing.append(f"{group.describe()}: the ClusterRole needs the rule {group.rule(verbs)} "
                       f"(API server: {answers[0][1].message})")
    raise MissingPermissionError(
        f"--source={source}: missing RBAC permission(s): " + "; ".join(missing)
        + f". `external-dns rbac {source}` prints every rule this source needs")


class InformerSource(Source):
    """Base class (see the module docstring). Subclasses set `name`, build their informers in
    `__init__` through `_informer()` and implement `collect() -> (endpoints, problems)`."""

    name = "informer"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, *,
                 sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        self.factory = factory
        self.options = options
        self.sync_timeout = sync_timeout
        self.informers: dict[str, SharedIndexInformer] = {}
        self.recorder: Recorder | None = None
        self.problems: list[Problem] = []
        self._event_sources: list[tuple[SharedIndexInformer, Callable[[Any], bool] | None]] = []
        self._own_events: list[SharedIndexInformer] = []  # informers whose events the subclass dispatches
        self._report_lock = threading.Lock()
        self._reported: set[tuple[str, str, str]] = set()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self.informers)})"

    # -- set-up -------------------------------------------------------------------------------------------
    def _informer(self, resource: Resource, transformer: Transformer, indexers: Mapping[str, IndexFunc] = {},
                  *, label_selector: str | None = None,
                  events: Callable[[Any], bool] | bool | None = False,
                  namespace: str | object | None = _OPTIONS_NAMESPACE) -> SharedIndexInformer:
        """The factory's informer for `resource`, with `transformer` and the missing `indexers`. `events`:
        False = no event handlers; True = every event; a predicate = events of admitted objects.
        `namespace`: default `--namespace` (all when unset); None or a name overrides it."""
        ns = (self.options.namespace or None) if namespace is _OPTIONS_NAMESPACE else namespace
        informer = self.factory.informer_for(resource, namespace=ns if isinstance(ns, str) and ns else None,
                                             label_selector=label_selector or None)
        try:
            informer.set_transform(transformer)
        except InformerStartedError:
            log.warning("informer already started; its objects are not slimmed for this source",
                        informer=informer.name, source=self.name)
        present = informer.get_store().get_indexers()
        wanted = {k: v for k, v in indexers.items() if k not in present}
        if wanted:
            informer.add_indexers(wanted)
        self.informers[resource.plural] = informer
        if events is not False:
            self._event_sources.append((informer, None if events is True else events))
        return informer

    def _shared_informer(self, resource: Resource, build: Callable[[frozenset[str]], Transformer],
                         needs: Iterable[str], indexers: Mapping[str, IndexFunc] = {}, *,
                         events: Callable[[Any], bool] | bool | None = False,
                         namespace: str | object | None = _OPTIONS_NAMESPACE) -> SharedIndexInformer:
        """An informer several sources share (Pods, Nodes) with different slimming needs: the transformer is
        rebuilt by `build` from the union of every source's `needs`, so the last source set up never cuts
        fields an earlier one reads."""
        ns = (self.options.namespace or None) if namespace is _OPTIONS_NAMESPACE else namespace
        informer = self.factory.informer_for(resource, namespace=ns if isinstance(ns, str) and ns else None)
        with _NEEDS_LOCK:
            union = _NEEDS.get(informer, frozenset()) | frozenset(needs)
            _NEEDS[informer] = union
        return self._informer(resource, build(union), indexers, events=events, namespace=namespace)

    # -- Source ---------------------------------------------------------------------------------------------
    def add_event_handler(self, handler: Callable[[], None]) -> None:
        def fire(*_: Any) -> None:
            handler()

        def fire_on_change(old: Any, new: Any) -> None:
            # An update that changed nothing the cache keeps (a Node heartbeat, a Pod condition time: the
            # slimmed objects differ only in resourceVersion) needs no sync.
            if _differs(old, new):
                handler()

        funcs = ResourceEventHandlerFuncs(on_add=fire, on_update=fire_on_change, on_delete=fire)
        for informer, admit in self._event_sources:
            if any(informer is own for own in self._own_events):
                continue  # the subclass calls the handlers itself (after its own bookkeeping)
            informer.add_event_handler(funcs if admit is None else FilteringResourceEventHandler(admit, funcs),
                                       resync_period=0)

    def wait_synced(self) -> None:
        """Start the factory (if needed) and wait for this source's caches (CacheSyncError on timeout)."""
        informers = list(self.informers.values())
        if all(i.has_synced() for i in informers):
            return
        self.factory.start()
        deadline = time.monotonic() + self.sync_timeout
        for informer in informers:
            if not informer.wait_for_cache_sync(max(0.0, deadline - time.monotonic())):
                raise CacheSyncError(f"failed to sync {informer.name} after {self.sync_timeout:g}s")

    def endpoints(self) -> list[Endpoint]:
        """The desired endpoints of the cached objects (the caches are never listed again here)."""
        self.wait_synced()
        endpoints, problems = self.collect()
        self.report(problems)
        return endpoints

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        """The endpoints of every admitted cached object and the problems found."""
        raise NotImplementedError

    # -- problems -------------------------------------------------------------------------------------------
    def report(self, problems: Sequence[Problem], *, partial: bool = False) -> list[Problem]:
        """Log (and send as Events) the problems not reported for this object version yet; returns them.
        `partial`: the problems of some objects only (a by-name read): the others' stay remembered."""
        current: dict[tuple[str, str, str], Problem] = {}
        for p in problems:
            current.setdefault((str(p), p.severity, _version(p.obj)), p)
        with self._report_lock:
            fresh = [p for key, p in current.items() if key not in self._reported]
            if partial:
                self._reported |= set(current)
            else:
                self._reported = set(current)
                self.problems = list(problems)
        if fresh:
            log_problems(fresh, log)
            recorder = self.recorder
            if recorder is not None:
                with contextlib.suppress(Exception):
                    emit_problem_events(recorder, fresh)
        return fresh


def _differs(old: Any, new: Any) -> bool:
    """False when two cached versions of an object are equal apart from metadata.resourceVersion."""
    if not isinstance(old, Mapping) or not isinstance(new, Mapping) or old.keys() != new.keys():
        return True
    for key, value in new.items():
        if key == "metadata" and isinstance(value, Mapping) and isinstance(old[key], Mapping):
            before = old[key]
            if before.keys() != value.keys() or any(before[k] != v for k, v in value.items()
                                                    if k != "resourceVersion"):
                return True
        elif old[key] != value:
            return True
    return False


def _version(obj: Mapping[str, Any] | None) -> str:
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    if not isinstance(meta, Mapping):
        return ""
    return f"{meta.get('uid') or ''}@{meta.get('resourceVersion') or ''}"
