"""cmd/build_providers.py: the providers' configs as the flags describe them (rfc2136 with --tls-*, webhook,
PowerDNS with a key's stray line break dropped, Azure from azure.json with the --azure-* overrides), and the
local providers built from flags alone (inmemory zones, a zonefile zone created on first use)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from external_dns.cmd.build_providers import (
    azure_config,
    build_inmemory,
    build_zonefile,
    pdns_config,
    rfc2136_config,
    webhook_config,
)
from external_dns.cmd.config import load_config, parse_config
from external_dns.errors import ConfigError

SOURCE = ["--source=manifest", "--manifest-dir=/nonexistent", "--policy=sync"]


def test_rfc2136_config_from_flags() -> None:
    _parser, cfg = load_config([*SOURCE, "--provider=rfc2136", "--rfc2136-host=127.0.0.1", "--rfc2136-port=5353",
                                "--rfc2136-zone=example.org", "--rfc2136-tsig-keyname=k",
                                "--rfc2136-tsig-secret=c2VjcmV0", "--rfc2136-min-ttl=1m30s", "--rfc2136-axfr",
                                "--tls-ca=/etc/ca.pem"], environ={})
    config = rfc2136_config(cfg)
    assert list(config.hosts) == ["127.0.0.1"] and config.port == 5353 and list(config.zones) == ["example.org"]
    assert (config.tsig_keyname, config.tsig_secret, config.tsig_secret_alg) == ("k", "c2VjcmV0", "hmac-sha256")
    assert config.min_ttl == 90 and isinstance(config.min_ttl, int) and config.axfr is True
    assert config.tls_ca == "/etc/ca.pem"


def test_webhook_config_from_flags() -> None:
    _parser, cfg = load_config([*SOURCE, "--provider=webhook", "--webhook-provider-url=http://127.0.0.1:8888",
                                "--webhook-provider-read-timeout=2s", "--webhook-provider-max-body-size=1024"],
                               environ={})
    config = webhook_config(cfg)
    assert (config.url, config.read_timeout, config.write_timeout) == ("http://127.0.0.1:8888", 2.0, 10.0)
    assert config.max_body_size == 1024


def test_pdns_config_drops_white_space_around_the_key() -> None:
    cfg = parse_config([*SOURCE, "--provider=pdns", "--pdns-server= http://127.0.0.1:8081 ",
                        "--domain-filter=example.org"], {"EXTERNAL_DNS_PDNS_API_KEY": "secret\n"})
    config = pdns_config(cfg)
    assert config.server == "http://127.0.0.1:8081" and config.api_key == "secret"
    assert config.domain_filter.match("www.example.org") and not config.domain_filter.match("www.example.net")


def test_azure_config_reads_the_file_and_applies_the_overrides(tmp_path: Path) -> None:
    path = tmp_path / "azure.json"
    path.write_text(json.dumps({"tenantId": "t", "subscriptionId": "file-sub", "resourceGroup": "file-rg",
                                "aadClientId": "c", "aadClientSecret": "s"}))
    cfg = parse_config([*SOURCE, "--provider=azure", f"--azure-config-file={path}", "--azure-resource-group=rg",
                        "--azure-maxretries-count=-1", "--zone-name-filter=example.org"], {})
    config = azure_config(cfg)
    assert config.file.tenant_id == "t" and config.file.client_secret == "s"
    assert config.subscription_id == "file-sub" and config.file.resource_group == "rg"  # the flag wins
    assert config.max_retries == 0  # below 0 disables retries, as external-dns
    assert config.zones_cache_seconds == 60.0  # --azure-zones-cache-duration=0: the 60 s default
    assert config.zone_name_filter.match("example.org") and not config.zone_name_filter.match("example.net")


def test_azure_config_without_its_file_is_a_config_error(tmp_path: Path) -> None:
    cfg = parse_config([*SOURCE, "--provider=azure", f"--azure-config-file={tmp_path / 'missing.json'}"], {})
    with pytest.raises(ConfigError, match="failed to read Azure config file"):
        azure_config(cfg)


def test_inmemory_zones_from_flags() -> None:
    cfg = parse_config([*SOURCE, "--provider=inmemory", "--inmemory-zone=a.test,b.test"], {})
    assert sorted(build_inmemory(cfg).zones()) == ["a.test", "b.test"]


def test_zonefile_provider_creates_its_zone(tmp_path: Path) -> None:
    _parser, cfg = load_config([*SOURCE, "--provider=zonefile", f"--zonefile-dir={tmp_path}",
                                "--zonefile-create-zone=example.org"], environ={})
    provider = build_zonefile(cfg)
    assert list(provider.zones()) == ["example.org"]


def test_zonefile_provider_needs_its_directory() -> None:
    cfg = parse_config([*SOURCE, "--provider=zonefile"], {})
    with pytest.raises(ConfigError, match="--zonefile-dir must be set"):
        build_zonefile(cfg)
