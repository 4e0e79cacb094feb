r"""DNS names: the normal forms names are keyed and compared in, and the patterns that recognise the common
plain spellings at a glance. The one home for both: code that keys, compares or pattern-matches names and
IPv4 addresses imports them from here.

Normal forms:
- `name_key` (the key of by-name maps and indexes: zone snapshots, sources' name indexes, registries,
  providers): lower case, without trailing dots. Idempotent, as a key must be: keys cross layers that key
  them again (a source's dirty names -> the controller -> the registry and the zone's snapshot). Names the
  plan puts in one row (`normalize_dns_name`) have one key, so a by-name read finds every row the plan may
  hold for a name; `a.example.org..` (an empty last label, refused at the edge) shares the key of
  `a.example.org`: a by-name read returns both, which the plan still tells apart.
- IDNA, as external-dns (`internal/idna/idna.go`: golang.org/x/net/idna's profile MapForLookup + Transitional
  + non-strict): `normalize_dns_name` (plan rows): trim spaces, ToASCII (lower-case, punycode), ensure a
  trailing dot; `to_unicode_name` (domain filter): ToUnicode (lower-case, punycode decoded), trailing dot
  kept as given. Pure-ASCII names without an `xn--` label (the overwhelmingly common case) are just
  lower-cased: no IDNA machinery runs. The UTS #46 mapping comes from the `idna` package (present in the
  environment through `requests`), with the transitional deviations (`TRANSITIONAL`: sharp s -> ss, final
  sigma -> sigma, ZWJ/ZWNJ removed) applied first for ToASCII only (idna >= 3.11 no longer implements them;
  Go's ToUnicode is never transitional). Labels are then converted as Go's lenient profile does, validity
  errors reported but never blocking: an `xn--` label is punycode-decoded whatever it decodes to (emoji,
  another `xn--` form, `xn--abc-` -> `abc`) and kept as it is only when it does not decode; ToASCII
  punycode-encodes every non-ASCII label (RFC 3492, Python's codec: Go's encoder gives the same text).

Lexical patterns (compiled, to `fullmatch`; the `*_TEXT` forms embed in larger patterns). ASCII only: `\d`
and `\w` would also match other scripts' digits and letters, so none is used.
- `IPV4`: a dotted quad exactly as `ipaddress.IPv4Address` reads it (octets 0-255, no leading zeros).
- `PLAIN_NAME`: labels of 1-63 letters, digits, `-` and `_`, an optional final dot: a name needing no IDNA
  and no escapes, whose labels are within DNS limits (the whole length is the caller's check).
- `WILDCARD_PLAIN_NAME`: `PLAIN_NAME` with an optional `*.` first label.
- `UNESCAPED_NAME`: `*` also inside labels: a name a zone file (and dnspython) spells without escapes.
- `HOST_NAME`: an RFC 952/1123 host name (letters, digits, inner hyphens) with an optional `*.` first label.
"""

from __future__ import annotations

import re

import structlog

try:  # the `idna` package (UTS #46); optional, see the module docstring.
    import idna as _idna
except ImportError:  # pragma: no cover - exercised only where requests/idna is absent
    _idna = None  # type: ignore[assignment]

log = structlog.get_logger(__name__)

# UTS #46 transitional deviations.
TRANSITIONAL = str.maketrans({"\u00df": "ss", "\u03c2": "\u03c3", "\u200c": None, "\u200d": None})

OCTET_TEXT = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
IPV4_TEXT = rf"(?:{OCTET_TEXT}\.){{3}}{OCTET_TEXT}"
PLAIN_NAME_TEXT = r"(?:[A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}"  # without the final dot
UNESCAPED_NAME_TEXT = r"(?:[A-Za-z0-9_*-]{1,63}\.)*[A-Za-z0-9_*-]{1,63}"  # without the final dot
_HOST_LABEL_TEXT = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"

