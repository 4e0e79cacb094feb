"""external-dns annotations on Kubernetes objects, under a configurable prefix (default
`external-dns.kubernetes.io/`, `--annotation-prefix`): `parse_annotations(annotations, prefix, ref)` reads
every annotation a source uses into `ParsedAnnotations` plus `Problem`s naming the object, annotation and
value. A bad value never drops the object: a bad TTL leaves it unset, a bad hostname or target is
skipped, the rest is kept."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cachetools

from external_dns.durations import parse_go_duration
from external_dns.endpoint.endpoint import (
    PROVIDER_SPECIFIC_ALIAS,
    PROVIDER_SPECIFIC_RECORD_TYPE,
    ProviderSpecificProperty,
)
from external_dns.endpoint.names import IPV4, PLAIN_NAME
from external_dns.endpoint.targets import parse_ip
from external_dns.endpoint.validation import MAX_NAME_LENGTH, dns_name_problem
from external_dns.sources.problems import Problem

DEFAULT_ANNOTATION_PREFIX = "external-dns.kubernetes.io/"
# external-dns's default before v0.22 (which reads no fallback); manifests written for older versions use it
ALPHA_ANNOTATION_PREFIX = "external-dns.alpha.kubernetes.io/"
WELL_KNOWN_PREFIXES = (DEFAULT_ANNOTATION_PREFIX, ALPHA_ANNOTATION_PREFIX)

HOSTNAME_KEY = "hostname"
INTERNAL_HOSTNAME_KEY = "internal-hostname"
TARGET_KEY = "target"
TTL_KEY = "ttl"
CONTROLLER_KEY = "controller"
ACCESS_KEY = "access"
ENDPOINTS_TYPE_KEY = "endpoints-type"
INGRESS_HOSTNAME_SOURCE_KEY = "ingress-hostname-source"
SET_IDENTIFIER_KEY = "set-identifier"
ALIAS_KEY = "alias"
RECORD_TYPE_KEY = "record-type"

CONTROLLER_VALUE = "dns-controller"
ACCESS_PUBLIC = "public"
ACCESS_PRIVATE = "private"
ENDPOINTS_TYPE_NODE_EXTERNAL_IP = "NodeExternalIP"
ENDPOINTS_TYPE_HOST_IP = "HostIP"
HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY = "defined-hosts-only"
HOSTNAME_SOURCE_ANNOTATION_ONLY = "annotation-only"

TTL_MIN = 1
TTL_MAX = 2147483647

# annotation suffix prefix -> provider-specific property prefix
_PROVIDER_PREFIXES = (("aws-", "aws/"), ("scw-", "scw/"), ("webhook-", "webhook/"), ("coredns-", "coredns/"),
                      ("azure-", "azure/"))
_CLOUDFLARE_PREFIX = "cloudflare-"

# -- TTLs --------------------------------------------------------------------------------------------------

_INT_RE = re.compile(r"[-+]?[0-9]+\Z")


def parse_ttl(value: str) -> int:
    """TTL seconds from a Go duration (fractions truncated) or an integer; ValueError naming the value when
    neither, or when outside 1..2147483647."""
    try:
        seconds = int(parse_go_duration(value))
    except ValueError as exc:
        if not _INT_RE.match(value):
            raise ValueError(f"{value!r} is not a valid TTL value: {exc}") from None
        seconds = int(value)
    if seconds < TTL_MIN or seconds > TTL_MAX:
        raise ValueError(f"TTL value {seconds} must be between [{TTL_MIN}, {TTL_MAX}]")
    return seconds


# -- splitting and checking names ----------------------------------------------------------------------------


def split_annotation_list(value: str) -> list[str]:
    """Comma list with every space removed and one trailing dot trimmed per item; empty items dropped."""
    out: list[str] = []
    for item in value.replace(" ", "").strip().split(","):
        if item.endswith("."):
            item = item[:-1]
        if item:
            out.append(item)
    return out


# Names and targets repeat on every sync; their checks are pure, so remember recent answers. The common case,
# a plain ASCII name (labels of letters, digits, '-', '_') or a canonical dotted quad, is answered by one match
# before the memo: cheaper than its key, lock and LRU update, and a cluster of 100k Services no longer fills
# the memos with 2 x 65,536 entries (~20 MiB) it keeps evicting anyway.
_name_checks: cachetools.LRUCache[str, str | None] = cachetools.LRUCache(maxsize=1 << 16)
_target_checks: cachetools.LRUCache[str, str | None] = cachetools.LRUCache(maxsize=1 << 16)
_DIGITS_AND_DOTS = re.compile(r"[0-9.]+")


def hostname_problem(name: str) -> str | None:
    """None when `name` can be a record name, else why not (length, labels, `*` placement, characters)."""
    if len(name) <= MAX_NAME_LENGTH and PLAIN_NAME.fullmatch(name) is not None:
        return None  # valid for dns_name_problem, and holds no character refused below
    return _hostname_problem(name)


def target_problem(target: str) -> str | None:
    """None when `target` is an IP address or a usable host name, else why not."""
    if IPV4.fullmatch(target) is not None:
        return None  # an IPv4 address
    if (len(target) <= MAX_NAME_LENGTH and PLAIN_NAME.fullmatch(target) is not None
            and _DIGITS_AND_DOTS.fullmatch(target) is None):
        return None  # a plain host name (no ':', not only digits and dots: no IP, nor a malformed one)
    return _target_problem(target)


@cachetools.cached(_name_checks, lock=threading.Lock())
def _hostname_problem(name: str) -> str | None:
    problem = dns_name_problem(name)
    if problem is not None:
        return problem
    bad = sorted({c for c in name if c.isspace() or (c.isascii() and not c.isalnum() and c not in "-_.*")})
    if bad:
        return f"DNS name {name!r} contains characters not allowed in a host name: {''.join(bad)!r}"
    return None


@cachetools.cached(_target_checks, lock=threading.Lock())
def _target_problem(target: str) -> str | None:
    if parse_ip(target) is not None:
        return None
    if ":" in target or re.fullmatch(r"[0-9.]+", target):
        return f"{target!r} is not a valid IP address"
    problem = hostname_problem(target)
    if problem is not None:
        return problem
    if target.startswith("*"):
        return f"target {target!r} must not be a wildcard name"
    return None


# -- the parsed view -----------------------------------------------------------------------------------------


@dataclass
class ParsedAnnotations:
    """Everything the sources read from an object's annotations."""

    # `hostname`: a comma list (spaces removed, one trailing dot trimmed)
    hostnames: list[str] = field(default_factory=list)
    # `internal-hostname`: as hostname; targets the ClusterIP (services) / pod IP
    internal_hostnames: list[str] = field(default_factory=list)
    # `target`: a comma list overriding targets (IPv4 -> A, IPv6 -> AAAA, else CNAME)
    targets: list[str] = field(default_factory=list)
    # `ttl`: a Go duration (`10m`, `1h30m`, fractions truncated) or integer seconds, 1..2^31-1; 0 = unset
    ttl: int = 0
    # `set-identifier`
    set_identifier: str = ""
    # `alias` (only `true` is read, as external-dns), `record-type`, `aws-X`/`scw-X`/`webhook-X`/
    # `coredns-X`/`azure-X` -> `aws/X`..., `cloudflare-*` named by the full annotation key (as external-dns)
    provider_specific: list[ProviderSpecificProperty] = field(default_factory=list)
    # `controller`: present and not `dns-controller` -> the object is not ours
    controller: str | None = None
    # `access` (NodePort services): `public` / `private`
    access: str = ""
    # `endpoints-type` (headless services): `NodeExternalIP` / `HostIP`
    endpoints_type: str = ""
    # `ingress-hostname-source`: `defined-hosts-only` / `annotation-only` (lower-cased)
    ingress_hostname_source: str | None = None
    problems: list[Problem] = field(default_factory=list)

    def controller_matches(self) -> bool:
        """False when a `controller` annotation names another controller (the object is then ignored)."""
        return self.controller is None or self.controller == CONTROLLER_VALUE

    def copy_provider_specific(self) -> list[ProviderSpecificProperty]:
        return [ProviderSpecificProperty(p.name, p.value) for p in self.provider_specific]


