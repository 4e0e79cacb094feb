"""The external-dns container's rendered args and env, parsed by the real CLI parser and validation
(`external_dns.cmd.config.load_config`). Secret references are replaced by well-formed placeholder values, as
the kubelet would inject them."""

from __future__ import annotations

from typing import Any

from external_dns.cmd.config import Config, load_config
from tests.charts.render import containers

# What a Secret would hold for each variable the chart takes from one.
SECRET_PLACEHOLDERS = {
    "EXTERNAL_DNS_RFC2136_TSIG_SECRET": "c2VjcmV0LXNlY3JldC1zZWNyZXQ=",
    "EXTERNAL_DNS_TXT_ENCRYPT_AES_KEY": "0123456789abcdef0123456789abcdef",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "example-secret",
    "EXTERNAL_DNS_PDNS_API_KEY": "pdns-api-key",
    "CF_API_TOKEN": "cf-api-token",
    "CF_API_KEY": "cf-api-key",
}


def container_environ(container: dict[str, Any]) -> dict[str, str]:
    environ: dict[str, str] = {}
    for var in container.get("env", []):
        if "value" in var:
            environ[var["name"]] = str(var["value"])
        else:
            assert "secretKeyRef" in var["valueFrom"], var
            environ[var["name"]] = SECRET_PLACEHOLDERS[var["name"]]
    return environ


def parse_main(objects: list[dict[str, Any]]) -> Config:
    main = containers(objects)["external-dns"]
    assert "command" not in main, "the image's entrypoint (external-dns) must run"
    assert all(isinstance(a, str) for a in main["args"])
    _parser, cfg = load_config(main["args"], container_environ(main))
    return cfg


def provider_name(values: dict[str, Any]) -> str:
    """The provider a values file asks for: upstream's `provider: aws` or `provider: {name: aws}`."""
    provider = values.get("provider", "aws")
    return str(provider.get("name", "aws") if isinstance(provider, dict) else provider)
