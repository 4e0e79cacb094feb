"""API requests per reconcile at 20,000 records in one zone: Cloudflare, Google Cloud DNS and Azure DNS (the
strict fakes of tests/fakes/, driven by each vendor's SDK) and Route53 (moto in a child process, requests
counted by botocore's `before-send` hook: every HTTP request, retries included).

Each zone holds N/2 A records and their N/2 ownership TXT records, written beforehand. Ours runs the pipeline
(TXT registry -> plan -> provider) with `--provider-cache-time=5m`; each row counts HTTP requests to the DNS API
(token endpoints excluded):

- full pass: a fresh process's first sync of the whole zone (zone list + every page; nothing to write);
- no-op: the next sync, within --provider-cache-time;
- event: one record's address changes, the next sync;
- event, cache 0: the same event without --provider-cache-time (as external-dns runs: every loop lists the
  zones and every record).

`pages` is the API's page count for the zone at the page size used (Cloudflare 100 per page: external-dns's
--cloudflare-dns-records-per-page default; Google 1,000; Azure 100, the API's default `$top`; Route53 300).
Azure's default limit is 10,000 record sets per zone: the fake is configured to hold the 20,000 measured here.

`.venv/bin/python -m bench cloud_api_calls`; `BENCH_CLOUD_RECORDS=2000` picks another zone size,
`BENCH_CLOUD_PROVIDERS=google,route53` some of the providers.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config

from external_dns.controller.controller import Controller
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.logging_setup import configure_logging
from external_dns.providers.aws import AWSConfig, AWSProvider
from external_dns.providers.provider import CachedProvider, Provider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.source import Source
from tests.servers.moto import start_moto_process

N = int(os.environ.get("BENCH_CLOUD_RECORDS", "20000"))
CACHE = 300.0
ZONE = "bench.example"
OWNER = "bench"
HERITAGE = f'"heritage=external-dns,external-dns/owner={OWNER},external-dns/resource=service/default/web"'


class Desired(Source):
    def __init__(self, n: int) -> None:
        self.items = [Endpoint(f"h{i:05d}.{ZONE}", "A", Targets([_ip(i)]), 300,
                               labels={"resource": "service/default/web"}) for i in range(n)]

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for e in self.items]


def _ip(i: int) -> str:
    return f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"


def _controller(provider: Provider, source: Source) -> Controller:
    return Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync",
                      domain_filter=provider.get_domain_filter())


def measure(make: Callable[[float], Provider], count: Callable[[], int], n: int) -> dict[str, int]:
    """Requests of: a full pass, a no-op, an event (kept zones), an event with cache 0."""
    source = Desired(n // 2)
    out: dict[str, int] = {}

    def run(controller: Controller, key: str, changes: bool, before: int | None = None) -> None:
        before = count() if before is None else before
        result = controller.run_once()
        if result.changes.has_changes() != changes:
            raise RuntimeError(f"{key}: unexpected plan {result.changes}")
        out[key] = count() - before

    start = count()
    kept = _controller(make(CACHE), source)  # building it lists the zones (the provider's domain filter)
    run(kept, "full", False, before=start)
    run(kept, "noop", False)
    source.items[7].targets = Targets(["192.0.2.77"])
    run(kept, "event", True)
    uncached = _controller(make(0.0), source)
    uncached.run_once()  # its first read
    source.items[7].targets = Targets(["192.0.2.78"])
    run(uncached, "event_nocache", True)
    return out


# -- the vendors --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def cloudflare(n: int) -> Iterator[tuple[Callable[[float], Provider], Callable[[], int], int]]:
    from external_dns.providers.cloudflare import CloudflareConfig, CloudflareProvider, Credentials
    from tests.fakes.cloudflare import CloudflareFake

    with CloudflareFake() as fake:
        os.environ["CLOUDFLARE_BASE_URL"] = fake.url + "/client/v4"
        fake.add_zone(ZONE)
        for i in range(n // 2):
            fake.add_record(ZONE, f"h{i:05d}.{ZONE}", "A", _ip(i), ttl=300)
            fake.add_record(ZONE, f"a-h{i:05d}.{ZONE}", "TXT", HERITAGE)

        def make(cache: float) -> Provider:
            return CloudflareProvider(CloudflareConfig(credentials=Credentials(api_token=fake.token),
                                                       cache_seconds=cache))
        yield make, lambda: len(fake.calls), 100


@contextlib.contextmanager
def google(n: int) -> Iterator[tuple[Callable[[float], Provider], Callable[[], int], int]]:
    from external_dns.providers.google import GoogleConfig, GoogleProvider
    from tests.fakes.google import GoogleDNSFake
    from tests.providers.google.conftest import SA_EMAIL, SA_KEY, write_key_file

    with GoogleDNSFake() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.register_service_account(SA_EMAIL, SA_KEY.public_key())
        os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = str(write_key_file(Path(tmp) / "sa.json", fake.url + "/token"))
        fake.add_zone("bench", ZONE)
        for i in range(n // 2):
            fake.add_rrset("bench", f"h{i:05d}.{ZONE}.", "A", 300, _ip(i))
            fake.add_rrset("bench", f"a-h{i:05d}.{ZONE}.", "TXT", 300, HERITAGE)

        def make(cache: float) -> Provider:
            return GoogleProvider(GoogleConfig(api_endpoint=fake.url + "/", cache_seconds=cache,
                                               batch_change_interval=0.0))
        yield make, lambda: fake.count(contains="/dns/"), 1000


@contextlib.contextmanager
def azure(n: int) -> Iterator[tuple[Callable[[float], Provider], Callable[[], int], int]]:
    from external_dns.providers.azure import AzureConfig, AzureFile, AzureProvider
    from tests.fakes.azure import AzureDNSFake, config_file

    with tempfile.TemporaryDirectory() as tmp, AzureDNSFake(Path(tmp) / "certs", max_record_sets=n + 10) as fake:
        os.environ["REQUESTS_CA_BUNDLE"] = fake.ca_file
        fake.add_zone(ZONE)
        for i in range(n // 2):
            fake.add_record_set(ZONE, f"h{i:05d}", "A", 300, [{"ipv4Address": _ip(i)}])
            fake.add_record_set(ZONE, f"a-h{i:05d}", "TXT", 300, [{"value": [HERITAGE]}])
        path = config_file(Path(tmp) / "azure.json", fake)

        def make(cache: float) -> Provider:
            return AzureProvider(AzureConfig(file=AzureFile.read(str(path)), cache_seconds=cache))
        yield make, lambda: fake.count(contains="/subscriptions/"), 100


@contextlib.contextmanager
def route53(n: int) -> Iterator[tuple[Callable[[float], Provider], Callable[[], int], int]]:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
           "AWS_DEFAULT_REGION": "us-east-1"}
    os.environ.update({k: env[k] for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")})
    with start_moto_process(env=env) as url:
        r53 = boto3.client("route53", endpoint_url=url, config=botocore.config.Config(read_timeout=300))
        zone_id = r53.create_hosted_zone(Name=ZONE, CallerReference=f"bench-{time.time_ns()}")["HostedZone"]["Id"]
        changes: list[Any] = []
        for i in range(n // 2):
            for name, rtype, value in ((f"h{i:05d}.{ZONE}", "A", _ip(i)), (f"a-h{i:05d}.{ZONE}", "TXT", HERITAGE)):
                changes.append({"Action": "UPSERT", "ResourceRecordSet": {  # idempotent: a retried batch is fine
                    "Name": name, "Type": rtype, "TTL": 300, "ResourceRecords": [{"Value": value}]}})
        for start in range(0, len(changes), 500):  # an UPSERT counts twice against the 1,000-record limit
            r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": changes[start:start + 500]})
        sent = [0]

        def make(cache: float) -> Provider:
            provider = AWSProvider(AWSConfig(endpoint_url=url, batch_change_interval=0.0,
                                             zones_cache_duration=cache, domain_filter=DomainFilter(include=[ZONE])))
            provider.clients[""].meta.events.register("before-send.route53", lambda **_: sent.__setitem__(0, sent[0] + 1))
            return CachedProvider(provider, cache) if cache > 0 else provider
        yield make, lambda: sent[0], 300


VENDORS: dict[str, Callable[[int], contextlib.AbstractContextManager[tuple[Callable[[float], Provider],
                                                                           Callable[[], int], int]]]] = {
    "cloudflare": cloudflare, "google": google, "azure": azure, "route53 (moto)": route53}


def main() -> None:
    configure_logging("error", "text")
    print(f"API requests per reconcile, one zone of {N:,} records ({N // 2:,} A + their ownership TXT); "
          f"--provider-cache-time={int(CACHE)}s\n")
    print("| provider | pages (page size) | full pass | no-op | event | event, cache 0 (Go's loop) | full pass time |")
    print("|---|---|---|---|---|---|---|")
    wanted = [w for w in os.environ.get("BENCH_CLOUD_PROVIDERS", "").split(",") if w]
    for name, vendor in VENDORS.items():
        if wanted and not any(name.startswith(w) for w in wanted):
            continue
        with vendor(N) as (make, count, page):
            started = time.perf_counter()
            figures = measure(make, count, N)
            took = time.perf_counter() - started
            pages = math.ceil(N / page)
            print(f"| {name} | {pages} ({page}) | {figures['full']} | {figures['noop']} | {figures['event']} | "
                  f"{figures['event_nocache']} | {took:.1f} s (all four runs) |", flush=True)


if __name__ == "__main__":
    main()
