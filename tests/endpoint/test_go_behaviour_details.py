"""Behaviour details taken from external-dns's own unit tests: Unicode/IDNA domain filters, the webhook
JSON forms (errors naming regexInclude/regexExclude, Go's case-insensitive keys), AffixNameMapper with
both affixes, and what a generated ownership TXT carries."""

from __future__ import annotations

import json
from typing import Any

import pytest

from external_dns.endpoint.domain_filter import DomainFilter, _normalize_domain
from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint, ProviderSpecificProperty
from external_dns.endpoint.names import normalize_dns_name, to_unicode_name
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.registry.mapper import AffixNameMapper

# -- regex filters match the Unicode form of a name ----------------------------------------------------------


@pytest.mark.parametrize("name", ["xn--bcher-kva.example.de", "XN--BCHER-KVA.Example.DE.", "bücher.example.de",
                                  "BÜCHER.example.de"])
def test_regex_filter_matches_the_unicode_form(name: str) -> None:
    assert DomainFilter(regex=r"^bücher\.example\.de$").match(name)
    assert not DomainFilter(regex=r"^bücher\.example\.de$", regex_exclusion="ü").match(name)
    assert not DomainFilter(regex=r"xn--").match(name), "the pattern never sees the punycode form"


# -- mixed punycode / Unicode labels normalise as Go's idna Lookup profile -------------------------------------


@pytest.mark.parametrize(
    ("name", "unicode"),
    [
        ("xn--bcher-kva.BÜCHER.de", "bücher.bücher.de"),
        ("Bücher.XN--BCHER-KVA.De.", "bücher.bücher.de."),
        ("MÜNCHEN.xn--mnchen-3ya.example", "münchen.münchen.example"),
        ("faß.de", "faß.de"),  # Go's ToUnicode is never transitional (x/net/idna drops it there): ß stays
        ("xn--fa-hia.de", "faß.de"),  # an A-label decodes to what it holds
        ("_srv._tcp.Bücher.de", "_srv._tcp.bücher.de"),  # non-strict: underscores stay
    ],
)
def test_mixed_labels_normalise_like_go(name: str, unicode: str) -> None:
    assert to_unicode_name(name) == unicode


# -- punycode Go's lenient profile decodes whatever it holds (endpoint/domain_filter_test.go, ------------------
# internal/idna/idna_test.go of v0.22.0)


@pytest.mark.parametrize(("name", "unicode"), [
    ("xn--nordic--w1a.xn--xn--kItty-pd34d-hn01b3542b.com", "nordic-ø.xn--kitty-點看pd34d.com"),
    ("xn--nordic--w1a.xn--kItty-pd34d.com", "nordic-ø.kitty😸.com"),  # an emoji: no IDNA2008 label, decoded
    ("nordic-ø.kitty😸.COM", "nordic-ø.kitty😸.com"),
    ("xn--nordic--w1a.kiTTy😸.com.", "nordic-ø.kitty😸.com"),
    ("xn--c1yn36f.org.", "點看.org"),
    ("xn--abc-.org", "abc.org"),  # a delimiter last: the basic code points
    ("xn--.org", ".org"),
    ("xn---abc.org", "xn---abc.org"),  # a delimiter first: an error, the label is kept
])
def test_domain_filter_normalizes_punycode_as_go(name: str, unicode: str) -> None:
    assert _normalize_domain(name) == unicode


@pytest.mark.parametrize(("name", "ascii"), [
    ("nordic-ø.xn--kitty-點看pd34d.com", "xn--nordic--w1a.xn--xn--kitty-pd34d-hn01b3542b.com."),
    ("nordic-ø.kitty😸.com.", "xn--nordic--w1a.xn--kitty-pd34d.com."),
    ("  nordic-ø.kitty😸.COM", "xn--nordic--w1a.xn--kitty-pd34d.com."),
    ("xn--nordic--w1a.kitty😸.com.", "xn--nordic--w1a.xn--kitty-pd34d.com."),
    ("😍.org", "xn--r28h.org."),
    ("點看.org.", "xn--c1yn36f.org."),
    ("XN--BCHER-KVA.de", "xn--bcher-kva.de."),
    ("xn--abc-.org", "abc.org."),  # decoded, then encoded again: what Go's plan rows are keyed by
    ("*.example.com", "*.example.com."),
])
def test_plan_names_normalize_as_go(name: str, ascii: str) -> None:
    assert normalize_dns_name(name) == ascii


@pytest.mark.parametrize("name", ["😍.org", "xn--r28h.org", "🤩.org", "example.😍.org", "example.🤩.org",
                                  "a.example.xn--r28h.org", "a.example.🤩.org", "XN--R28H.org."])
def test_regex_filter_on_punycode_emoji_names(name: str) -> None:
    """Go's regexDomainFilterTests: `(?:😍|🤩)\\.org$` matches the punycode spellings too (the name is decoded
    before matching, even where IDNA2008 has no such label)."""
    assert DomainFilter(regex="(?:😍|🤩)\\.org$").match(name)
    excluded = name.lower().rstrip(".") in ("example.😍.org", "example.🤩.org")
    assert DomainFilter(regex="(?:😍|🤩)\\.org$", regex_exclusion="^example\\.(?:😍|🤩)\\.org$").match(name) \
        is not excluded


def test_list_filter_serializes_its_unicode_form_as_go() -> None:
    """Go serializes the filters as prepared (ToUnicode): a punycode filter goes over the webhook wire decoded,
    and matches both spellings."""
    f = DomainFilter(include=["xn--r28h.org", " Example.COM. ", ""], exclude=["xn--nordic--w1a.xn--kItty-pd34d.com"])
    assert f.to_json() == {"include": ["example.com", "😍.org"], "exclude": ["nordic-ø.kitty😸.com"]}
    assert f.match("a.😍.org") and f.match("a.xn--r28h.org") and not f.match("xn--nordic--w1a.kitty😸.com")
    assert DomainFilter.from_json(json.loads(json.dumps(f.to_json()))) == f


