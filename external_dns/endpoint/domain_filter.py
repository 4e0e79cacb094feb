"""DomainFilter: which DNS names are in scope (include / exclude lists or RE2 regexes), as external-dns's
`endpoint/domain_filter.go`; `to_json` / `from_json` are the webhook negotiation form. Names and filters are
compared in their IDNA Unicode form (names.to_unicode_name: punycode decoded as Go's lenient profile, so
`xn--r28h.org` is `😍.org` to a list or a regex), and the lists are serialized in that form, as Go's.
`MatchAllDomainFilters` ANDs several filters (the CLI filter and the provider's own one in the plan).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import re2  # type: ignore[import-untyped]

from external_dns.endpoint.names import to_unicode_name


class DomainFilterInterface(Protocol):
    """Anything the plan can ask whether a DNS name is in scope."""

    def match(self, domain: str) -> bool: ...


def _normalize_domain(domain: str) -> str:
    """ToUnicode (lower-case) and one trailing dot removed."""
    s = domain.lower()
    if not s.isascii() or "xn--" in s:
        s = to_unicode_name(domain)
    return s[:-1] if s.endswith(".") else s


def _prepare(filters: Iterable[str]) -> list[str]:
    out: list[str] = []
    for f in filters:
        if not isinstance(f, str):
            raise ValueError(f"domain filter entries must be strings, got {f!r}")
        d = _normalize_domain(f.strip())
        if d:  # empty entries dropped: the CLI default [""] means "no filter"
            out.append(d)
    return out


class _ListMatcher:
    """`matchFilter` of one list, precompiled. For a filter `f` the Go rules reduce to: `.f`-style filters
    match names ending with `f`; others match the name `f` itself or names ending with `"." + f` (an equal
    dot count can only match by equality, so the Go dot-count branch adds nothing). That is a set lookup
    plus one C-level `str.endswith(tuple)`."""

    __slots__ = ("exact", "suffixes")

    def __init__(self, filters: list[str]) -> None:
        self.exact = frozenset(f for f in filters if not f.startswith("."))
        self.suffixes = tuple(f if f.startswith(".") else "." + f for f in filters)

    def match(self, normalized: str) -> bool:
        return normalized in self.exact or normalized.endswith(self.suffixes)


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # the error is raised (and reported naming the flag), not printed by RE2


def _compile(pattern: str, flag: str) -> Any:
    """The pattern compiled with RE2 (google-re2): Go's regexp syntax and linear-time matching, so a
    backtracking-prone pattern (`(a+)+$`) cannot hang a sync. Go rejects what RE2 rejects (backreferences,
    lookarounds)."""
    if not pattern:
        return None
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else exc
        raise ValueError(f"{flag}: invalid regular expression {pattern!r}: {reason}") from exc


def _reason(exc: ValueError) -> str:
    """RE2's own message of a pattern `_compile` refused."""
    cause = exc.__cause__
    raw = cause.args[0] if cause is not None and cause.args else str(exc)
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


