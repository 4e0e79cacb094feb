"""Property: whatever a source asks of the Cloudflare, Google and Azure providers (names in any case, IPv6 in any
spelling, host targets with or without the trailing dot, TXT values with spaces and quotes, TTLs or none, several
targets), what they write reads back as what they were asked: a second sync by a fresh process plans nothing
(the perpetual-update loops external-dns users report come from that asymmetry), and a sync with nothing desired
removes everything written and nothing else. Driven through the SDKs against the fakes; a bounded number of
examples (`HYPOTHESIS_MAX_EXAMPLES`, default 8 per provider), derandomized in CI."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.azure import AzureConfig, AzureFile, AzureProvider
from external_dns.providers.cloudflare import CloudflareConfig, CloudflareProvider, Credentials
from external_dns.providers.google import GoogleConfig, GoogleProvider
from external_dns.providers.provider import Provider
from tests.fakes.azure import AzureDNSFake, config_file
from tests.fakes.cloudflare import CloudflareFake
from tests.fakes.google import GoogleDNSFake
from tests.providers.cloudsync import ep, sync
from tests.providers.google.conftest import SA_EMAIL, SA_KEY, write_key_file

pytestmark = pytest.mark.integration
EXAMPLES = int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "8"))
CI = os.environ.get("CI") == "true"
ZONE = "example.org"

label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
names = st.builds(lambda ls, upper: (".".join(ls) + "." + ZONE).upper() if upper else ".".join(ls) + "." + ZONE,
                  st.lists(label, min_size=1, max_size=2, unique=True), st.booleans())
hosts = st.builds(lambda ls, dot: ".".join(ls) + ".example.net" + dot, st.lists(label, min_size=1, max_size=2),
                  st.sampled_from(["", "."]))
ipv6 = st.ip_addresses(v=6).map(lambda a: st.sampled_from([str(a), a.exploded, str(a).upper()]))
txt = st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="\\"), min_size=1, max_size=60)
ttls = st.sampled_from([0, 60, 300, 3600])


@st.composite
def endpoint(draw: st.DrawFn, types: tuple[str, ...]) -> Endpoint:
    rtype = draw(st.sampled_from(types))
    count = 1 if rtype == "CNAME" else draw(st.integers(1, 3))
    values: list[str] = []
    while len(values) < count:
        if rtype == "A":
            value = str(draw(st.ip_addresses(v=4)))
        elif rtype == "AAAA":
            value = draw(draw(ipv6))
        elif rtype == "TXT":
            value = draw(txt)
        elif rtype == "MX":
            value = f"{draw(st.integers(0, 100))} {draw(hosts)}"
        else:
            value = draw(hosts)
        key = str(ipaddress.ip_address(value)) if rtype in ("A", "AAAA") else value.lower().rstrip(".")
        if key not in {str(ipaddress.ip_address(v)) if rtype in ("A", "AAAA") else v.lower().rstrip(".")
                       for v in values}:
            values.append(value)
    return ep(draw(names), rtype, *values, ttl=draw(ttls))


def batches(types: tuple[str, ...]) -> st.SearchStrategy[list[Endpoint]]:
    # one endpoint per name (a CNAME shares its name with nothing), distinct names
    return st.lists(endpoint(types), min_size=1, max_size=5,
                    unique_by=lambda e: e.dns_name.lower())


def roundtrip(make: Callable[[], Provider], desired: list[Endpoint], zone_state: Callable[[], Any]) -> None:
    before = zone_state()
    sync(make(), desired)
    second = sync(make(), desired)
    assert not second.has_changes(), f"re-sync planned {second}"
    sync(make(), [])
    assert zone_state() == before


SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=CI,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def cf() -> Iterator[CloudflareFake]:
    with CloudflareFake(token="t") as fake:
        fake.add_zone(ZONE)
        fake.add_record(ZONE, "hand.example.org", "TXT", "hand-made")
        yield fake


@SETTINGS
@given(desired=batches(("A", "AAAA", "CNAME", "TXT", "MX")))
def test_cloudflare_reads_back_what_it_writes(cf: CloudflareFake, desired: list[Endpoint],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDFLARE_BASE_URL", cf.url + "/client/v4")
    roundtrip(lambda: CloudflareProvider(CloudflareConfig(credentials=Credentials(api_token="t"))), desired,
              lambda: cf.values(ZONE))


@pytest.fixture(scope="module")
def google(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GoogleDNSFake, Path]]:
    with GoogleDNSFake() as fake:
        fake.register_service_account(SA_EMAIL, SA_KEY.public_key())
        fake.add_zone("org", ZONE)
        fake.add_rrset("org", "hand.example.org.", "TXT", 300, '"hand-made"')
        yield fake, write_key_file(tmp_path_factory.mktemp("gcp") / "sa.json", fake.url + "/token")


@SETTINGS
@given(desired=batches(("A", "AAAA", "CNAME", "TXT", "MX", "NS")))
def test_google_reads_back_what_it_writes(google: tuple[GoogleDNSFake, Path], desired: list[Endpoint],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fake, key = google
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key))
    roundtrip(lambda: GoogleProvider(GoogleConfig(api_endpoint=fake.url + "/", batch_change_interval=0.0)), desired,
              lambda: fake.rrsets("org"))


@pytest.fixture(scope="module")
def azure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AzureDNSFake, Path]]:
    tmp = tmp_path_factory.mktemp("azure")
    with AzureDNSFake(tmp / "certs") as fake:
        fake.add_zone(ZONE)
        fake.add_record_set(ZONE, "hand", "TXT", 300, [{"value": ["hand-made"]}])
        yield fake, config_file(tmp / "azure.json", fake)


@SETTINGS
@given(desired=batches(("A", "AAAA", "CNAME", "TXT", "MX", "NS")))
def test_azure_reads_back_what_it_writes(azure: tuple[AzureDNSFake, Path], desired: list[Endpoint],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    fake, path = azure
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", fake.ca_file)
    roundtrip(lambda: AzureProvider(AzureConfig(file=AzureFile.read(str(path)), max_retries=0)), desired,
              lambda: fake.values(ZONE))
