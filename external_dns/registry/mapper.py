"""Names of ownership TXT records: `AffixNameMapper` (external-dns `registry/mapper`).

`to_txt_name("www.example.com", "CNAME")` -> `cname-www.example.com` (plus prefix/suffix on the first
label, `%{record_type}` templating, wildcard replacement); `to_endpoint_name` maps a TXT name back to
(endpoint name, record type) -- the type is "" for old-format names without a type.
"""

from __future__ import annotations

RECORD_TYPE_TEMPLATE = "%{record_type}"

# Types recognised in TXT names, in the order they are tried.
SUPPORTED_RECORD_TYPES = ("A", "AAAA", "CNAME", "NS", "MX", "PTR", "SRV", "NAPTR", "TXT", "DNAME")


_TYPE_OF_WORD = {rtype.lower(): rtype for rtype in SUPPORTED_RECORD_TYPES}
_MAX_AFFIXES = 64  # record types remembered by `to_txt_name` (types are few; any string may arrive)


def _extract_type_default_position(name: str) -> tuple[str, str]:
    """`a-foo.example.com` -> (`foo.example.com`, `A`); no known type before the first `-` -> (name, "")."""
    first = name.partition("-")[0]
    rtype = _TYPE_OF_WORD.get(first)
    if rtype is not None:
        return name.removeprefix(first + "-"), rtype
    return name, ""


class AffixNameMapper:
    """Maps record names to ownership TXT names with a prefix or a suffix (mutually exclusive; the registry
    enforces it). Prefix, suffix and wildcard replacement are lower-cased."""

    def __init__(self, prefix: str = "", suffix: str = "", wildcard_replacement: str = "") -> None:
        self.prefix = prefix.lower()
        self.suffix = suffix.lower()
        self.wildcard_replacement = wildcard_replacement.lower()
        # record type -> (text before the first label, text after it): `to_txt_name` runs once per record
        self._affixes: dict[str, tuple[str, str]] = {}

    def __repr__(self) -> str:
        return (
            f"AffixNameMapper(prefix={self.prefix!r}, suffix={self.suffix!r}, "
            f"wildcard_replacement={self.wildcard_replacement!r})"
        )

    def record_type_in_affix(self) -> bool:
        """True when the prefix or suffix carries `%{record_type}`."""
        return RECORD_TYPE_TEMPLATE in self.prefix or RECORD_TYPE_TEMPLATE in self.suffix

    def _is_prefix(self) -> bool:
        return not self.suffix

    def collision(self) -> tuple[tuple[str, str], tuple[str, str], str] | None:
        """Two records whose ownership names coincide, as `((name, type), (name, type), TXT name)`, or None when
        the names are exact. With `%{record_type}` in the affix the parse takes the type whose rendered affix
        the TXT name carries; when one type's rendered prefix begins another's (`%{record_type}` alone: `a` and
        `aaaa`), or one type's rendered suffix ends another's (`ptr` and `naptr`), `aaaa.b` A and `a.b` AAAA
        share `aaaaa.b` and no parse can tell them apart. Without the template the type word ends at the first
        `-` of the first label: exact."""
        if not self.record_type_in_affix():
            return None
        prefix_mode = self._is_prefix()
        affix = self.prefix if prefix_mode else self.suffix
        typed = {rtype: affix.replace(RECORD_TYPE_TEMPLATE, rtype.lower()) for rtype in SUPPORTED_RECORD_TYPES}
        for short, one in typed.items():
            for long, other in typed.items():
                if len(one) >= len(other) or not (other.startswith(one) if prefix_mode else other.endswith(one)):
                    continue
                rest = other[len(one):] if prefix_mode else other[: len(other) - len(one)]
                first = f"{rest}x" if prefix_mode else f"x{rest}"  # the shorter type's first label
                short_name, long_name = f"{first}.example.org", "x.example.org"
                return (short_name, short), (long_name, long), self.to_txt_name(long_name, long)
        return None

    # -- forward --------------------------------------------------------------------------------------------
    def to_txt_name(self, dns_name: str, record_type: str) -> str:
        """The ownership TXT name of the record (`dns_name`, `record_type`). The name is not lower-cased."""
        affixes = self._affixes.get(record_type)
        if affixes is None:
            affixes = self._affixes_of(record_type)
        first, dot, rest = dns_name.partition(".")
        if first == "*" and self.wildcard_replacement:
            first = self.wildcard_replacement
        return affixes[0] + first + affixes[1] + dot + rest

    def _affixes_of(self, record_type: str) -> tuple[str, str]:
        """What `to_txt_name` puts before and after the first label for `record_type` (remembered)."""
        rtype = record_type.lower()
        prefix = self.prefix.replace(RECORD_TYPE_TEMPLATE, rtype)
        suffix = self.suffix.replace(RECORD_TYPE_TEMPLATE, rtype)
        if not self.record_type_in_affix():
            prefix = f"{prefix}{rtype}-"
        if len(self._affixes) >= _MAX_AFFIXES:
            self._affixes.clear()
        self._affixes[record_type] = (prefix, suffix)
        return prefix, suffix

    # -- reverse --------------------------------------------------------------------------------------------
    def to_endpoint_name(self, txt_name: str) -> tuple[str, str]:
        """(endpoint name, record type) for a TXT name; the type is "" for old-format names, and ("", "")
        when the name does not carry this mapper's affix."""
        lower = txt_name.lower()
        if not self.prefix and not self.suffix:  # the default mapper: the type word before the first `-`
            return _extract_type_default_position(lower)
        if self.prefix and self.suffix:
            return "", ""  # both set (the registry refuses it): external-dns maps nothing back either
        if self._is_prefix():
            return self._drop_affix_extract_type(lower)
        dots = self.suffix.count(".")
        pieces = lower.split(".", 1 + dots)
        if len(pieces) < 1 + dots:
            return "", ""
        head = ".".join(pieces[: 1 + dots])
        name, rtype = self._drop_affix_extract_type(head)
        if not name and not rtype:
            return "", ""  # not our suffix (Go would return ".<rest>"; only ever used as a lookup key)
        if len(pieces) > 1 + dots:
            return f"{name}.{pieces[1 + dots]}", rtype
        return name, rtype

    def _drop_affix_extract_type(self, name: str) -> tuple[str, str]:
        prefix, suffix = self.prefix, self.suffix
        if self.record_type_in_affix():
            for rtype in SUPPORTED_RECORD_TYPES:
                low = rtype.lower()
                if self._is_prefix():
                    typed = prefix.replace(RECORD_TYPE_TEMPLATE, low)
                    if name.startswith(typed):
                        return name[len(typed) :], rtype
                else:
                    typed = suffix.replace(RECORD_TYPE_TEMPLATE, low)
                    if name.endswith(typed):
                        return name[: len(name) - len(typed)], rtype
            # Old records written without the type.
            prefix = prefix.replace(RECORD_TYPE_TEMPLATE, "")
            suffix = suffix.replace(RECORD_TYPE_TEMPLATE, "")
        if self._is_prefix():
            if name.startswith(prefix):
                return _extract_type_default_position(name[len(prefix) :])
        elif name.endswith(suffix):
            return _extract_type_default_position(name[: len(name) - len(suffix)])
        return "", ""
