"""Edge validation: every field of an endpoint against DNS's limits, before any plan or provider sees it.
`endpoint_problem(ep)` names the first bad field (`dnsName`, `recordTTL`, `targets[1]`, `labels[owner]`, ...)
so the caller skips the endpoint with a warning naming the object and the field. Stricter than external-dns,
which checks only target formats and leaves the rest to the provider, where one bad record fails its whole
zone. The ownership record's own name is checked by the registry (it depends on the prefix/suffix).
"""

from __future__ import annotations

import json
import re
import reprlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cachetools
import dns.exception
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype

from external_dns.endpoint.endpoint import (
    KNOWN_RECORD_TYPES,
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_DNAME,
    RECORD_TYPE_MX,
    RECORD_TYPE_NS,
    RECORD_TYPE_PTR,
    RECORD_TYPE_SRV,
    RECORD_TYPE_TXT,
    Endpoint,
)
from external_dns.endpoint.labels import InvalidHeritageError, parse_labels_plain
from external_dns.endpoint.names import HOST_NAME, IPV4, TRANSITIONAL, WILDCARD_PLAIN_NAME
from external_dns.endpoint.validation import MAX_LABEL_LENGTH, MAX_NAME_LENGTH, ip_targets_problem

try:  # the `idna` package (UTS #46), as endpoint/names.py
    import idna as _idna
except ImportError:  # pragma: no cover - only where idna is absent
    _idna = None  # type: ignore[assignment]

MAX_TTL = 2**31 - 1  # RFC 2181 section 8: a TTL is an unsigned 31-bit number
MAX_TXT_OCTETS = 4096  # one TXT value; DKIM keys of 4096 bits fit, an UPDATE message stays far below 64 KiB
MAX_SET_IDENTIFIER_OCTETS = 255
MAX_PROBLEM_VALUE = 200  # characters of an offending value quoted in a message

_LABEL_CHARS = re.compile(r"[A-Za-z0-9_-]+\Z")
# RFC 952/1123 host names: letters, digits and inner hyphens (what BIND's check-names enforces).
_HOST_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HOST_TYPES = frozenset((RECORD_TYPE_CNAME, RECORD_TYPE_NS, RECORD_TYPE_PTR, RECORD_TYPE_DNAME))
# Owners that must be RFC 1123 host names: BIND's check-names refuses such UPDATEs otherwise.
_HOST_OWNER_TYPES = frozenset((RECORD_TYPE_A, RECORD_TYPE_AAAA, RECORD_TYPE_MX))
_OWNER_WHAT = {t: f"name of a {t} record" for t in _HOST_OWNER_TYPES}
_KNOWN_TYPES = frozenset(KNOWN_RECORD_TYPES)
# external-dns CheckEndpoint adds to the checks above only for these (or with provider-specific properties)
_CHECK_ENDPOINT_TYPES = frozenset((RECORD_TYPE_MX, RECORD_TYPE_SRV, RECORD_TYPE_PTR))


@dataclass(frozen=True)
class FieldProblem:
    """Why an endpoint is refused: the field (external-dns JSON names) and the reason."""

    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxtuple = 3, 6, 6, 6
_REPR.maxstring, _REPR.maxother, _REPR.maxlong = MAX_PROBLEM_VALUE, MAX_PROBLEM_VALUE, 40


def short(value: object, limit: int = MAX_PROBLEM_VALUE) -> str:
    """A value for a message, cut to about `limit` characters (the cut is marked) -- never the whole of a huge
    value in a message. Strings are cut, then quoted as Go's %q does (double quotes, non-ASCII kept, as
    external-dns prints them); containers are walked only to a bounded depth and width (a YAML alias bomb is
    never expanded)."""
    if not isinstance(value, str):
        text = _REPR.repr(value)
        return text if len(text) <= limit + 20 else text[:limit] + "..."
    if len(value) > limit:
        return _go_quote(value[:limit]) + f"... ({len(value)} characters)"
    return _go_quote(value)


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _strict_ascii_label(label: str) -> str:
    """ToASCII of one label; UnicodeError/ValueError when IDNA refuses it."""
    if label.isascii():
        return label
    if _idna is not None:
        try:
            mapped = str(_idna.uts46_remap(label.translate(TRANSITIONAL), std3_rules=False, transitional=False))
            return str(_idna.alabel(mapped).decode("ascii"))
        except _idna.IDNAError as exc:
            raise ValueError(str(exc)) from None
    return label.encode("idna").decode("ascii")  # pragma: no cover - only where idna is absent