class _Reader:
    def __init__(self, annotations: Mapping[str, Any], prefix: str, ref: str,
                 obj: Mapping[str, Any] | None) -> None:
        self.annotations = annotations
        self.prefix = prefix
        self.ref = ref
        self.obj = obj
        self.problems: list[Problem] = []

    def get(self, suffix: str) -> str | None:
        value = self.annotations.get(self.prefix + suffix)
        if value is None:
            return None
        return value if isinstance(value, str) else str(value)

    def problem(self, suffix: str, value: str, message: str) -> None:
        self.problems.append(Problem(self.ref, self.prefix + suffix, value, message, obj=self.obj))

    def names(self, suffix: str) -> list[str]:
        raw = self.get(suffix)
        if raw is None:
            return []
        out: list[str] = []
        for name in split_annotation_list(raw):
            problem = hostname_problem(name)
            if problem is not None:
                self.problem(suffix, raw, f"hostname skipped: {problem}")
                continue
            if name not in out:
                out.append(name)
        return out

    def targets(self, suffix: str) -> list[str]:
        raw = self.get(suffix)
        if raw is None:
            return []
        out: list[str] = []
        for target in split_annotation_list(raw):
            problem = target_problem(target)
            if problem is not None:
                self.problem(suffix, raw, f"target skipped: {problem}")
                continue
            out.append(target)
        if not out and raw.strip():
            self.problem(suffix, raw, "no usable target in the annotation; using the object's own targets")
        return out

    def ttl(self) -> int:
        raw = self.get(TTL_KEY)
        if raw is None:
            return 0
        try:
            return parse_ttl(raw.strip())
        except ValueError as exc:
            self.problem(TTL_KEY, raw, f"{exc}; the record keeps the default TTL")
            return 0

    def provider_specific(self) -> tuple[list[ProviderSpecificProperty], str]:
        props: list[ProviderSpecificProperty] = []
        set_identifier = ""
        for key in sorted(self.annotations):
            if not key.startswith(self.prefix):
                continue
            suffix = key[len(self.prefix):]
            value = self.annotations[key]
            value = value if isinstance(value, str) else str(value)
            if suffix == SET_IDENTIFIER_KEY:
                set_identifier = value
            elif suffix == ALIAS_KEY:
                if value == "true":
                    props.append(ProviderSpecificProperty(PROVIDER_SPECIFIC_ALIAS, "true"))
                elif value != "false":
                    self.problem(ALIAS_KEY, value,
                                 "only the value 'true' is read from the alias annotation; ignored")
            elif suffix == RECORD_TYPE_KEY:
                props.append(ProviderSpecificProperty(PROVIDER_SPECIFIC_RECORD_TYPE, value))
            elif suffix.startswith(_CLOUDFLARE_PREFIX):
                props.append(ProviderSpecificProperty(key, value))
            else:
                for ann_prefix, prop_prefix in _PROVIDER_PREFIXES:
                    if suffix.startswith(ann_prefix) and len(suffix) > len(ann_prefix):
                        props.append(ProviderSpecificProperty(prop_prefix + suffix[len(ann_prefix):], value))
                        break
        return props, set_identifier

    def choice(self, suffix: str, allowed: tuple[str, ...], lower: bool = False) -> str:
        raw = self.get(suffix)
        if raw is None:
            return ""
        value = raw.strip().lower() if lower else raw.strip()
        if value not in allowed:
            self.problem(suffix, raw, f"unknown value (one of: {', '.join(allowed)}); ignored")
            return ""
        return value


