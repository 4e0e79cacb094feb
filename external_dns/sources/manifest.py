"""The `manifest` source: Kubernetes objects read from YAML/JSON files instead of a cluster.

`ManifestSource(directory, options)` reads `*.yaml`, `*.yml` and `*.json` under `directory` recursively,
in sorted path order, every time `endpoints()` is called. Files may hold several YAML documents and
`kind: List` (or `<Kind>List`) documents with `items`. Services, Ingresses and DNSEndpoints produce
endpoints (through the same object functions the in-cluster sources use); Nodes, Pods and EndpointSlices in
the files feed NodePort and headless Services; other kinds are ignored (debug log). Objects without a
namespace are in `default`, as `kubectl apply` would put them.

Bad input never stops the others: an unparsable file, a document that is not an object, an object with a
bad field, or a duplicate object is one error log line naming the file (document index, object, field), and
is listed in `problems` after `endpoints()`; everything else still produces endpoints.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cachetools
import structlog
import yaml

from external_dns.endpoint.endpoint import Endpoint
from external_dns.sources.objects.dnsendpoint import DNSENDPOINT_GROUP, collect_dnsendpoint_endpoints
from external_dns.sources.objects.ingress import collect_ingress_endpoints
from external_dns.sources.objects.service import collect_service_endpoints
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import ERROR, Problem, log_problems
from external_dns.sources.source import Source

log = structlog.get_logger(__name__)

SUFFIXES = (".yaml", ".yml", ".json")
_CLUSTER_SCOPED = frozenset(("Node", "Namespace"))
_PARSE_CACHE_FILES = 100_000
# libyaml's parser when PyYAML was built with it (about 10x faster), else the pure-Python one.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class _Doc:
    obj: Mapping[str, Any]
    where: str  # "<file> document <n>[ item <m>]"


def _group(api_version: Any) -> str:
    text = api_version if isinstance(api_version, str) else ""
    return text.rpartition("/")[0] if "/" in text else ""


def _kind_of(obj: Mapping[str, Any]) -> str:
    """The kind this source handles, or "" (unknown kinds and wrong API groups are ignored)."""
    kind = obj.get("kind")
    group = _group(obj.get("apiVersion"))
    if kind in ("Service", "Pod", "Node") and group == "":
        return str(kind)
    if kind == "Ingress" and group in ("networking.k8s.io", "extensions"):
        return "Ingress"
    if kind == "EndpointSlice" and group == "discovery.k8s.io":
        return "EndpointSlice"
    if kind == "DNSEndpoint" and group == DNSENDPOINT_GROUP:
        return "DNSEndpoint"
    return ""


class ManifestSource(Source):
    """Desired endpoints from manifest files (see the module docstring). Thread-safe."""

    def __init__(self, directory: str | os.PathLike[str], options: SourceOptions | None = None) -> None:
        self.directory = Path(directory)
        self.options = options if options is not None else SourceOptions()
        self.problems: list[Problem] = []
        self._lock = threading.Lock()
        self._parsed: cachetools.LRUCache[tuple[str, bytes], tuple[list[tuple[int, Any]], list[Problem]]]
        self._parsed = cachetools.LRUCache(maxsize=_PARSE_CACHE_FILES)
        self._parsed_key: dict[str, tuple[str, bytes]] = {}

    def __repr__(self) -> str:
        return f"ManifestSource({str(self.directory)!r})"

    # -- reading ----------------------------------------------------------------------------------------------
    def files(self) -> list[Path]:
        """The manifest files, recursively, sorted by path (hidden files and directories skipped)."""
        out: list[Path] = []
        for root, dirs, names in os.walk(self.directory):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            out.extend(Path(root) / n for n in names
                       if n.endswith(SUFFIXES) and not n.startswith("."))
        return sorted(out)

    def _documents(self, path: Path, problems: list[Problem]) -> list[tuple[int, Any]]:
        """(index, document) pairs of one file; parse problems are added to `problems`. Parsed files are
        remembered by path and content digest, so an unchanged file is not parsed again (its documents are
        shared between calls: treat them as read-only)."""
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(Problem(str(path), "", "", f"cannot read file: {exc}", severity=ERROR))
            return []
        key = (str(path), hashlib.blake2b(data, digest_size=16).digest())
        cached = self._parsed.get(key)
        if cached is None:
            found: list[Problem] = []
            cached = (self._parse(path, data, found), found)
            old = self._parsed_key.get(key[0])
            if old is not None:
                self._parsed.pop(old, None)  # forget the previous version of this file
            self._parsed[key] = cached
            self._parsed_key[key[0]] = key
        problems.extend(cached[1])
        return cached[0]

    @staticmethod
    def _parse(path: Path, data: bytes, problems: list[Problem]) -> list[tuple[int, Any]]:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(str(path), "", "", f"cannot read file: not UTF-8 ({exc})", severity=ERROR))
            return []
        if path.suffix == ".json":
            try:
                return [(1, json.loads(text))]
            except json.JSONDecodeError as exc:
                problems.append(Problem(str(path), "", "",
                                        f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}; "
                                        "file skipped", severity=ERROR))
                return []
        docs: list[tuple[int, Any]] = []
        try:
            for doc in yaml.load_all(text, Loader=_YAML_LOADER):
                docs.append((len(docs) + 1, doc))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
            reason = getattr(exc, "problem", None) or str(exc)
            problems.append(Problem(f"{path} document {len(docs) + 1}", "", "",
                                    f"invalid YAML{at}: {reason}; the rest of the file is skipped",
                                    severity=ERROR))
        return docs

    def _objects(self, problems: list[Problem]) -> Iterator[_Doc]:
        for path in self.files():
            for index, doc in self._documents(path, problems):
                where = f"{path} document {index}"
                if doc is None:
                    continue
                if not isinstance(doc, Mapping):
                    problems.append(Problem(where, "", "", f"expected an object, got {type(doc).__name__}; "
                                            "document skipped", severity=ERROR))
                    continue
                kind = doc.get("kind")
                if isinstance(kind, str) and kind.endswith("List") and "items" in doc:
                    items = doc.get("items")
                    if not isinstance(items, list):
                        problems.append(Problem(where, "items", "", "must be a list; document skipped",
                                                severity=ERROR))
                        continue
                    for j, item in enumerate(items):
                        if not isinstance(item, Mapping):
                            problems.append(Problem(f"{where} item {j}", "", "",
                                                    f"expected an object, got {type(item).__name__}; skipped",
                                                    severity=ERROR))
                            continue
                        yield _Doc(item, f"{where} item {j}")
                else:
                    yield _Doc(doc, where)

    # -- endpoints --------------------------------------------------------------------------------------------
    def _collect(self, problems: list[Problem]) -> dict[str, list[Mapping[str, Any]]]:
        by_kind: dict[str, list[Mapping[str, Any]]] = {}
        seen: dict[tuple[str, str, str], str] = {}
        if not self.directory.is_dir():
            problems.append(Problem(str(self.directory), "--manifest-dir", str(self.directory),
                                    "is not a directory; no objects read", severity=ERROR))
            return by_kind
        for doc in self._objects(problems):
            obj = doc.obj
            kind = _kind_of(obj)
            meta = obj.get("metadata")
            if not kind:
                log.debug("Ignoring object of unsupported kind", where=doc.where,
                          kind=obj.get("kind"), api_version=obj.get("apiVersion"))
                continue
            if not isinstance(meta, Mapping) or not isinstance(meta.get("name"), str) or not meta.get("name"):
                problems.append(Problem(doc.where, "metadata.name", repr(meta.get("name") if isinstance(
                    meta, Mapping) else meta), f"{kind} needs a string metadata.name; object skipped",
                    severity=ERROR, obj=obj))
                continue
            namespace = meta.get("namespace")
            if namespace is not None and not isinstance(namespace, str):
                problems.append(Problem(doc.where, "metadata.namespace", repr(namespace),
                                        "must be a string; object skipped", severity=ERROR, obj=obj))
                continue
            if kind not in _CLUSTER_SCOPED and not namespace:
                obj = {**obj, "metadata": {**meta, "namespace": "default"}}
                namespace = "default"
            key = (kind, namespace or "", meta["name"])
            if key in seen:
                problems.append(Problem(doc.where, "metadata.name", meta["name"],
                                        f"duplicate {kind} {namespace}/{meta['name']} (first in {seen[key]}); "
                                        "this copy is ignored", severity=ERROR, obj=obj))
                continue
            seen[key] = doc.where
            by_kind.setdefault(kind, []).append(obj)
        return by_kind

    def endpoints(self) -> list[Endpoint]:
        """All endpoints the manifests ask for; `problems` lists what was wrong (also logged)."""
        with self._lock:
            problems: list[Problem] = []
            objects = self._collect(problems)
            opts = self.options
            services = collect_service_endpoints(objects.get("Service", []), opts, nodes=objects.get("Node", []),
                                                 pods=objects.get("Pod", []),
                                                 endpoint_slices=objects.get("EndpointSlice", []))
            ingresses = collect_ingress_endpoints(objects.get("Ingress", []), opts)
            crds = collect_dnsendpoint_endpoints(objects.get("DNSEndpoint", []), opts)
            result = services.endpoints + ingresses.endpoints + crds.endpoints
            problems.extend(services.problems + ingresses.problems + crds.problems)
            self.problems = problems
        log_problems(problems, log)
        log.debug("Manifest endpoints", directory=str(self.directory), count=len(result))
        return result
