"""API errors of the test API server, rendered as `Status` objects exactly like kube-apiserver does.

`ApiError` carries code/reason/message/details; `ApiConflict` (409) and `ApiNotFound` (404) are the
subclasses direct-access callers catch. The `*_error` helpers build the common cases with real messages.
"""

from __future__ import annotations

import json
from typing import Any

from tests.kubeapi.resources import ResourceType


class ApiError(Exception):
    """A failed API call: HTTP status `code`, `reason`, human `message` and Status `details`."""

    def __init__(self, code: int, reason: str, message: str, details: dict[str, Any] | None = None,
                 retry_after: int | None = None) -> None:
        super().__init__(f"{code} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.retry_after = retry_after

    def status(self) -> dict[str, Any]:
        """The Status object the server sends for this error."""
        out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                               "message": self.message}
        if self.reason:  # omitempty
            out["reason"] = self.reason
        if self.details is not None:
            out["details"] = self.details
        out["code"] = self.code
        return out


class ApiConflict(ApiError):
    """409: AlreadyExists on create, Conflict on a stale resourceVersion or failed precondition."""


class ApiNotFound(ApiError):
    """404 NotFound."""


class PageNotFound(ApiNotFound):
    """404 for a path no API group serves: the real server answers `404 page not found` as text/plain."""

    def __init__(self) -> None:
        super().__init__(404, "NotFound", "404 page not found")


def make_error(code: int, reason: str, message: str, details: dict[str, Any] | None = None,
               retry_after: int | None = None) -> ApiError:
    """An ApiError of the most specific subclass for `code`."""
    cls: type[ApiError] = ApiError
    if code == 409:
        cls = ApiConflict
    elif code == 404:
        cls = ApiNotFound
    return cls(code, reason, message, details, retry_after)


def _details(rt: ResourceType, name: str) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name}
    if rt.group:
        d["group"] = rt.group
    d["kind"] = rt.plural
    return d


def not_found(rt: ResourceType, name: str) -> ApiError:
    return make_error(404, "NotFound", f'{rt.group_resource} "{name}" not found', _details(rt, name))


def already_exists(rt: ResourceType, name: str) -> ApiError:
    return make_error(409, "AlreadyExists", f'{rt.group_resource} "{name}" already exists', _details(rt, name))


def conflict(rt: ResourceType, name: str, why: str) -> ApiError:
    return make_error(409, "Conflict", f'Operation cannot be fulfilled on {rt.group_resource} "{name}": {why}',
                      _details(rt, name))


def precondition_failed(rt: ResourceType, name: str, field: str, given: Any, stored: Any, what: str) -> ApiError:
    """A delete's precondition that does not hold: the real server names the kind here (not the resource)."""
    kind = f"{rt.kind}.{rt.group}" if rt.group else rt.kind
    details: dict[str, Any] = {"name": name, **({"group": rt.group} if rt.group else {}), "kind": rt.kind}
    return make_error(409, "Conflict", f'Operation cannot be fulfilled on {kind} "{name}": the {field} in the '
                                       f"precondition ({given}) does not match the {field} in record ({stored}). The "
                                       f"object might have been {what}", details)


def patch_invalid(patched: str, why: str) -> ApiError:
    """422 for a patch whose result does not decode: the real server names no kind or object, only `patch`."""
    message = f'Invalid value: {json.dumps(patched)}: {why}'
    return make_error(422, "Invalid", f' "" is invalid: patch: {message}',
                      {"causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]})


def storage_key(rt: ResourceType, namespace: str, name: str) -> str:
    """The object's etcd key as storage errors print it: /registry/<resource>[/<namespace>]/<name>, Services
    under services/specs, custom resources under their group."""
    resource = "services/specs" if (rt.group, rt.plural) == ("", "services") else (
        rt.plural if rt.builtin else f"{rt.group}/{rt.plural}")
    return "/".join(["/registry", resource, *([namespace] if namespace else []), name])


STALE = "the object has been modified; please apply your changes to the latest version and try again"


def bad_request(message: str) -> ApiError:
    return make_error(400, "BadRequest", message)


def invalid(kind: str, name: str, causes: list[tuple[str, str, str]], group: str = "") -> ApiError:
    """422 Invalid; `causes` are (field, reason, message-after-field) triples, e.g.
    ("metadata.name", "FieldValueInvalid", 'Invalid value: "A": ...')."""
    parts = [f"{f}: {m}" for f, _r, m in causes]
    summary = parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
    details: dict[str, Any] = {"name": name} if name else {}  # omitempty, as the real server
    if group:
        details["group"] = group
    details["kind"] = kind
    details["causes"] = [{"reason": r, "message": m, "field": f} for f, r, m in causes]
    return make_error(422, "Invalid", f'{kind}{"." + group if group else ""} "{name}" is invalid: {summary}',
                      details)


def gone(message: str) -> ApiError:
    return make_error(410, "Expired", message)


def too_large_rv(requested: int, current: int) -> ApiError:
    return make_error(504, "Timeout", f"Timeout: Too large resource version: {requested}, current: {current}",
                      {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                       "retryAfterSeconds": 1})


def forbidden(message: str, details: dict[str, Any]) -> ApiError:
    return make_error(403, "Forbidden", message, details)
