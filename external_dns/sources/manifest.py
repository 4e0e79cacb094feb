"""The `manifest` source: Kubernetes objects read from YAML/JSON files instead of a cluster, turned into
endpoints by the same object functions the in-cluster sources use. Input that cannot be read never turns
into deletes (`endpoints()` raises ManifestReadError), and reading is bounded (size, nesting, YAML aliases,
regular files only); the rules sit beside `read_bounded`, `_parse`, `_collect` and `endpoints`.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cachetools
import structlog
import yaml

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import short
from external_dns.sources.objects.dnsendpoint import DNSENDPOINT_GROUP, collect_dnsendpoint_endpoints
from external_dns.sources.objects.gateway import (
    GATEWAY_GROUP,
    GATEWAY_KIND,
    LISTENER_SET_KIND,
    ROUTE_PROTOCOLS,
    GatewayOptions,
    collect_route_endpoints,
    lookup_from,
)
from external_dns.sources.objects.ingress import collect_ingress_endpoints
from external_dns.sources.objects.service import collect_service_endpoints
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import ERROR, Problem, log_problems
from external_dns.sources.source import Source
from external_dns.sources.yamlblock import load_block_documents
from external_dns.sources.yamlfast import FastSafeLoader

log = structlog.get_logger(__name__)

SUFFIXES = (".yaml", ".yml", ".json")
_CLUSTER_SCOPED = frozenset(("Node", "Namespace"))
_PARSE_CACHE_FILES = 100_000
# libyaml's parser when PyYAML was built with it (about 10x faster), else the pure-Python one; plain strings,
# maps and lists built directly (sources/yamlfast.py: same results as the safe loader).
_YAML_BASE: Any = FastSafeLoader
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 100  # Kubernetes objects nest a few tens of levels at most
MAX_ALIAS_EXPANSION = 1_000_000  # nodes aliases may add once expanded (a "billion laughs" adds billions)


class ManifestReadError(Exception):
    """Part of the manifests could not be read: the sync fails rather than delete what they described."""


class _BoundedInputError(ValueError):
    pass


def _check_node(root: yaml.Node) -> None:
    """Refuse a composed YAML document nested deeper than MAX_DEPTH or whose aliases expand by more than
    MAX_ALIAS_EXPANSION nodes. Iterative, and each distinct node is visited once (sizes memoised)."""
    size: dict[int, int] = {}
    distinct = 0
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if depth > MAX_DEPTH:
            raise _BoundedInputError(f"nested deeper than {MAX_DEPTH} levels")
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        if done:
            size[id(node)] = 1 + sum(size[id(c)] for c in children)
            continue
        if id(node) in size:
            continue
        size[id(node)] = 0  # visiting (a recursive alias counts once)
        distinct += 1
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if id(c) not in size)
    if size[id(root)] - distinct > MAX_ALIAS_EXPANSION:
        raise _BoundedInputError("YAML aliases expand too far (alias bomb?)")


class _BoundedLoader(_YAML_BASE):  # type: ignore[misc]
    """The safe loader, checking each composed document before it is constructed."""

    def construct_document(self, node: yaml.Node) -> Any:
        _check_node(node)
        return super().construct_document(node)


def read_bounded(path: Path, cap: int | None = None) -> bytes:
    """The bytes of a regular file, at most `cap` (default MAX_FILE_BYTES); OSError (with a reason) for
    anything else. Opened non-blocking, so a FIFO is refused instead of waiting for a writer; a symlink to
    `/dev/zero` is refused (not a regular file), symlinks to regular files (ConfigMap volumes) are fine."""
    cap = MAX_FILE_BYTES if cap is None else cap
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"not a regular file (mode {stat.filemode(st.st_mode)})")
        if st.st_size > cap:
            raise OSError(f"{st.st_size} bytes is over the limit of {cap} bytes")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(cap + 1)
        if len(data) > cap:
            raise OSError(f"over the limit of {cap} bytes")
        return data
    finally:
        os.close(fd)


def _unreadable(problems: list[Problem] | None, path: Path, what: str, exc: OSError) -> None:
    reason = exc.strerror or str(exc)
    if problems is None:
        raise ManifestReadError(f"{path}: {what}: {reason}")
    problems.append(Problem(str(path), "", "", f"{what}: {reason}", severity=ERROR))


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
    if kind in ("Service", "Pod", "Node", "Namespace") and group == "":
        return str(kind)
    if group == GATEWAY_GROUP and (kind in (GATEWAY_KIND, LISTENER_SET_KIND) or kind in ROUTE_PROTOCOLS):
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

    def __init__(self, directory: str | os.PathLike[str], options: SourceOptions | None = None,
                 gateway_options: GatewayOptions | None = None) -> None:
        self.directory = Path(directory)
        self.options = options if options is not None else SourceOptions()
        self.gateway_options = gateway_options if gateway_options is not None else GatewayOptions()
        self.problems: list[Problem] = []
        self._lock = threading.Lock()
        self._parsed: cachetools.LRUCache[tuple[str, bytes], tuple[list[tuple[int, Any]], list[Problem]]]
        self._parsed = cachetools.LRUCache(maxsize=_PARSE_CACHE_FILES)
        self._parsed_key: dict[str, tuple[str, bytes]] = {}

    def __repr__(self) -> str:
        return f"ManifestSource({str(self.directory)!r})"

    # -- reading ----------------------------------------------------------------------------------------------
    def files(self, problems: list[Problem] | None = None) -> list[Path]:
        """The `*.yaml`, `*.yml` and `*.json` files under the directory, recursively, sorted by path (hidden
        files and directories skipped); read again at every `endpoints()`. A directory that cannot be listed, or
        a symlink that cannot be followed, is an error in `problems` (the sync fails: what it held would read as
        deleted); symlinked directories are followed, each real directory read once (a link back up the tree
        ends there: what it leads to is read already)."""
        out: list[Path] = []
        visited: set[tuple[int, int]] = set()
        stack = [self.directory]
        while stack:
            directory = stack.pop()
            try:
                st = os.stat(directory)
                if (st.st_dev, st.st_ino) in visited:
                    log.info("Manifest directory reached again through a symlink: read once", directory=str(directory))
                    continue
                visited.add((st.st_dev, st.st_ino))
                with os.scandir(directory) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError as exc:
                _unreadable(problems, directory, "cannot read directory", exc)
                continue
            subdirs: list[Path] = []
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir()  # through a symlink too
                    if entry.is_symlink():
                        os.stat(entry.path)  # a link that leads nowhere cannot be told a file from a directory
                except OSError as exc:
                    _unreadable(problems, Path(entry.path), "cannot follow symlink", exc)
                    continue
                if is_dir:
                    subdirs.append(Path(entry.path))
                elif entry.name.endswith(SUFFIXES):
                    out.append(Path(entry.path))
            stack.extend(reversed(subdirs))
        return sorted(out)

    def _documents(self, path: Path, problems: list[Problem]) -> list[tuple[int, Any]]:
        """(index, document) pairs of one file; parse problems are added to `problems`. Parsed files are
        remembered by path and content digest, so an unchanged file is not parsed again (its documents are
        shared between calls: treat them as read-only)."""
        try:
            data = read_bounded(path)
        except OSError as exc:
            reason = exc.strerror if exc.strerror and exc.filename else str(exc)
            problems.append(Problem(str(path), "", "", f"cannot read file: {reason}", severity=ERROR))
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
            except (ValueError, RecursionError) as exc:  # huge integers, hostile nesting
                reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
                problems.append(Problem(str(path), "", "", f"invalid JSON: {reason}; file skipped", severity=ERROR))
                return []
        block = load_block_documents(text)  # plain block YAML without the parser's node objects
        if block is not None:
            return list(enumerate(block, 1))
        docs: list[tuple[int, Any]] = []
        try:
            # Without an anchor (`&`) nothing can be aliased: the plain loader is enough (deep nesting then
            # ends in RecursionError, handled below).
            loader = _BoundedLoader if "&" in text else _YAML_BASE
            for doc in yaml.load_all(text, Loader=loader):
                docs.append((len(docs) + 1, doc))
        except (_BoundedInputError, ValueError, RecursionError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            problems.append(Problem(f"{path} document {len(docs) + 1}", "", "",
                                    f"invalid YAML: {reason}; the rest of the file is skipped", severity=ERROR))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
            reason = getattr(exc, "problem", None) or str(exc)
            problems.append(Problem(f"{path} document {len(docs) + 1}", "", "",
                                    f"invalid YAML{at}: {reason}; the rest of the file is skipped",
                                    severity=ERROR))
        return docs

    def _objects(self, problems: list[Problem]) -> Iterator[_Doc]:
        """Every object of every document; `kind: List` (or `<Kind>List`) documents give their `items`."""
        for path in self.files(problems):
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
        """Objects by kind. Kinds the sources do not read are ignored (debug log); an object with a bad field
        or a duplicate is skipped with an error problem naming the file, document and field."""
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
                problems.append(Problem(doc.where, "metadata.name", short(meta.get("name") if isinstance(
                    meta, Mapping) else meta), f"{kind} needs a string metadata.name; object skipped",
                    severity=ERROR, obj=obj))
                continue
            namespace = meta.get("namespace")
            if namespace is not None and not isinstance(namespace, str):
                problems.append(Problem(doc.where, "metadata.namespace", short(namespace),
                                        "must be a string; object skipped", severity=ERROR, obj=obj))
                continue
            if kind not in _CLUSTER_SCOPED and not namespace:  # where `kubectl apply` would put it
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
        """All endpoints the manifests ask for; `problems` lists what was wrong (also logged). Services,
        Ingresses, DNSEndpoints and Gateway API routes publish; Nodes, Pods and EndpointSlices feed NodePort
        and headless Services; Gateways and Namespaces feed the routes. Raises ManifestReadError naming every
        file or document that could not be read (missing directory, unreadable or unparsable file, a
        document that is not an object), so the sync fails (exit 1 with `--once`) instead of deleting the
        records those files described."""
        with self._lock:
            problems: list[Problem] = []
            objects = self._collect(problems)
            # file- and document-level errors carry no object; an object's bad field only skips the object
            unreadable = [p for p in problems if p.severity == ERROR and p.obj is None]
            opts = self.options
            services = collect_service_endpoints(objects.get("Service", []), opts, nodes=objects.get("Node", []),
                                                 pods=objects.get("Pod", []),
                                                 endpoint_slices=objects.get("EndpointSlice", []))
            ingresses = collect_ingress_endpoints(objects.get("Ingress", []), opts)
            crds = collect_dnsendpoint_endpoints(objects.get("DNSEndpoint", []), opts)
            result = services.endpoints + ingresses.endpoints + crds.endpoints
            problems.extend(services.problems + ingresses.problems + crds.problems)
            # Gateway API routes, against the Gateways (Namespaces, ListenerSets) in the same files
            lookup = lookup_from(objects.get(GATEWAY_KIND, []), objects.get("Namespace", []),
                                 objects.get(LISTENER_SET_KIND, []))
            for kind in ROUTE_PROTOCOLS:
                if objects.get(kind):
                    routes = collect_route_endpoints(objects[kind], kind, opts, self.gateway_options, lookup)
                    result += routes.endpoints
                    problems.extend(routes.problems)
            self.problems = problems
        log_problems(problems, log)
        if unreadable:
            raise ManifestReadError(
                f"{len(unreadable)} manifest file(s) or document(s) could not be read; refusing to sync from "
                "partial input (nothing is deleted): " + "; ".join(str(p) for p in unreadable[:5]))
        log.debug("Manifest endpoints", directory=str(self.directory), count=len(result))
        return result
