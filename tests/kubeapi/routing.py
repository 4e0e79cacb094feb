"""URL routing and query-parameter parsing of the test API server: discovery documents vs resource
`Route`s, and the booleans / integers / resourceVersions the API server accepts (400 BadRequest otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.kubeapi import errors as E
from tests.kubeapi import resources as R

_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


@dataclass(frozen=True)
class Route:
    """A parsed resource URL."""

    rt: R.ResourceType
    namespace: str  # "" = all namespaces / cluster-scoped
    name: str
    subresource: str


def parse_bool(query: dict[str, str], name: str) -> bool:
    value = query.get(name)
    if value is None or value == "":
        return False
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise E.bad_request(f'invalid boolean value "{value}" for parameter {name}: strconv.ParseBool: parsing '
                        f'"{value}": invalid syntax')


def parse_int(query: dict[str, str], name: str) -> int:
    value = query.get(name)
    if value is None or value == "":
        return 0
    try:
        return int(value)
    except ValueError:
        raise E.bad_request(f'invalid value "{value}" for parameter {name}: strconv.ParseInt: parsing '
                            f'"{value}": invalid syntax') from None


def parse_rv(value: str) -> str:
    if value in ("", "0"):
        return value
    if not value.isdigit():
        raise E.bad_request(f'invalid resource version "{value}": resourceVersion: Invalid value: "{value}": '
                            f"strconv.ParseUint: parsing \"{value}\": invalid syntax")
    return str(int(value))


def _not_found_path() -> E.ApiError:
    return E.make_error(404, "NotFound", "the server could not find the requested resource",
                        {"causes": [{"reason": "UnexpectedServerResponse", "message": "404 page not found"}]})


def route(path: str) -> Route | dict[str, Any]:
    """A discovery document, or the resource Route for `path`; 404 NotFound otherwise."""
    parts = [p for p in path.split("/") if p]
    if parts == ["version"]:
        return {"major": "1", "minor": "36", "gitVersion": "v1.36.2", "gitCommit": "kubeapi-test-server",
                "gitTreeState": "clean", "buildDate": "2026-06-01T00:00:00Z", "goVersion": "go1.25.0",
                "compiler": "gc", "platform": "linux/amd64"}
    if parts == ["api"]:
        return {"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:0"}]}
    if parts == ["apis"]:
        return R.api_group_list()
    if len(parts) >= 2 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 2 and parts[0] == "apis":
        if len(parts) == 2:
            doc = R.api_group(parts[1])
            if doc is None:
                raise _not_found_path()
            return doc
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise _not_found_path()
    if not rest:
        doc = R.resource_list(group, version)
        if doc is None:
            raise E.PageNotFound()  # no such group/version: text, not a Status (as the real server)
        return doc
    namespace = ""
    if rest[0] == "namespaces" and len(rest) >= 3 and (group, version, rest[2]) in R.BY_PATH \
            and R.BY_PATH[(group, version, rest[2])].namespaced:
        namespace, rest = rest[1], rest[2:]
    rt = R.BY_PATH.get((group, version, rest[0]))
    if rt is None or len(rest) > 3 or (namespace and not rt.namespaced):
        raise _not_found_path()
    name = rest[1] if len(rest) > 1 else ""
    sub = rest[2] if len(rest) > 2 else ""
    if sub and not (sub == "status" and rt.status_subresource):
        raise _not_found_path()
    if name and rt.namespaced and not namespace:
        raise _not_found_path()
    return Route(rt, namespace, name, sub)


def exact_name(field_selector: str) -> str:
    """The name a `metadata.name=<x>` fieldSelector pins a list/watch to (RBAC resourceNames apply), else ""."""
    for term in field_selector.split(","):
        key, sep, value = term.partition("==") if "==" in term else term.partition("=")
        if sep and not key.endswith("!") and key.strip() == "metadata.name":
            return value.strip()
    return ""
