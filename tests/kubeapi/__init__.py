"""Test Kubernetes API server: a strict, threaded HTTP/1.1 kube-apiserver stand-in for tests and benches.

It speaks the Kubernetes REST API in JSON to the real `kubernetes` client (kubeconfig or
`Configuration(host=...)`), with one global resourceVersion counter, a bounded watch history, paging over
consistent snapshots, bookmarks, 410s, finalizers, status subresources, RBAC tokens and fault injection.

Served resources: core/v1 Namespaces, Services (status), Events, Pods (status), Nodes (status), Endpoints;
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
optional `resourceNames`, and our extension `namespaces` to model a namespaced Role). No token configured = everything allowed; otherwise missing/unknown token -> 401,
disallowed -> 403 Forbidden naming verb, resource and group.

Assertions: `requests` -> list of (method, path, query dict, status); `clear_requests()`; `open_watch_count`;
`wait_for_watches(count, timeout=5.0, path_contains=None) -> bool` (Condition-based; use it before
`cut_watches()`/`silence_watches()` so the fault hits the watch you mean).

Fixtures (`tests.kubeapi.fixtures`, a pytest plugin loaded by tests/conftest.py): `kubeapi_server`
(session), `kubeapi` (function scope: reset, namespace "default" created), `kube_config`,
`kube_api_client` (closed afterwards), `kubeconfig_file` (path in tmp_path).
"""