IPV4 = re.compile(IPV4_TEXT)
PLAIN_NAME = re.compile(PLAIN_NAME_TEXT + r"\.?")
WILDCARD_PLAIN_NAME = re.compile(r"(?:\*\.)?" + PLAIN_NAME_TEXT + r"\.?")
UNESCAPED_NAME = re.compile(UNESCAPED_NAME_TEXT + r"\.?")
HOST_NAME = re.compile(rf"(?:\*\.)?(?:{_HOST_LABEL_TEXT}\.)*{_HOST_LABEL_TEXT}\.?")


def name_key(name: str) -> str:
    """The key names are compared by in maps and indexes: lower case, without trailing dots
    (`WWW.Example.org.` -> `www.example.org`, `a.example.org..` -> `a.example.org`). ASCII names only; IDNA
    forms are `normalize_dns_name`'s. A name already in that form comes back as the same string object, so
    the many maps keyed by it share one string per name."""
    key = name.lower().rstrip(".")
    return name if key == name else key


def _remap(name: str, transitional: bool) -> str:
    if transitional:
        name = name.translate(TRANSITIONAL)
    if _idna is not None:
        try:
            return str(_idna.uts46_remap(name, std3_rules=False, transitional=False))
        except (_idna.IDNAError, UnicodeError, ValueError) as exc:
            log.warning("Got error while parsing DNSName", dns_name=name, error=str(exc))
            return name.lower()
    return name.lower().replace("\u3002", ".").replace("\uff0e", ".").replace("\uff61", ".")


_MAX_DECODED = 1024  # Go's punycode decoder refuses longer output


def _puny_decode(encoded: str) -> str | None:
    """The label text after `xn--`, punycode-decoded as Go's x/net/idna decoder does; None where it reports an
    error (the label is then kept as it is): a delimiter first (`xn---abc`) is an error, a delimiter last
    (`xn--abc-`) leaves the basic code points, nothing (`xn--`) decodes to the empty label."""
    if not encoded:
        return ""
    pos = encoded.rfind("-") + 1
    if pos == 1:
        return None
    if pos == len(encoded):
        return encoded[:-1]
    try:
        decoded = encoded.encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return None
    if len(decoded) > _MAX_DECODED:
        return None
    # a surrogate code point cannot be a rune of a Go string: it becomes U+FFFD there
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in decoded) if not decoded.isascii() else decoded


def _decoded_label(label: str) -> str:
    if not label.startswith("xn--"):
        return label
    decoded = _puny_decode(label[4:])
    if decoded is None:
        log.warning("Got error while parsing domain label", label=label, error="invalid punycode")
        return label
    return decoded


def _label_to_ascii(label: str) -> str:
    label = _decoded_label(label)
    if label.isascii():
        return label
    return "xn--" + label.encode("punycode").decode("ascii")


def to_ascii_name(name: str) -> str:
    """IDNA ToASCII of a whole name as Go's lenient lookup profile (transitional), per label; ASCII input
    without an `xn--` label is only lower-cased."""
    if name.isascii():
        name = name.lower()
        if "xn--" not in name:
            return name
        return ".".join(_label_to_ascii(label) for label in name.split("."))
    return ".".join(_label_to_ascii(label) for label in _remap(name, transitional=True).split("."))


def to_unicode_name(name: str) -> str:
    """IDNA ToUnicode of a whole name as Go's lenient lookup profile (never transitional): lower-cased,
    punycode labels decoded, per label."""
    if name.isascii():
        name = name.lower()
        if "xn--" not in name:
            return name
        return ".".join(_decoded_label(label) for label in name.split("."))
    return ".".join(_decoded_label(label) for label in _remap(name, transitional=False).split("."))


def normalize_dns_name(name: str) -> str:
    """The plan's row name: trimmed, IDNA ToASCII (lower-case), with a trailing dot.

    `Foo.Example.com` and `foo.example.com.` give the same result; `bücher.de` -> `xn--bcher-kva.de.`.
    """
    s = to_ascii_name(name.strip())
    if not s.endswith("."):
        s += "."
    return s
