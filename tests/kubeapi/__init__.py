"""Test Kubernetes API server: a strict, threaded HTTP/1.1 kube-apiserver stand-in for tests and benches.

It speaks the Kubernetes REST API in JSON to the real `kubernetes` client (kubeconfig or
`Configuration(host=...)`), with one global resourceVersion counter, a bounded watch history, paging over
consistent snapshots, bookmarks, 410s, finalizers, status subresources, RBAC tokens and fault injection.

Served resources: core/v1 Namespaces, Services (status), Events, Pods (status), Nodes (status), Endpoints,
ConfigMaps, Secrets (stringData folded into base64 data);
discovery.k8s.io/v1 EndpointSlices; networking.k8s.io/v1 Ingresses (status); externaldns.k8s.io/v1alpha1
DNSEndpoints (status); kuadrant.io/v1alpha1 DNSRecords (status); coordination.k8s.io/v1 Leases;
events.k8s.io/v1 Events; plus /version, /api, /apis, /api/v1, /apis/<group>, /apis/<group>/<version>.

Helper API (`tests.kubeapi.server`)
-----------------------------------
`KubeAPIServer(host="127.0.0.1", port=0, history_size=1000)`
    `start()` (returns self), `stop()` (ends watches, closes sockets, joins threads; < ~1 s), `restart()`
    (same port, state kept), `reset()` (drops objects, history, faults, tokens, request log; cuts watches;
    keeps the port; the rv counter keeps increasing), `url`, `port`, `running`, `resource_version`.
    `write_kubeconfig(path, token=None) -> str`, `configuration(token=None) -> kubernetes.client.Configuration`.
    Usable as a context manager.

Direct object access (no HTTP; same validation, rv stamping and watch events as HTTP). Objects are addressed
by apiVersion + kind as in manifests; namespace "" for cluster-scoped kinds; returned dicts are copies:
    `create(obj) -> dict` (namespace defaults to "default"; the namespace must exist),
    `update(obj) -> dict` (stale metadata.resourceVersion -> `ApiConflict`; status ignored for kinds with a
    status subresource), `update_status(obj) -> dict` (changes status only),
    `patch(api_version, kind, namespace, name, merge_patch, subresource="") -> dict`,
    `delete(api_version, kind, namespace, name) -> dict` (with finalizers: sets deletionTimestamp and keeps
    the object until an update removes the last finalizer; Namespaces stay Terminating: no namespace
    controller), `get(api_version, kind, namespace, name) -> dict | None`,
    `list(api_version, kind, namespace=None) -> list[dict]`, `ensure_namespace(name) -> dict`.
    Errors raise `ApiError` (`.code`, `.reason`, `.message`, `.status()`), `ApiConflict` (409) and
    `ApiNotFound` (404) from `tests.kubeapi.errors` (re-exported by `tests.kubeapi.server`).

Faults:
    `cut_watches()` abort every open watch mid-stream; `silence_watches(seconds)` open watches send
    nothing (events held, connections open); `fail_next(n, status=500, retry_after=None, path_contains=None)`
    (429 gets Retry-After); `compact()` (next watch from an older rv and next continue token -> 410 Expired);
    `delete_silently(api_version, kind, ns, name)` (no DELETED event); `inject_malformed_line(count=1)`
    (the next watch event line is truncated, not JSON); `send_bookmarks()` (BOOKMARK now on watches that
    allow them); `bookmark_interval` (seconds between periodic BOOKMARKs, default 60; a BOOKMARK is also sent
    right before a watch's timeoutSeconds ends it); `min_request_timeout` (default watch length base, 1800 s).

Authorization: `add_token(token, rules, user=None)`, rules are ClusterRole-style dicts
(`{"apiGroups": [""], "resources": ["services", "services/status"], "verbs": ["list", "watch"]}`,
optional `resourceNames`, and our extension `namespaces` to model a namespaced Role). No token configured =
everything allowed; otherwise missing/unknown token -> 401, disallowed -> 403 Forbidden naming verb, resource
and group; discovery (/version, /api, /apis...) is open to any valid token.

Assertions: `requests` -> list of (method, path, query dict, status); `clear_requests()`;
`request_count(method=None, path_contains=None, status=None, **query) -> int`; `open_watch_count`;
`wait_for_watches(count, timeout=5.0, path_contains=None) -> bool` (Condition-based; use it before
`cut_watches()`/`silence_watches()` so the fault hits the watch you mean); `connection_count`,
`wait_for_connections(count, timeout=5.0) -> bool` (at most `count` client connections left open).

Raw HTTP for wire-level assertions: `tests.kubeapi.rawclient.RawClient(url, timeout=10, token=None)` with
`request(method, path, body, content_type) -> Response(status, headers, body, .json)` and
`watch(path) -> WatchStream` (`next_line()`, `next_event()`, `events()`; an aborted stream raises
`http.client.IncompleteRead`, a clean end returns b"" / None).

Semantics worth knowing (as kube-apiserver unless noted):
    * Validation is strict: names (DNS-1123 subdomain; Services and Namespaces RFC 1123 label), label
      and annotation keys/values, Service ports (required unless ExternalName/headless, names when > 1),
      Pod containers, EndpointSlice addressType, events.k8s.io required fields, MicroTime with exactly six
      fraction digits (Lease acquireTime/renewTime, eventTime; else 400). DNSEndpoint follows its CRD schema:
      wrong types -> 422, unknown fields pruned. Namespaced creates need the namespace to exist.
    * Create -> 201; update/patch -> 200 (a no-op write keeps the rv and sends no event); DELETE -> 200 with
      the object (Services, Pods, Namespaces, CRs) or a Success Status (others), 202 with the object when
      deletion is pending (finalizers; Namespaces stay Terminating for good: no namespace controller, no GC,
      propagationPolicy is ignored). Patch types: merge, strategic-merge (built-ins only, else 415), json-patch;
      server-side apply is 415.
    * The history is global (like etcd) and bounded by `history_size`; `compact()` and `reset()` advance the
      rv counter by one so a fresh list's rv can always be watched from.
    * urllib3 (under the kubernetes client) itself retries a 429 that carries Retry-After (sleeping that
      long): use `fail_next(..., status=429)` without `retry_after` to see the 429 in client code.
    * `silence_watches()` affects only watches open at the call; watches opened later stream normally.
    * A watch is registered before its response headers are sent: once a client holds the response, faults
      and `send_bookmarks()` reach it. To read "everything up to now" from a watch without waiting for its
      timeout, open it with allowWatchBookmarks=true, call `send_bookmarks()` and read up to the BOOKMARK
      (it is queued behind every event already due and carries the current rv).
    * Open watches wake at least once a second to notice a vanished peer (no busy loop; events are pushed
      through per-watch Conditions the moment they are written).

Fixtures (`tests.kubeapi.fixtures`, a pytest plugin loaded by tests/conftest.py): `kubeapi_server`
(session), `kubeapi` (function scope: reset, namespace "default" created), `kube_config`,
`kube_api_client` (closed afterwards), `kubeconfig_file` (path in tmp_path).
"""