def ignored_prefix_problem(annotations: Mapping[str, Any], prefix: str, ref: str = "",
                           obj: Mapping[str, Any] | None = None) -> Problem | None:
    """A warning naming the annotations under a well-known prefix other than `prefix` (`--annotation-prefix`)
    that nothing reads: no annotation with the same suffix under `prefix` stands in for them. Objects written
    for external-dns before v0.22 (`external-dns.alpha.kubernetes.io/`) are otherwise ignored silently, and
    `--policy=sync` would delete their records. One problem per object (sources report it once per object
    version)."""
    for other in WELL_KNOWN_PREFIXES:
        if other == prefix:
            continue
        keys = sorted(k for k in annotations if isinstance(k, str) and k.startswith(other)
                      and prefix + k[len(other):] not in annotations)
        if keys:
            shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
            return Problem(ref, keys[0], "", f"annotations under {other} are not read: --annotation-prefix is "
                           f"{prefix} ({shown} ignored); set --annotation-prefix={other}, or rename them to "
                           f"{prefix} (external-dns v0.22 moved its default from {ALPHA_ANNOTATION_PREFIX} to "
                           f"{DEFAULT_ANNOTATION_PREFIX})", obj=obj)
    return None


def parse_annotations(annotations: Mapping[str, Any] | None, prefix: str = DEFAULT_ANNOTATION_PREFIX,
                      ref: str = "", obj: Mapping[str, Any] | None = None) -> ParsedAnnotations:
    """Read the external-dns annotations of one object. `ref` (`<kind>/<namespace>/<name>`) and `obj`
    are attached to every problem; annotations under another well-known prefix are one more
    (`ignored_prefix_problem`)."""
    reader = _Reader(annotations or {}, prefix, ref, obj)
    ignored = ignored_prefix_problem(reader.annotations, prefix, ref, obj)
    if ignored is not None:
        reader.problems.append(ignored)
    ps, set_identifier = reader.provider_specific()
    source = reader.get(INGRESS_HOSTNAME_SOURCE_KEY)
    parsed = ParsedAnnotations(
        hostnames=reader.names(HOSTNAME_KEY),
        internal_hostnames=reader.names(INTERNAL_HOSTNAME_KEY),
        targets=reader.targets(TARGET_KEY),
        ttl=reader.ttl(),
        set_identifier=set_identifier,
        provider_specific=ps,
        controller=reader.get(CONTROLLER_KEY),
        access=reader.choice(ACCESS_KEY, (ACCESS_PUBLIC, ACCESS_PRIVATE)),
        endpoints_type=reader.choice(ENDPOINTS_TYPE_KEY,
                                     (ENDPOINTS_TYPE_NODE_EXTERNAL_IP, ENDPOINTS_TYPE_HOST_IP)),
        ingress_hostname_source=None if source is None else source.strip().lower(),
    )
    parsed.problems = reader.problems
    return parsed


def annotation_targets(annotations: Mapping[str, Any] | None, prefix: str, ref: str = "",
                       obj: Mapping[str, Any] | None = None) -> tuple[list[str], list[Problem]]:
    """Only the `target` annotation (e.g. of a pod behind a headless service) and its problems."""
    reader = _Reader(annotations or {}, prefix, ref, obj)
    return reader.targets(TARGET_KEY), reader.problems
