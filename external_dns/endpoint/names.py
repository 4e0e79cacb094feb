"""DNS name normalisation (IDNA): the canonical forms the plan and the domain filter compare.

external-dns (`internal/idna/idna.go`) uses the Go IDNA profile MapForLookup + Transitional + non-strict:
- `normalize_dns_name` (plan rows): trim spaces, ToASCII (lower-case, punycode), ensure a trailing dot.
- `to_unicode_name` (domain filter): ToUnicode (lower-case, punycode decoded), trailing dot kept as given.

Implementation: pure-ASCII names (the overwhelmingly common case) are just lower-cased — no IDNA machinery
runs. Other names go through the `idna` package (UTS #46 mapping, present in the environment through
`requests`), with the transitional deviations (sharp s -> ss, final sigma -> sigma, ZWJ/ZWNJ removed) applied first because
idna >= 3.11 no longer implements transitional processing. Labels are converted one by one and leniently, as
Go's non-strict profile: `_` and `*` labels stay, and a label that fails conversion is kept lower-cased with
a warning (Go also logs and keeps the partial result). Without the `idna` package the standard library's
IDNA 2003 codec (`encodings.idna`) is used per label.
"""

from __future__ import annotations

import encodings.idna as _std_idna

import structlog

try:  # the `idna` package (UTS #46); optional, see the module docstring.
    import idna as _idna
except ImportError:  # pragma: no cover - exercised only where requests/idna is absent
    _idna = None  # type: ignore[assignment]

log = structlog.get_logger(__name__)

# UTS #46 transitional deviations.
_TRANSITIONAL = str.maketrans({"\u00df": "ss", "\u03c2": "\u03c3", "\u200c": None, "\u200d": None})


def _remap(name: str) -> str:
    name = name.translate(_TRANSITIONAL)
    if _idna is not None:
        try:
            return str(_idna.uts46_remap(name, std3_rules=False, transitional=False))
        except (_idna.IDNAError, UnicodeError, ValueError) as exc:
            log.warning("Got error while parsing DNSName", dns_name=name, error=str(exc))
            return name.lower()
    return name.lower().replace("\u3002", ".").replace("\uff0e", ".").replace("\uff61", ".")


def _label_to_ascii(label: str) -> str:
    if label.isascii():
        return label
    try:
        if _idna is not None:
            return _idna.alabel(label).decode("ascii")
        return _std_idna.ToASCII(label).decode("ascii")
    except (UnicodeError, ValueError) as exc:
        log.warning("Got error while parsing DNSName label", label=label, error=str(exc))
        return label


def _label_to_unicode(label: str) -> str:
    if not label.startswith("xn--"):
        return label
    try:
        if _idna is not None:
            return str(_idna.ulabel(label))
        return str(_std_idna.ToUnicode(label))
    except (UnicodeError, ValueError) as exc:
        log.warning("Got error while parsing domain label", label=label, error=str(exc))
        return label


def to_ascii_name(name: str) -> str:
    """IDNA ToASCII of a whole name, lenient per label; ASCII input is only lower-cased."""
    if name.isascii():
        return name.lower()
    return ".".join(_label_to_ascii(label) for label in _remap(name).split("."))


def to_unicode_name(name: str) -> str:
    """IDNA ToUnicode of a whole name (lower-cased, punycode labels decoded), lenient per label."""
    if name.isascii():
        name = name.lower()
        if "xn--" not in name:
            return name
        return ".".join(_label_to_unicode(label) for label in name.split("."))
    return ".".join(_label_to_unicode(label) for label in _remap(name).split("."))


def normalize_dns_name(name: str) -> str:
    """The plan's row name: trimmed, IDNA ToASCII (lower-case), with a trailing dot.

    `Foo.Example.com` and `foo.example.com.` give the same result; `bücher.de` -> `xn--bcher-kva.de.`.
    """
    s = name.strip()
    s = s.lower() if s.isascii() else to_ascii_name(s)
    if not s.endswith("."):
        s += "."
    return s
