"""`--source=crd` on the shared informers: `DNSEndpointInformerSource(factory, options)`.

One informer on externaldns.k8s.io/v1alpha1 DNSEndpoints (CRD manifest: charts/external-dns-py/crds/),
label filter sent to the server (as external-dns), annotation filter and controller annotation in the
`withSelectors` index, slimmed (managedFields, last-applied, foreign annotations and status fields other
than observedGeneration dropped). The DNSEndpoint -> endpoints logic is `objects.dnsendpoint_endpoints`,
unchanged (each bad `spec.endpoints[i]` is skipped with a problem naming its field; a spec that is not an
object is one error problem); the merge is `merge_dnsendpoint_endpoints`.

Status: after an `endpoints()` call computed an object's endpoints, an object whose
`status.observedGeneration` differs from `metadata.generation` gets it written through the status
subresource (`PUT .../dnsendpoints/<name>/status`, RBAC verb `update` on `dnsendpoints/status`), once per
generation; a 409 (the object changed meanwhile) is retried on the next call, a 404 is ignored, anything
else is a warning naming the object. Objects rejected as a whole (error problems) keep their status.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import DNSENDPOINTS, SharedInformerFactory
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
from external_dns.sources.informer.filters import (
    WITH_SELECTORS,
    admits_dnsendpoint,
    admitted_objects,
    selector_index,
)
from external_dns.sources.informer.service import annotation_keys_read
from external_dns.sources.informer.slim import dnsendpoint_transformer
from external_dns.sources.objects.dnsendpoint import (
    dnsendpoint_endpoints,
    dnsendpoint_needs_status_update,
    merge_dnsendpoint_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import ERROR, Problem, object_ref

log = structlog.get_logger(__name__)

STATUS_TIMEOUT = (5.0, 10.0)


class DNSEndpointInformerSource(InformerSource):
    name = "crd"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, *, update_status: bool = True,
                 sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        super().__init__(factory, options, sync_timeout=sync_timeout)
        self.admit = admits_dnsendpoint(options)
        self.update_status = update_status
        keep = annotation_keys_read(options)
        self.dnsendpoints = self._informer(DNSENDPOINTS, dnsendpoint_transformer(keep),
                                           {WITH_SELECTORS: selector_index(self.admit)},
                                           label_selector=options.label_filter or None, events=self.admit)
        self._status_lock = threading.Lock()
        self._status_written: set[tuple[str, Any]] = set()
        self.status_updates = 0

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        checks = [AccessCheck(DNSENDPOINTS, verb, ns) for verb in ("list", "watch")]
        if self.update_status:
            checks.append(AccessCheck(DNSENDPOINTS, "update", ns, "status"))
        return checks

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        endpoints: list[Endpoint] = []
        problems: list[Problem] = []
        done: list[dict[str, Any]] = []
        for obj in admitted_objects(self.dnsendpoints):
            eps, probs = dnsendpoint_endpoints(obj, self.options)
            endpoints.extend(eps)
            problems.extend(probs)
            if not any(p.severity == ERROR for p in probs):
                done.append(obj)
        if self.update_status:
            self.write_status(done)
        return merge_dnsendpoint_endpoints(endpoints), problems

    # -- status -----------------------------------------------------------------------------------------------
    def write_status(self, objs: list[dict[str, Any]]) -> None:
        """Set status.observedGeneration on the objects that lag (one writer at a time; others skip)."""
        if not self._status_lock.acquire(blocking=False):
            return
        try:
            live: set[tuple[str, Any]] = set()
            for obj in objs:
                meta = obj.get("metadata") or {}
                key = (f"{meta.get('namespace')}/{meta.get('name')}/{meta.get('uid')}", meta.get("generation"))
                live.add(key)
                if key in self._status_written or not dnsendpoint_needs_status_update(obj):
                    continue
                if self._put_status(obj):
                    self._status_written.add(key)
            self._status_written &= live
        finally:
            self._status_lock.release()

    def _put_status(self, obj: dict[str, Any]) -> bool:
        from kubernetes.client.exceptions import ApiException

        meta = obj.get("metadata") or {}
        ns, name = meta.get("namespace") or "default", meta.get("name")
        body = {"apiVersion": DNSENDPOINTS.api_version, "kind": DNSENDPOINTS.kind,
                "metadata": {"name": name, "namespace": ns, "resourceVersion": meta.get("resourceVersion")},
                "status": {**copy.deepcopy(obj.get("status") or {}), "observedGeneration": meta.get("generation")}}
        path = f"{DNSENDPOINTS.path(ns)}/{name}/status"
        try:
            resp = self.factory.api_client.call_api(
                path, "PUT", header_params={"Accept": "application/json", "Content-Type": "application/json"},
                body=body, auth_settings=["BearerToken"], _preload_content=False, _request_timeout=STATUS_TIMEOUT)
            resp.release_conn()
        except ApiException as exc:
            if exc.status == 409:
                log.debug("DNSEndpoint changed while updating its status; retrying on the next sync",
                          ref=object_ref(obj, "dnsendpoint"))
            elif exc.status == 404:
                return True
            elif exc.status == 403:
                log.warning(f"Could not update status of {object_ref(obj, 'dnsendpoint')}: forbidden; the "
                            "ClusterRole needs {apiGroups: [\"externaldns.k8s.io\"], resources: "
                            "[\"dnsendpoints/status\"], verbs: [\"update\"]}", error=str(exc.body)[:300])
            else:
                log.warning(f"Could not update status of {object_ref(obj, 'dnsendpoint')}",
                            status=exc.status, error=str(exc.body)[:300])
            return False
        except Exception as exc:
            log.warning(f"Could not update status of {object_ref(obj, 'dnsendpoint')}", error=repr(exc))
            return False
        self.status_updates += 1
        return True