# Names and targets repeat from sync to sync: their checks are remembered (bounded; thread-safe).
_CACHE_SIZE = 200_000
_name_checks: cachetools.LRUCache[Any, str | None] = cachetools.LRUCache(maxsize=_CACHE_SIZE)
_host_checks: cachetools.LRUCache[Any, str | None] = cachetools.LRUCache(maxsize=_CACHE_SIZE)
_target_checks: cachetools.LRUCache[Any, str | None] = cachetools.LRUCache(maxsize=_CACHE_SIZE)


def ascii_name_problem(name: str, what: str = "name", allow_root: bool = False, star_in_labels: bool = False
                       ) -> str | None:
    """None when `name` (ASCII or IDNA-convertible, optional trailing dot) is a usable DNS name: IDNA ToASCII
    succeeds (an emoji label fails), labels of 1..63 octets hold only letters, digits, `-` and `_`, `*` only
    as the whole first label, the name at most 253 octets (255 on the wire).
    `star_in_labels`: `*` may also appear inside labels (ownership names of wildcard records: `a-*.example.org`,
    a plain label in DNS)."""
    if len(name) <= MAX_NAME_LENGTH and WILDCARD_PLAIN_NAME.fullmatch(name):
        return None  # the common case: one match, cheaper than the memo's key, lock and LRU update
    return _ascii_name_problem(name, what, allow_root, star_in_labels)


@cachetools.cached(_name_checks, lock=threading.Lock())
def _ascii_name_problem(name: str, what: str, allow_root: bool, star_in_labels: bool) -> str | None:
    if not name or name != name.strip():
        return f"{what} {short(name)} is empty or has surrounding whitespace"
    body = name[:-1] if name.endswith(".") else name
    if not body:
        return None if allow_root else f"{what} is only the root '.'"
    try:
        labels = [_strict_ascii_label(label) for label in body.split(".")]
    except (UnicodeError, ValueError) as exc:
        return f"{what} {short(name)} cannot be converted to ASCII (IDNA): {exc}"
    if len(".".join(labels)) > MAX_NAME_LENGTH:
        return f"{what} {short(name)} is longer than {MAX_NAME_LENGTH} octets"
    for i, label in enumerate(labels):
        if not label:
            return f"{what} {short(name)} has an empty label"
        if len(label) > MAX_LABEL_LENGTH:
            return f"{what} {short(name)}: label {short(label, 80)} is longer than {MAX_LABEL_LENGTH} octets"
        if label == "*" and i == 0:
            continue
        if not _LABEL_CHARS.match(label.replace("*", "x") if star_in_labels else label):
            if "*" in label:
                return f"{what} {short(name)}: '*' is only allowed as the whole first label"
            return (f"{what} {short(name)}: label {short(label, 80)} may hold only letters, digits, '-' "
                    "and '_'")
    return None


def hostname_problem(name: str, what: str, allow_wildcard: bool) -> str | None:
    """None when the ASCII form of `name` is an RFC 1123 host name (no `_`, no leading or trailing `-`; a `*`
    first label when allowed), as BIND's check-names requires of UPDATEs."""
    if HOST_NAME.fullmatch(name) and (allow_wildcard or not name.startswith("*")):
        return None  # the common case, without the memo's overhead
    return _hostname_problem(name, what, allow_wildcard)


@cachetools.cached(_host_checks, lock=threading.Lock())
def _hostname_problem(name: str, what: str, allow_wildcard: bool) -> str | None:
    body = name[:-1] if name.endswith(".") else name
    labels = [_strict_ascii_label(label) for label in body.split(".")] if body else []
    for i, label in enumerate(labels):
        if allow_wildcard and i == 0 and label == "*":
            continue
        if not _HOST_LABEL.match(label):
            return (f"{what} {short(name)} is not a host name (RFC 1123: letters, digits and inner '-' only; "
                    f"label {short(label, 80)}); DNS servers such as BIND refuse it")
    return None


def ttl_problem(ttl: object) -> str | None:
    if isinstance(ttl, bool) or not isinstance(ttl, int):
        return f"TTL {short(ttl)} is not an integer"
    if not 0 <= ttl <= MAX_TTL:
        return f"TTL {ttl} is outside 0..{MAX_TTL} (RFC 2181)"
    return None


def is_ownership_text(value: str) -> bool:
    """True when the TXT registry would read `value` as an ownership record."""
    if "heritage=" not in value:
        return False
    try:
        parse_labels_plain(value)
    except InvalidHeritageError:
        return False
    return True


def _rdata_problem(record_type: str, target: str) -> str | None:
    try:
        dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.from_text(record_type), target,
                            origin=dns.name.root, relativize=False)
    except (dns.exception.DNSException, ValueError, UnicodeError) as exc:
        return f"not a valid {record_type} value: {exc}"
    return None


def _host_problem(record_type: str, host: str, allow_root: bool = False) -> str | None:
    return ascii_name_problem(host, f"{record_type} target host", allow_root=allow_root)