class DomainFilter:
    """Include/exclude domain lists, or (when either regex is given) include/exclude regexes."""

    def __init__(
        self,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
        regex: str = "",
        regex_exclusion: str = "",
    ) -> None:
        self.regex = regex or ""
        self.regex_exclusion = regex_exclusion or ""
        self._regex = _compile(self.regex, "--regex-domain-filter")
        self._regex_exclusion = _compile(self.regex_exclusion, "--regex-domain-exclusion")
        if self.regex or self.regex_exclusion:  # a regex filter discards the lists (NewDomainFilterWithOptions)
            self.include: list[str] = []
            self.exclude: list[str] = []
        else:
            self.include = _prepare(include)
            self.exclude = _prepare(exclude)
        self._include_matcher = _ListMatcher(self.include) if self.include else None
        self._exclude_matcher = _ListMatcher(self.exclude) if self.exclude else None

    # -- queries --------------------------------------------------------------------------------------------
    @property
    def filters(self) -> list[str]:
        """The include list (Go `Filters`)."""
        return self.include

    def is_regex(self) -> bool:
        return bool(self.regex or self.regex_exclusion)

    def is_configured(self) -> bool:
        """True when any regex or list is set (an unconfigured filter matches everything)."""
        return bool(self.regex or self.regex_exclusion or self.include or self.exclude)

    def match(self, domain: str) -> bool:
        """True when `domain` is in scope."""
        if self.regex or self.regex_exclusion:
            d = _normalize_domain(domain)
            # searched unanchored, as Go's MatchString
            if self._regex_exclusion is not None and self._regex_exclusion.search(d):
                return False
            if self._regex is not None:
                return self._regex.search(d) is not None
            return True
        inc, exc = self._include_matcher, self._exclude_matcher
        if inc is None and exc is None:
            return True
        d = _normalize_domain(domain)
        if inc is not None and not inc.match(d):
            return False
        return exc is None or not exc.match(d)

    def match_parent(self, domain: str) -> bool:
        """True when `domain` (a zone) is a parent of some include filter (AWS `--aws-zone-match-parent`)."""
        d = _normalize_domain(domain)
        if self._exclude_matcher is not None and self._exclude_matcher.match(d):
            return False
        if not self.include:
            return True
        suffix = "." + d
        return any(f and not f.startswith(".") and f.endswith(suffix) for f in self.include)

    # -- JSON (webhook negotiation) -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """`{"include": [...], "exclude": [...]}` (sorted, empty omitted) or `{"regexInclude", "regexExclude"}`."""
        out: dict[str, Any] = {}
        if self.is_regex():
            if self.regex:
                out["regexInclude"] = self.regex
            if self.regex_exclusion:
                out["regexExclude"] = self.regex_exclusion
            return out
        if self.include:
            out["include"] = sorted(self.include)
        if self.exclude:
            out["exclude"] = sorted(self.exclude)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DomainFilter:
        """Decode the webhook form. Lists and regexes together -> ValueError; unknown keys (e.g. the
        `filters` key documented in webhook.yaml, a QUIRK upstream) are ignored -> match-all filter."""
        if not isinstance(data, Mapping):
            raise ValueError("domain filter must be a JSON object")
        include = data.get("include") or []
        exclude = data.get("exclude") or []
        for key, value in (("include", include), ("exclude", exclude)):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"domain filter field '{key}' must be a list of strings")
        regex = data.get("regexInclude") or ""
        regex_exclusion = data.get("regexExclude") or ""
        for key, value in (("regexInclude", regex), ("regexExclude", regex_exclusion)):
            if not isinstance(value, str):
                raise ValueError(f"domain filter field '{key}' must be a string")
        if not regex and not regex_exclusion:
            return cls(include=include, exclude=exclude)
        if include or exclude:
            raise ValueError("cannot have both domain list and regex")
        for key, pattern in (("regexInclude", regex), ("regexExclude", regex_exclusion)):
            try:
                _compile(pattern, key)
            except ValueError as exc:  # external-dns's wording, naming the JSON field
                raise ValueError(f"invalid {key}: error parsing regexp: {_reason(exc)}") from None
        return cls(regex=regex, regex_exclusion=regex_exclusion)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DomainFilter):
            return NotImplemented
        return (  # the lists' order means nothing (Go sorts them when it serializes)
            sorted(self.include) == sorted(other.include)
            and sorted(self.exclude) == sorted(other.exclude)
            and self.regex == other.regex
            and self.regex_exclusion == other.regex_exclusion
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self.is_regex():
            return f"DomainFilter(regex={self.regex!r}, regex_exclusion={self.regex_exclusion!r})"
        return f"DomainFilter(include={self.include!r}, exclude={self.exclude!r})"


class MatchAllDomainFilters:
    """The AND of several filters (None members are skipped); no members -> matches everything."""

    def __init__(self, filters: Iterable[DomainFilterInterface | None] = ()) -> None:
        self.filters: list[DomainFilterInterface] = [f for f in filters if f is not None]
        # Members that can reject a name (an unconfigured DomainFilter matches everything).
        self._active = [f for f in self.filters if getattr(f, "is_configured", lambda: True)()]

    def match(self, domain: str) -> bool:
        for f in self._active:  # noqa: SIM110 - hot path (per record per plan): no generator
            if not f.match(domain):
                return False
        return True

    def is_configured(self) -> bool:
        """False when no member can reject a name (lets the plan skip matching entirely)."""
        return bool(self._active)
