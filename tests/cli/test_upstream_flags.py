"""Upstream flags added for parity reach the program: --version, --prefer-alias, --fqdn-template given several
times, --create-ptr's start-up check, --nat64-networks' check."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from external_dns import __version__
from external_dns.cmd.build_sources import build_source_pipeline
from external_dns.cmd.config import load_config
from external_dns.endpoint.endpoint import PROVIDER_SPECIFIC_ALIAS
from external_dns.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
BASE = ["--provider=inmemory", "--policy=sync"]

SERVICES = textwrap.dedent("""\
    apiVersion: v1
    kind: Service
    metadata:
      name: web
      namespace: shop
    spec:
      type: LoadBalancer
    status:
      loadBalancer:
        ingress:
          - hostname: lb.example.net
    """)


def _pipeline(tmp_path: Path, *flags: str) -> dict[tuple[str, str], dict[str, str]]:
    (tmp_path / "svc.yaml").write_text(SERVICES)
    _, cfg = load_config(["--source=manifest", f"--manifest-dir={tmp_path}", *BASE, *flags], {})
    eps = build_source_pipeline(cfg).endpoints()
    return {(e.dns_name, e.record_type): {p.name: p.value for p in e.provider_specific} for e in eps}


def test_version_prints_and_exits_zero() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")} | {"PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "external_dns", "--version"], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=60, check=False)
    assert (run.returncode, run.stdout.strip()) == (0, __version__), run.stderr


def test_fqdn_template_given_twice_keeps_both(tmp_path: Path) -> None:
    got = _pipeline(tmp_path, "--fqdn-template={{.Name}}.{{.Namespace}}.example.org",
                    "--fqdn-template={{.Name}}.example.net,{{.Name}}.example.com")
    assert {name for name, _ in got} == {"web.shop.example.org", "web.example.net", "web.example.com"}


def test_prefer_alias_marks_cnames(tmp_path: Path) -> None:
    template = "--fqdn-template={{.Name}}.example.org"
    assert _pipeline(tmp_path, template, "--prefer-alias")[("web.example.org", "CNAME")] == \
        {PROVIDER_SPECIFIC_ALIAS: "true"}
    assert _pipeline(tmp_path, template)[("web.example.org", "CNAME")] == {}


@pytest.mark.parametrize(("flags", "message"), [
    (["--create-ptr"], "--create-ptr requires PTR in --managed-record-types"),
    (["--nat64-networks=64:ff9b::/64"], "must be an IPv6 /96 network"),
    (["--nat64-networks=10.0.0.0/8"], "must be an IPv6 /96 network"),
    (["--nat64-networks=nope"], "invalid CIDR"),
    (["--webhook-provider-idle-timeout=-1s"], "must not be negative"),
])
def test_start_up_checks(flags: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(["--source=service", *BASE, *flags], {})


def test_create_ptr_with_ptr_managed_and_the_deprecated_alias() -> None:
    _, cfg = load_config(["--source=service", *BASE, "--rfc2136-create-ptr", "--managed-record-types=A,PTR"], {})
    assert cfg.filters.create_ptr is True