def target_problem(ep: Endpoint, target: str, allow_ownership_txt: bool = False) -> str | None:
    """Why one target of `ep` is unusable (None when fine)."""
    rtype = ep.record_type
    if not target.strip():
        return "empty target"
    if rtype == RECORD_TYPE_TXT:
        return _txt_problem(target, allow_ownership_txt)
    if rtype == RECORD_TYPE_A and IPV4.fullmatch(target) and not ep.is_alias():
        return None  # a canonical IPv4 address (the common case): what the memoised check finds, without it
    return _typed_target_problem(rtype, target, ep.is_alias())


def _txt_problem(target: str, allow_ownership_txt: bool) -> str | None:
    if len(target.encode("utf-8", "surrogatepass")) > MAX_TXT_OCTETS:
        return f"TXT value longer than {MAX_TXT_OCTETS} octets"
    if not allow_ownership_txt and is_ownership_text(target):
        return ("TXT value looks like an ownership record (heritage=external-dns): refused, it would forge "
                "the ownership of another record")
    return None


@cachetools.cached(_target_checks, lock=threading.Lock())
def _typed_target_problem(rtype: str, target: str, alias: bool) -> str | None:
    """A/AAAA addresses of their family (unless an alias), host names in CNAME/NS/PTR/DNAME/MX/SRV by the
    name rules, and every non-TXT target parses as its type's RDATA."""
    if _CONTROL.search(target):
        return f"target {short(target)} contains control characters"
    if rtype in (RECORD_TYPE_A, RECORD_TYPE_AAAA) and not alias:
        return ip_targets_problem(rtype, [target])
    if rtype in _HOST_TYPES or (rtype in (RECORD_TYPE_A, RECORD_TYPE_AAAA) and alias):
        problem = _host_problem(rtype, target)
        if problem is None and rtype in (RECORD_TYPE_NS, RECORD_TYPE_PTR):  # (PTRs: reverse names only)
            # BIND's check-names refuses the UPDATE otherwise
            problem = hostname_problem(target, f"{rtype} target host", allow_wildcard=False)
        return problem
    if rtype in (RECORD_TYPE_MX, RECORD_TYPE_SRV):
        parts = target.split()
        if parts:
            problem = _host_problem(rtype, parts[-1], allow_root=True)
            if problem is None and parts[-1] != ".":
                problem = hostname_problem(parts[-1], f"{rtype} target host", allow_wildcard=False)
            if problem is not None:
                return problem
    return _rdata_problem(rtype, target)


def _targets_problem(ep: Endpoint, allow_ownership_txt: bool) -> FieldProblem | None:
    if not ep.targets:
        return FieldProblem("targets", "no targets")
    if ep.record_type in (RECORD_TYPE_CNAME, RECORD_TYPE_DNAME) and len(ep.targets) > 1:
        # a singleton type: a second target is dropped by the server (BIND) and rewritten on every sync
        return FieldProblem("targets", f"a {ep.record_type} has exactly one target, got {len(ep.targets)}")
    for i, target in enumerate(ep.targets):
        if not isinstance(target, str):
            return FieldProblem(f"targets[{i}]", "must be a string")
        problem = target_problem(ep, target, allow_ownership_txt)
        if problem is not None:
            return FieldProblem(f"targets[{i}]", problem)
    return None


def _labels_problem(labels: Sequence[tuple[str, str]]) -> FieldProblem | None:
    """Labels are serialised into the ownership TXT: a `,` in a value would forge an owner."""
    for key, value in labels:
        if not isinstance(key, str) or not isinstance(value, str):
            return FieldProblem(f"labels[{short(key, 40)}]", "keys and values must be strings")
        if not key or "=" in key or "," in key or '"' in key or _CONTROL.search(key):
            return FieldProblem(f"labels[{short(key, 40)}]", "key must be non-empty without '=', ',', '\"' or "
                                "control characters")
        if "," in value or '"' in value or _CONTROL.search(value):
            return FieldProblem(f"labels[{short(key, 40)}]", f"value {short(value)} holds ',', '\"' or control "
                                "characters (they would corrupt the ownership record)")
    return None


