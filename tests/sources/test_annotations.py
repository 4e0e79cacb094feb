"""Annotation parsing: host names, targets, TTL, provider-specific properties and the problems reported."""

from __future__ import annotations

import pytest

from external_dns.durations import parse_go_duration
from external_dns.endpoint.endpoint import ProviderSpecificProperty
from external_dns.sources.annotations import parse_annotations, parse_ttl
from tests.sources.helpers import PREFIX, ann

REF = "service/default/web"


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("10m", 600), ("1h30m", 5400), ("90", 90), ("1.9s", 1), ("90s", 90), ("2147483647", 2147483647),
     ("1500ms", 1), ("0.5m", 30)],
)
def test_ttl_values(value: str, seconds: int) -> None:
    assert parse_ttl(value) == seconds
    parsed = parse_annotations(ann(ttl=value), ref=REF)
    assert parsed.ttl == seconds
    assert parsed.problems == []


@pytest.mark.parametrize(("value", "fragment"), [
    ("abc", "is not a valid TTL value"),
    ("0", "must be between [1, 2147483647]"),
    ("-5s", "must be between"),
    ("2147483648", "must be between"),
    ("500ms", "must be between"),
    ("1.5", "is not a valid TTL value"),
    ("", "is not a valid TTL value"),
])
def test_bad_ttl_keeps_default_and_is_reported(value: str, fragment: str) -> None:
    parsed = parse_annotations(ann(ttl=value, hostname="a.example.org"), ref=REF)
    assert parsed.ttl == 0
    assert parsed.hostnames == ["a.example.org"]
    [problem] = parsed.problems
    assert problem.ref == REF
    assert problem.field == PREFIX + "ttl"
    assert problem.value == value
    assert fragment in problem.message
    assert REF in str(problem) and PREFIX + "ttl" in str(problem)


@pytest.mark.parametrize("text", ["1x", "h", "5", "1h-3m", "--1s", "1.2.3s"])
def test_go_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_go_duration(text)


def test_go_duration_forms() -> None:
    assert parse_go_duration("0") == 0
    assert parse_go_duration("-1m") == -60
    assert parse_go_duration("1h2m3s4ms") == pytest.approx(3723.004)
    assert parse_go_duration("2µs") == pytest.approx(2e-6)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a.example.org", ["a.example.org"]),
        ("a.example.org.", ["a.example.org"]),
        ("a.example.org, b.example.org", ["a.example.org", "b.example.org"]),
        (" a.example.org ,b.example.org.,", ["a.example.org", "b.example.org"]),
        ("a.example.org,a.example.org", ["a.example.org"]),
        ("*.example.org", ["*.example.org"]),
        ("_sip._tcp.example.org", ["_sip._tcp.example.org"]),
    ],
)
def test_hostnames(value: str, expected: list[str]) -> None:
    parsed = parse_annotations(ann(hostname=value, internal_hostname=value), ref=REF)
    assert parsed.hostnames == expected
    assert parsed.internal_hostnames == expected
    assert parsed.problems == []


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ("x" * 64 + ".example.org", "longer than 63"),
        (".".join(["abcdefghi"] * 26), "longer than 253"),
        ("a.*.example.org", "'*' is only allowed as the whole first label"),
        ("a*.example.org", "'*' is only allowed"),
        ("a..example.org", "empty label"),
        ("a(b).example.org", "not allowed"),
    ],
)
def test_bad_hostname_is_skipped_with_problem(bad: str, fragment: str) -> None:
    parsed = parse_annotations(ann(hostname=f"good.example.org,{bad}"), ref=REF)
    assert parsed.hostnames == ["good.example.org"]
    [problem] = parsed.problems
    assert problem.field == PREFIX + "hostname"
    assert bad in problem.value
    assert fragment in problem.message


@pytest.mark.parametrize(
    ("value", "targets", "n_problems"),
    [
        ("1.2.3.4", ["1.2.3.4"], 0),
        ("1.2.3.4, 2001:db8::1 , lb.example.net.", ["1.2.3.4", "2001:db8::1", "lb.example.net"], 0),
        ("1.2.3.999,5.6.7.8", ["5.6.7.8"], 1),
        ("2001:db8::zz", [], 2),
        ("bad host!,1.1.1.1", ["1.1.1.1"], 1),
        ("*.example.net", [], 2),
    ],
)
def test_targets(value: str, targets: list[str], n_problems: int) -> None:
    parsed = parse_annotations(ann(target=value), ref=REF)
    assert parsed.targets == targets
    assert len(parsed.problems) == n_problems
    assert all(p.field == PREFIX + "target" for p in parsed.problems)


