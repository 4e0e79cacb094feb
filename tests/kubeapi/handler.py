"""HTTP/1.1 request handling of the test API server: one request -> verb, query validation, authorization,
store call, JSON response (URL routing lives in routing.py, watch streaming in watchstream.py). All state lives
in the owning `KubeAPIServer` (`self.server.api`).
"""

from __future__ import annotations

import json
import random
import socket
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import structlog

from tests.kubeapi import errors as E
from tests.kubeapi import resources as R
from tests.kubeapi.auth import Attributes
from tests.kubeapi.objects import StoredObject
from tests.kubeapi.routing import Route, exact_name, parse_bool, parse_int, parse_rv, route
from tests.kubeapi.selectors import parse_field_selector, parse_label_selector
from tests.kubeapi.watchers import Filter
from tests.kubeapi.watchstream import WatchStreamer

if TYPE_CHECKING:
    from tests.kubeapi.server import KubeAPIServer, _HTTPServer

log = structlog.get_logger(__name__)

class Handler(BaseHTTPRequestHandler):
    """One connection; `handle_one_request` dispatches each request to `_serve`."""

    protocol_version = "HTTP/1.1"
    server_version = "kubeapi-test"
    sys_version = ""
    timeout = 120
    server: _HTTPServer
    _warning = ""

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle + delayed ACK add ~40 ms each.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # Silence the default stderr access log; every request is recorded in api.requests instead.
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        api = self.server.api
        split = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        status = int(code) if isinstance(code, int) or str(code).isdigit() else 0
        api._log_request(self.command, split.path, query, status)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    # ------------------------------------------------------------------ plumbing
    @property
    def api(self) -> KubeAPIServer:
        return self.server.api

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        try:
            n = int(length)
        except ValueError:
            raise E.bad_request(f"invalid Content-Length {length!r}") from None
        return self.rfile.read(n) if n > 0 else b""

    def _send_json(self, code: int, payload: bytes, extra_headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        if self._warning:
            self.send_header("Warning", self._warning)
        self.send_header("Cache-Control", "no-cache, private")
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _send_error(self, err: E.ApiError) -> None:
        if isinstance(err, E.PageNotFound):
            payload = b"404 page not found\n"
            self.send_response(404)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        headers: dict[str, str] = {}
        if err.retry_after is not None:
            headers["Retry-After"] = str(err.retry_after)
        self._send_json(err.code, json.dumps(err.status(), separators=(",", ":")).encode(), headers)

    def _serve(self, method: str) -> None:
        self._warning = ""
        split = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        try:
            body = self._read_body()
            fault = self.api.faults.take_failure(split.path)
            if fault is not None:
                raise fault
            identity = self.api.authorizer.authenticate(self.headers.get("Authorization"))
            target = route(split.path)
            if isinstance(target, dict):
                if method != "GET":
                    raise E.make_error(405, "MethodNotAllowed", "the server does not allow this method on the "
                                                                "requested resource")
                if target.get("kind") == "APIVersions":
                    target["serverAddressByClientCIDRs"][0]["serverAddress"] = f"127.0.0.1:{self.api.port}"
                self._send_json(200, json.dumps(target, separators=(",", ":")).encode())
                return
            verb = self._verb(method, target, query)
            if target.rt.kind == "Endpoints" and target.rt.group == "":
                self._warning = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'
            if identity is not None:
                name = target.name or (exact_name(query.get("fieldSelector", "")) if verb in ("list", "watch")
                                       else "")
                self.api.authorizer.authorize(identity, Attributes(
                    verb, target.rt.group, target.rt.plural, target.subresource, target.namespace, name))
            self._dispatch(verb, target, query, body)
        except E.ApiError as err:
            self._send_error(err)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # an unexpected server bug: answer 500 and keep serving
            log.exception("kubeapi.internal_error", path=self.path, method=method)
            self._send_error(E.make_error(500, "InternalError", f"Internal error occurred: {exc!r}"))

    @staticmethod
    def _verb(method: str, target: Route, query: dict[str, str]) -> str:
        if method == "GET":
            if target.name:
                return "get"
            return "watch" if parse_bool(query, "watch") else "list"
        if method == "POST" and not target.name:
            if target.rt.namespaced and not target.namespace:  # with empty details, as the real server
                raise E.make_error(405, "MethodNotAllowed", "the server does not allow this method on the "
                                                            "requested resource", {})
            return "create"
        if method == "PUT" and target.name:
            return "update"
        if method == "PATCH" and target.name:
            return "patch"
        if method == "DELETE":
            if not target.name and target.rt.namespaced and not target.namespace:
                raise E.make_error(405, "MethodNotAllowed", "the server does not allow this method on the "
                                                            "requested resource")
            return "delete" if target.name else "deletecollection"
        raise E.make_error(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                                                    "resource")

    def _decode(self, rt: R.ResourceType, body: bytes) -> Any:
        try:
            return json.loads(body or b"null")
        except ValueError as exc:
            raise E.bad_request(f"the object provided is unrecognized (must be of type {rt.kind}): couldn't get "
                                f"version/kind; json parse error: {exc}") from None

    def _decode_object(self, rt: R.ResourceType, body: bytes) -> Any:
        """A create's or update's body. A custom resource's must say what it is (the real server decodes it
        without a defaulting scheme): no kind is a 400 quoting the body, another kind a 422."""
        obj = self._decode(rt, body)
        if rt.builtin or not isinstance(obj, dict):
            return obj
        if not obj.get("kind"):
            text = body.decode(errors="replace")
            summary = text[:30] + " ..." if len(text) > 30 else text or "<empty>"
            raise E.bad_request(f"the object provided is unrecognized (must be of type {rt.kind}): Object 'Kind' is "
                                f"missing in '{text}' ({summary})")
        if not obj.get("apiVersion"):
            raise E.bad_request(f"the API version in the data () does not match the expected API version "
                                f"({rt.api_version})")
        if obj["kind"] != rt.kind and isinstance(obj["kind"], str):
            meta = obj.get("metadata")
            name = meta.get("name", "") if isinstance(meta, dict) else ""
            raise E.invalid(obj["kind"], name, [("kind", "FieldValueInvalid",
                                                 f'Invalid value: "{obj["kind"]}": must be {rt.kind}')], rt.group)
        return obj

    def _filter(self, target: Route, query: dict[str, str]) -> Filter:
        labels = parse_label_selector(query["labelSelector"]) if query.get("labelSelector") else None
        allowed = ("metadata.name", "metadata.namespace", *target.rt.field_labels)
        fields = parse_field_selector(query["fieldSelector"], allowed) if query.get("fieldSelector") else None
        return Filter(target.namespace if target.rt.namespaced and target.namespace else None, labels, fields)

    # ------------------------------------------------------------------ verbs
    def _dispatch(self, verb: str, t: Route, query: dict[str, str], body: bytes) -> None:
        store = self.api.store
        dry_run = query.get("dryRun") == "All"
        options_kind = {"create": "CreateOptions", "update": "UpdateOptions", "patch": "PatchOptions",
                        "delete": "DeleteOptions", "deletecollection": "DeleteOptions"}.get(verb)
        if options_kind and query.get("dryRun") not in (None, "", "All"):
            value = query["dryRun"]
            raise E.invalid(options_kind, "", [("dryRun", "FieldValueNotSupported",
                                                f'Unsupported value: ["{value}"]: supported values: '
                                                f'"All"')], "meta.k8s.io")
        if verb == "get":
            so = store.get(t.rt, t.namespace, t.name)
            self._send_json(200, so.full_json)
        elif verb == "list":
            self._list(t, query)
        elif verb == "watch":
            self._watch(t, query)
        elif verb == "create" or self._creates_on_update(verb, t):
            so = store.create(t.rt, t.namespace, self._decode_object(t.rt, body), dry_run=dry_run)
            self._send_json(201, so.full_json)
        elif verb == "update":
            so = store.update(t.rt, t.namespace, t.name, self._decode_object(t.rt, body), subresource=t.subresource,
                              dry_run=dry_run)
            self._send_json(200, so.full_json)
        elif verb == "patch":
            ctype = self.headers.get("Content-Type", "")
            so = store.patch(t.rt, t.namespace, t.name, ctype, self._decode(t.rt, body),
                             subresource=t.subresource, dry_run=dry_run)
            self._send_json(200, so.full_json)
        elif verb == "delete":
            self._delete(t, body, dry_run)
        else:
            self._delete_collection(t, query, dry_run)

    def _creates_on_update(self, verb: str, t: Route) -> bool:
        """A PUT to a missing object of a kind whose strategy allows it creates it."""
        if verb != "update" or not t.rt.create_on_update or t.subresource:
            return False
        try:
            self.api.store.get(t.rt, t.namespace, t.name)
        except E.ApiNotFound:
            return True
        return False

    def _list(self, t: Route, query: dict[str, str]) -> None:
        rv = parse_rv(query.get("resourceVersion", ""))
        rv_match = query.get("resourceVersionMatch", "")
        cont = query.get("continue", "")
        limit = parse_int(query, "limit")
        causes: list[tuple[str, str, str]] = []
        # each rule reports on its own, in the real server's order (ValidateListOptions)
        if rv_match and rv_match not in ("Exact", "NotOlderThan"):
            causes.append(("resourceVersionMatch", "FieldValueNotSupported",
                           f'Unsupported value: "{rv_match}": supported values: "Exact", "NotOlderThan", ""'))
        elif rv_match and not rv:
            causes.append(("resourceVersionMatch", "FieldValueForbidden",
                           "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if rv_match in ("Exact", "NotOlderThan") and cont:
            causes.append(("resourceVersionMatch", "FieldValueForbidden",
                           "Forbidden: resourceVersionMatch is forbidden when continue is provided"))
        if rv_match == "Exact" and rv == "0":
            causes.append(("resourceVersionMatch", "FieldValueForbidden",
                           'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
        if "sendInitialEvents" in query:
            causes.append(("sendInitialEvents", "FieldValueForbidden",
                           "Forbidden: sendInitialEvents is forbidden for list"))
        if causes:
            raise E.invalid("ListOptions", "", causes, "meta.k8s.io")
        if cont and rv not in ("", "0"):
            raise E.bad_request("specifying resource version is not allowed when using continue")
        payload = self.api.store.list_json(t.rt, self._filter(t, query), limit=max(limit, 0), cont=cont, rv=rv,
                                      rv_match=rv_match)
        self._send_json(200, payload)

    def _delete(self, t: Route, body: bytes, dry_run: bool) -> None:
        opts = self._decode(t.rt, body) if body.strip() else {}
        if not isinstance(opts, dict):
            raise E.bad_request("DeleteOptions must be a JSON object")
        if opts.get("dryRun") == ["All"]:
            dry_run = True
        pre = opts.get("preconditions")
        so, deleted = self.api.store.delete(t.rt, t.namespace, t.name,
                                            preconditions=pre if isinstance(pre, dict) else None,
                                            dry_run=dry_run)
        if not deleted or t.rt.return_deleted_object:  # waiting for finalizers: 200 with the object too
            self._send_json(200, so.full_json)
        else:
            self._send_json(200, _success_status(t.rt, so))

    def _delete_collection(self, t: Route, query: dict[str, str], dry_run: bool) -> None:
        store = self.api.store
        victims = store.list_objects(t.rt, self._filter(t, query))
        items: list[bytes] = []
        for so in victims:
            try:
                done, _ = store.delete(t.rt, so.key[0], so.key[1], dry_run=dry_run)
            except E.ApiNotFound:
                continue
            items.append(done.item_json())
        head = json.dumps({"kind": t.rt.list_kind, "apiVersion": t.rt.api_version,
                           "metadata": {"resourceVersion": str(store.rv)}}, separators=(",", ":"))[:-1].encode()
        self._send_json(200, head + b',"items":[' + b",".join(items) + b"]}")

    # ------------------------------------------------------------------ watch
    def _watch(self, t: Route, query: dict[str, str]) -> None:
        rv = parse_rv(query.get("resourceVersion", ""))
        rv_match = query.get("resourceVersionMatch", "")
        bookmarks = parse_bool(query, "allowWatchBookmarks")
        initial = parse_bool(query, "sendInitialEvents")
        timeout = parse_int(query, "timeoutSeconds")
        causes: list[tuple[str, str, str]] = []
        if "sendInitialEvents" in query:
            if rv_match != "NotOlderThan":
                causes.append(("resourceVersionMatch", "FieldValueForbidden",
                               "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
            if initial and not bookmarks:
                causes.append(("allowWatchBookmarks", "FieldValueForbidden",
                               "Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true"))
        elif rv_match:
            causes.append(("resourceVersionMatch", "FieldValueForbidden",
                           "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                           "provided"))
        if causes:
            raise E.invalid("ListOptions", "", causes, "meta.k8s.io")
        flt = self._filter(t, query)
        timeout_s = float(timeout) if timeout > 0 else self.api.min_request_timeout * (1 + random.random())
        w = self.api.store.open_watch(t.rt, flt, rv, initial_events_end=initial, path=urlsplit(self.path).path)
        # Registered before the headers go out: once a client has the response, faults and bookmarks reach it.
        self.api._watch_opened(w, self.connection)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-cache, private")
            if self._warning:
                self.send_header("Warning", self._warning)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            clean = WatchStreamer(self.api, self.wfile, self.connection).run(w, time.monotonic() + timeout_s,
                                                                               bookmarks)
        except OSError:
            clean = False
        except Exception:  # a server bug mid-stream: headers are gone, so abort the connection
            log.exception("kubeapi.watch_stream_failed", path=self.path)
            clean = False
        finally:
            self.api.store.close_watch(w)
            self.api._watch_closed(w)
        if clean:
            try:
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                self.close_connection = True
        else:
            self.close_connection = True

def _success_status(rt: R.ResourceType, so: StoredObject) -> bytes:
    details: dict[str, Any] = {"name": so.key[1]}
    if rt.group:
        details["group"] = rt.group
    details["kind"] = rt.plural
    details["uid"] = so.obj["metadata"].get("uid", "")
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                       "details": details}, separators=(",", ":")).encode()