def endpoint_problem(ep: Endpoint, allow_ownership_txt: bool = False) -> FieldProblem | None:
    """None when every field of `ep` is within DNS's limits, else the first problem.
    `allow_ownership_txt`: below a registry (webhook server, plan-file changes), where ownership TXT records
    are the registry's own writes."""
    if ep.record_type not in _KNOWN_TYPES:
        return FieldProblem("recordType", f"unknown record type {short(ep.record_type)}")
    problem = ascii_name_problem(ep.dns_name, "name")
    if problem is None and ep.record_type in _HOST_OWNER_TYPES:
        problem = hostname_problem(ep.dns_name, _OWNER_WHAT[ep.record_type], True)
    if problem is not None:
        return FieldProblem("dnsName", problem)
    problem = ttl_problem(ep.record_ttl)
    if problem is not None:
        return FieldProblem("recordTTL", problem)
    found = _targets_problem(ep, allow_ownership_txt)
    if found is not None:
        return found
    sid = ep.set_identifier
    if sid and (len(sid.encode("utf-8", "surrogatepass")) > MAX_SET_IDENTIFIER_OCTETS or _CONTROL.search(sid)):
        return FieldProblem("setIdentifier", f"{short(sid)} is longer than {MAX_SET_IDENTIFIER_OCTETS} octets "
                            "or holds control characters")
    found = _labels_problem(list(ep.labels.items())) if ep.labels else None
    if found is not None:
        return found
    if ep.record_type not in _CHECK_ENDPOINT_TYPES and not ep.provider_specific:
        return None
    if allow_ownership_txt and ep.record_type == RECORD_TYPE_TXT:
        return None  # a registry's TXT carries its record's properties, `alias` included (Go's registry copies all)
    reason = ep.invalid_reason()  # external-dns CheckEndpoint (alias support, MX/SRV/PTR forms)
    if reason is not None:
        return FieldProblem("targets", reason)
    return None


# -- holds: an endpoint that turned bad keeps its name's current records -------------------------------------
# A stand-in for an endpoint that was refused: its name and type, no targets, this label (the reason). The plan
# makes no change (create, update or delete) to that name and type, so a live object whose one field turned bad
# does not lose its record. Wrappers pass holds through untouched; only a target-less endpoint can be one.
HOLD_LABEL_KEY = "held"


def is_hold(ep: Endpoint) -> bool:
    return not ep.targets and HOLD_LABEL_KEY in ep.labels


def hold_for(dns_name: str, record_type: str, reason: str, resource: str = "",
             ref_objects: Sequence[Any] = ()) -> Endpoint | None:
    """The hold standing for a refused endpoint of `dns_name` and `record_type`, or None when the name or the
    type itself is unusable (no record of ours can be at it: nothing to keep)."""
    if record_type not in _KNOWN_TYPES or not isinstance(dns_name, str) or ascii_name_problem(dns_name, "name"):
        return None
    labels = {HOLD_LABEL_KEY: reason}
    if resource:
        labels["resource"] = resource
    hold = Endpoint(dns_name, record_type, labels=labels)
    hold.ref_objects = list(ref_objects)
    return hold


def hold_of(ep: Endpoint, problem: FieldProblem) -> Endpoint | None:
    """`hold_for` an endpoint that `endpoint_problem` refused."""
    if problem.field in ("recordType", "dnsName"):
        return None
    resource = ep.labels.get("resource", "")
    return hold_for(ep.dns_name, ep.record_type, f"{problem.field}: {problem.reason}",
                    resource if isinstance(resource, str) else "", ep.ref_objects)


def _ascii_host(host: str) -> str:
    body, dot = (host[:-1], ".") if host.endswith(".") else (host, "")
    return ".".join(_strict_ascii_label(label) for label in body.split(".")) + dot


def to_ascii(ep: Endpoint) -> None:
    """Rewrite a valid endpoint's internationalised name and host-name targets in their ASCII (punycode) form,
    in place. Providers store the ASCII form; the ownership TXT name must be derived from it too, else the
    record is read back under a name whose ownership record nobody finds (an orphan), and a Unicode target
    never compares equal to what the provider returns (churn)."""
    if not ep.dns_name.isascii():
        ep.dns_name = _ascii_host(ep.dns_name)
    if ep.record_type in _HOST_TYPES or ep.record_type in (RECORD_TYPE_MX, RECORD_TYPE_SRV):
        if all(t.isascii() for t in ep.targets):
            return
        out: list[str] = []
        for t in ep.targets:
            head, _, host = t.rpartition(" ")
            out.append((head + " " if head else "") + _ascii_host(host) if not t.isascii() else t)
        ep.targets = type(ep.targets)(out)


def endpoint_ref(ep: Endpoint) -> str:
    """Which object an endpoint came from (`crd/ns/name`), "" when unknown."""
    return ep.labels.get("resource", "")


def describe(ep: Endpoint) -> str:
    """`www.example.org A [set]` for messages, with the name cut when huge."""
    ident = f" [{short(ep.set_identifier, 40)}]" if ep.set_identifier else ""
    name = ep.dns_name if len(ep.dns_name) <= MAX_PROBLEM_VALUE else short(ep.dns_name)
    return f"{name} {ep.record_type}{ident}"