def test_provider_specific_and_set_identifier() -> None:
    annotations = ann(aws_weight="10", aws_region="eu-west-1", webhook_foo="bar", scw_x="1", coredns_group="g",
                      azure_tags="a=b", cloudflare_proxied="true", alias="true", record_type="PTR",
                      set_identifier="eu")
    annotations["other.io/aws-weight"] = "99"
    parsed = parse_annotations(annotations, ref=REF)
    assert parsed.set_identifier == "eu"
    assert sorted((p.name, p.value) for p in parsed.provider_specific) == sorted([
        ("aws/weight", "10"), ("aws/region", "eu-west-1"), ("webhook/foo", "bar"), ("scw/x", "1"),
        ("coredns/group", "g"), ("azure/tags", "a=b"), (PREFIX + "cloudflare-proxied", "true"),
        ("alias", "true"), ("record-type", "PTR"),
    ])
    assert parsed.problems == []


@pytest.mark.parametrize(("value", "props", "n_problems"), [
    ("true", [ProviderSpecificProperty("alias", "true")], 0),
    ("false", [], 0),
    ("A", [], 1),  # QUIRK of external-dns: only "true" is read from the annotation
])
def test_alias_annotation(value: str, props: list[ProviderSpecificProperty], n_problems: int) -> None:
    parsed = parse_annotations(ann(alias=value), ref=REF)
    assert parsed.provider_specific == props
    assert len(parsed.problems) == n_problems


def test_controller_access_endpoints_type_and_hostname_source() -> None:
    parsed = parse_annotations(ann(controller="dns-controller", access="private", endpoints_type="HostIP",
                                   ingress_hostname_source="Annotation-Only"), ref=REF)
    assert parsed.controller_matches()
    assert parsed.access == "private"
    assert parsed.endpoints_type == "HostIP"
    assert parsed.ingress_hostname_source == "annotation-only"
    other = parse_annotations(ann(controller="someone-else", access="both", endpoints_type="Pod"), ref=REF)
    assert not other.controller_matches()
    assert other.access == "" and other.endpoints_type == ""
    assert {p.field for p in other.problems} == {PREFIX + "access", PREFIX + "endpoints-type"}
    assert parse_annotations({}, ref=REF).controller_matches()


def test_custom_prefix_ignores_default_prefix() -> None:
    annotations = {"external-dns.alpha.kubernetes.io/hostname": "old.example.org",
                   "external-dns.alpha.kubernetes.io/aws-weight": "5",
                   PREFIX + "hostname": "new.example.org"}
    parsed = parse_annotations(annotations, "external-dns.alpha.kubernetes.io/", REF)
    assert parsed.hostnames == ["old.example.org"]
    assert parsed.provider_specific == [ProviderSpecificProperty("aws/weight", "5")]
    assert parse_annotations(annotations, ref=REF).hostnames == ["new.example.org"]


# -- annotations under the other well-known prefix -----------------------------------------------------------------
ALPHA = "external-dns.alpha.kubernetes.io/"


def test_annotations_under_the_alpha_prefix_are_named_in_one_warning() -> None:
    """Objects written for external-dns before v0.22 are not read under the default prefix: one problem per
    object names the keys and the flag that reads them."""
    parsed = parse_annotations({ALPHA + "hostname": "a.example.org", ALPHA + "ttl": "60", "other/x": "y"}, ref=REF)
    assert parsed.hostnames == []
    [problem] = parsed.problems
    assert (problem.ref, problem.field, problem.severity) == (REF, ALPHA + "hostname", "warning")
    assert problem.message == (
        "annotations under external-dns.alpha.kubernetes.io/ are not read: --annotation-prefix is "
        "external-dns.kubernetes.io/ (external-dns.alpha.kubernetes.io/hostname, external-dns.alpha.kubernetes.io/"
        "ttl ignored); set --annotation-prefix=external-dns.alpha.kubernetes.io/, or rename them to "
        "external-dns.kubernetes.io/ (external-dns v0.22 moved its default from external-dns.alpha.kubernetes.io/ "
        "to external-dns.kubernetes.io/)")


def test_the_other_prefix_is_read_when_named_and_counterparts_silence_the_warning() -> None:
    both = {ALPHA + "hostname": "a.example.org", PREFIX + "hostname": "a.example.org"}  # mid-migration: fine
    assert parse_annotations(both, ref=REF).problems == []
    alpha = parse_annotations({ALPHA + "hostname": "a.example.org"}, prefix=ALPHA, ref=REF)
    assert alpha.hostnames == ["a.example.org"] and alpha.problems == []
    # with the alpha prefix named, the default prefix is the ignored one; with a custom prefix, both are
    [problem] = parse_annotations({PREFIX + "hostname": "a.example.org"}, prefix=ALPHA, ref=REF).problems
    assert problem.field == PREFIX + "hostname" and "--annotation-prefix=external-dns.kubernetes.io/" in problem.message
    [problem] = parse_annotations({ALPHA + "hostname": "a.example.org"}, prefix="corp.example/", ref=REF).problems
    assert problem.field == ALPHA + "hostname"


def test_the_informer_transformer_keeps_the_other_prefix_for_the_warning() -> None:
    from external_dns.sources.informer.slim import annotation_keeper

    keep = annotation_keeper(PREFIX)
    assert keep(PREFIX + "hostname") and keep(ALPHA + "hostname") and not keep("kubectl.kubernetes.io/x")