def test_filters_built_from_any_form_are_equal_and_serialize_in_unicode() -> None:
    forms = [DomainFilter(include=["xn--bcher-kva.de"], exclude=["API.XN--BCHER-KVA.de."]),
             DomainFilter(include=["BÜCHER.de"], exclude=["api.bücher.de"]),
             DomainFilter(include=[" Bücher.DE. "], exclude=["Api.Bücher.De"])]
    for f in forms:
        assert f.to_json() == {"include": ["bücher.de"], "exclude": ["api.bücher.de"]}
        assert f == forms[0]
        assert f.match("www.xn--bcher-kva.de") and f.match("WWW.BÜCHER.DE")
        assert not f.match("x.api.xn--bcher-kva.de")
    wire = json.dumps(forms[0].to_json(), ensure_ascii=False)
    assert DomainFilter.from_json(json.loads(wire)) == forms[0]


# -- webhook JSON: errors name the field -----------------------------------------------------------------------


@pytest.mark.parametrize(("data", "message"), [
    ({"regexInclude": "*"}, "invalid regexInclude: error parsing regexp: "),
    ({"regexExclude": "*"}, "invalid regexExclude: error parsing regexp: "),
    ({"regexInclude": "ok", "regexExclude": "(a"}, "invalid regexExclude: error parsing regexp: missing )"),
    ({"include": ["a.org"], "regexInclude": "a"}, "cannot have both domain list and regex"),
])
def test_domain_filter_decoding_errors(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as err:
        DomainFilter.from_json(data)
    assert str(err.value).startswith(message)


# -- Changes JSON accepts Go's case-insensitive keys ----------------------------------------------------------


def test_changes_decode_with_go_case_insensitive_keys() -> None:
    body = {
        "Create": [{"DNSName": "a.example.org", "Targets": ["192.0.2.1"], "RecordType": "A", "RecordTTL": 60,
                    "ProviderSpecific": [{"Name": "aws/weight", "Value": "10"}], "Labels": {"owner": "x"}}],
        "UPDATEOLD": [{"dnsname": "b.example.org", "targets": ["192.0.2.2"], "recordtype": "A"}],
        "updateNew": [{"dnsName": "b.example.org", "targets": ["192.0.2.3"], "recordType": "A",
                       "SetIdentifier": "blue"}],
        "delete": [{"dnsName": "c.example.org", "targets": ["c.example.net"], "recordType": "CNAME"}],
        "unknown": "ignored",
    }
    changes = Changes.from_json(body)
    [create] = changes.create
    assert (create.dns_name, create.record_type, list(create.targets), create.record_ttl) == (
        "a.example.org", "A", ["192.0.2.1"], 60)
    assert create.provider_specific == [ProviderSpecificProperty("aws/weight", "10")]
    assert create.labels == {"owner": "x"}
    assert changes.update_old[0].dns_name == "b.example.org" and changes.update_new[0].set_identifier == "blue"
    assert changes.delete[0].targets == Targets(["c.example.net"])
    # the exact name and a later folded duplicate: the later key wins, as Go's decoder
    later = Changes.from_json({"create": [], "CREATE": [{"dnsName": "d.org", "targets": ["1.1.1.1"],
                                                          "recordType": "A"}]})
    assert [ep.dns_name for ep in later.create] == ["d.org"]


# -- AffixNameMapper with both prefix and suffix ---------------------------------------------------------------


@pytest.mark.parametrize("txt", ["pre-a-www-suf.example.org", "pre-www-suf.example.org", "a-www.example.org",
                                 "www.example.org", "pre-cname-www.example.org", "cname-www-suf.example.org"])
def test_mapper_with_prefix_and_suffix_maps_nothing_back(txt: str) -> None:
    mapper = AffixNameMapper(prefix="pre-", suffix="-suf")
    assert mapper.to_endpoint_name(txt) == ("", "")
    assert AffixNameMapper(prefix="%{record_type}.", suffix="-%{record_type}").to_endpoint_name(txt) == ("", "")


def test_mapper_with_prefix_and_suffix_still_names_txt_records_with_both() -> None:
    assert AffixNameMapper(prefix="pre-", suffix="-suf").to_txt_name("www.example.org", "A") == (
        "pre-a-www-suf.example.org")


# -- generated ownership TXT records -------------------------------------------------------------------------


def test_generated_txt_carries_provider_specific_set_identifier_and_owned_record() -> None:
    from external_dns.providers.inmemory import InMemoryProvider
    from external_dns.registry.txt import TXTRegistry

    registry = TXTRegistry(InMemoryProvider(zones=["example.org"]), owner_id="owner")
    record = Endpoint(dns_name="foo.example.org", record_type="CNAME", targets=Targets(["lb.example.net"]),
                      set_identifier="eu", labels={"owner": "owner"},
                      provider_specific=[ProviderSpecificProperty("aws/weight", "10"),
                                         ProviderSpecificProperty("external-dns.alpha.kubernetes.io/cloudflare-proxied",
                                                                  "true")])
    [txt] = registry.generate_txt_record(record)
    assert txt.dns_name == "cname-foo.example.org" and txt.record_type == "TXT"
    assert list(txt.targets) == ['"heritage=external-dns,external-dns/owner=owner"']
    assert txt.set_identifier == "eu"
    assert txt.labels[OWNED_RECORD_LABEL_KEY] == "foo.example.org"
    assert txt.provider_specific == record.provider_specific
    assert txt.provider_specific is not record.provider_specific, "a copy: changing one never changes the other"
