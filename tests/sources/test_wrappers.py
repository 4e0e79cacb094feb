"""Source wrappers: multi-source merge, default targets, dedup of invalid/duplicate endpoints, target-net
filter, post-processing, and the pipeline built from flags."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
import structlog.testing
from prometheus_client import REGISTRY

from external_dns.cmd.build_sources import build_manifest, build_source_pipeline
from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError
from external_dns.endpoint.endpoint import Endpoint, ProviderSpecificProperty
from external_dns.endpoint.limits import is_hold
from external_dns.endpoint.target_filter import TargetNetFilter
from external_dns.sources.manifest import ManifestSource
from external_dns.sources.source import Source
from external_dns.sources.wrappers import MultiSource, PostProcessorSource, TargetFilterSource
from tests.helpers import endpoints
from tests.sources.helpers import summary

REPO = Path(__file__).resolve().parents[2]


class Static(Source):
    def __init__(self, *endpoints: Endpoint) -> None:
        self.eps = list(endpoints)
        self.handlers: list[Callable[[], None]] = []

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for e in self.eps]

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.handlers.append(handler)


ep = partial(endpoints.ep, resource="service/ns/x")


def gauge(name: str, record_type: str, source_type: str) -> float | None:
    return REGISTRY.get_sample_value(name, {"record_type": record_type, "source_type": source_type})


def test_multi_source_concatenates_and_dedups() -> None:
    a = Static(ep("a.org", "A", "1.1.1.1", "2.2.2.2"), ep("bad.org", "A", "not-an-ip"))
    b = Static(ep("a.org", "A", "2.2.2.2", "1.1.1.1", resource="ingress/ns/y"), ep("b.org", "CNAME", "x.org"),
               ep("a.org", "A", "1.1.1.1"))
    with structlog.testing.capture_logs() as logs:
        out = MultiSource([a, b]).endpoints()
    assert [(e.dns_name, list(e.targets)) for e in out] == [
        ("a.org", ["1.1.1.1", "2.2.2.2"]), ("bad.org", []), ("b.org", ["x.org"]), ("a.org", ["1.1.1.1"])]
    assert is_hold(out[1])  # the invalid endpoint's stand-in: bad.org A keeps what it has (issue 27, item 9)
    warnings = [e["event"] for e in logs if e["log_level"] == "warning"]
    assert warnings == ["Skipping endpoint [:bad.org] due to invalid configuration [A:not-an-ip]"]
    assert gauge("external_dns_source_invalid_endpoints", "a", "service") == 1
    assert gauge("external_dns_source_deduplicated_endpoints", "a", "ingress") == 1
    # the next sync resets the gauges
    MultiSource([Static(ep("c.org", "A", "1.1.1.1"))]).endpoints()
    assert gauge("external_dns_source_invalid_endpoints", "a", "service") is None


def test_event_handlers_forwarded() -> None:
    a, b = Static(), Static()
    calls: list[int] = []
    src = PostProcessorSource(TargetFilterSource(MultiSource([a, b]), TargetNetFilter()))
    src.add_event_handler(lambda: calls.append(1))
    assert len(a.handlers) == len(b.handlers) == 1
    a.handlers[0]()
    assert calls == [1]


@pytest.mark.parametrize(
    ("force", "expected"),
    [
        (False, {("empty.org", "A", ("9.9.9.9",), 60), ("empty.org", "CNAME", ("lb.example.net",), 60),
                 ("full.org", "A", ("1.1.1.1",), 0)}),
        (True, {("empty.org", "A", ("9.9.9.9",), 60), ("empty.org", "CNAME", ("lb.example.net",), 60),
                ("full.org", "A", ("9.9.9.9",), 0), ("full.org", "CNAME", ("lb.example.net",), 0)}),
    ],
)
def test_default_targets(force: bool, expected: set[object]) -> None:
    empty = ep("empty.org", "A", ttl=60, resource="crd/ns/r")
    empty.set_identifier = "s"
    empty.provider_specific = [ProviderSpecificProperty("aws/weight", "1")]
    src = MultiSource([Static(empty, ep("full.org", "A", "1.1.1.1"))], ["9.9.9.9", "lb.example.net"], force)
    out = src.endpoints()
    assert summary(out) == expected
    for e in out:
        if e.dns_name == "empty.org":
            assert e.labels == {"resource": "crd/ns/r"} and e.set_identifier == "s"
            assert e.provider_specific == [ProviderSpecificProperty("aws/weight", "1")]


def test_target_filter() -> None:
    src = TargetFilterSource(Static(ep("a.org", "A", "10.0.0.1", "192.0.2.1"), ep("b.org", "A", "10.1.1.1"),
                                    ep("c.org", "CNAME", "x.org")),
                             TargetNetFilter(include=["10.0.0.0/8", "192.0.2.0/24"], exclude=["10.1.0.0/16"]))
    assert summary(src.endpoints()) == {("a.org", "A", ("10.0.0.1", "192.0.2.1"), 0)}
    disabled = TargetFilterSource(Static(ep("c.org", "CNAME", "x.org")), TargetNetFilter())
    assert len(disabled.endpoints()) == 1


def test_post_processor() -> None:
    e1 = ep("a.org", "A", "1.1.1.1")
    e1.provider_specific = [ProviderSpecificProperty("webhook/x", "1"), ProviderSpecificProperty("aws/w", "2"),
                            ProviderSpecificProperty("alias", "true")]
    e2 = ep("b.org", "CNAME", "x.org", ttl=30)
    out = PostProcessorSource(Static(e1, e2), min_ttl=300, provider="aws", prefer_alias=True).endpoints()
    assert [(e.dns_name, e.record_ttl) for e in out] == [("a.org", 300), ("b.org", 30)]
    assert [p.name for p in out[0].provider_specific] == ["alias", "aws/w"]
    assert out[1].get_provider_specific_property("alias") == "true"


def base_args(*extra: str) -> list[str]:
    return ["--source=manifest", f"--manifest-dir={REPO / 'examples' / 'manifests'}", "--provider=inmemory",
            "--policy=sync", *extra]


def test_pipeline_from_flags() -> None:
    _, cfg = load_config(base_args("--target-net-filter=192.0.2.0/24", "--min-ttl=2m"), environ={})
    src = build_source_pipeline(cfg)
    eps = src.endpoints()
    assert {e.dns_name for e in eps} == {"www.example.org", "shop.example.org", "checkout.example.org",
                                         "mail.example.org"}
    assert {e.record_ttl for e in eps if e.dns_name == "shop.example.org"} == {120}
    assert src.problems == []  # type: ignore[attr-defined]


def test_build_manifest_options(tmp_path: Path) -> None:
    _, cfg = load_config(base_args("--namespace=shop", "--fqdn-template={{.Name}}.example.org"), environ={})
    src = build_manifest(cfg)
    assert isinstance(src, ManifestSource)
    assert src.options.namespace == "shop" and src.options.template is not None
    with pytest.raises(ConfigError, match="--manifest-dir"):
        build_manifest(replace(cfg, sources=replace(cfg.sources, manifest_dir=str(tmp_path / "missing"))))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--annotation-prefix="], "--annotation-prefix cannot be empty"),
        (["--annotation-prefix=example.com"], "--annotation-prefix must end with '/'"),
        (["--ignore-hostname-annotation"], "FQDN Template must be set if ignoring annotations"),
        (["--label-filter=a in (b"], "--label-filter does not specify a valid label selector"),
        (["--annotation-filter=!"], "--annotation-filter does not specify a valid label selector"),
        (["--fqdn-template={{.Name | exec}}"], "--fqdn-template: template"),
        (["--ingress-class=nginx", "--annotation-filter=kubernetes.io/ingress.class=nginx"],
         "--ingress-class is mutually exclusive"),
        (["--min-ttl=-1s"], "--min-ttl must not be negative"),
        (["--exclude-target-net=10.0.0.0/33"], "--exclude-target-net: invalid CIDR"),
        (["--target-net-filter=nope"], "--target-net-filter: invalid CIDR"),
    ],
)
def test_flag_validation(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(base_args(*args), environ={})
    assert message in str(err.value)


def test_flags_from_environment() -> None:
    _, cfg = load_config(base_args(), environ={"EXTERNAL_DNS_SERVICE_TYPE_FILTER": "LoadBalancer,NodePort",
                                               "EXTERNAL_DNS_INGRESS_CLASS": "nginx",
                                               "EXTERNAL_DNS_PUBLISH_INTERNAL_SERVICES": "true"})
    src = build_manifest(cfg)
    assert isinstance(src, ManifestSource)
    assert src.options.service_type_filter == ("LoadBalancer", "NodePort")
    assert src.options.ingress_class_names == ("nginx",)
    assert src.options.publish_internal_services
