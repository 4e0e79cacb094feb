"""The DNSRecord package's exports (controller/dnsrecord/__init__.py): each name from its module on first use, so
reading the flag defaults does not import the Kubernetes client, and an unknown name an AttributeError."""

from __future__ import annotations

import subprocess
import sys

import pytest

from external_dns.controller import dnsrecord
from external_dns.controller.dnsrecord import types


def test_exports_resolve_to_their_modules() -> None:
    assert dnsrecord.FINALIZER == types.FINALIZER and dnsrecord.validate is types.validate
    assert dnsrecord.Reconciler.__module__ == "external_dns.controller.dnsrecord.reconcile"
    assert set(dnsrecord.__all__) >= {"DNSRecordController", "Options", "StatusWriter", "validate"}
    for name in dnsrecord.__all__:
        assert getattr(dnsrecord, name) is not None


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        dnsrecord.Nope  # noqa: B018


def test_importing_the_package_imports_no_kubernetes_client() -> None:
    code = ("import sys, external_dns.controller.dnsrecord as d; "
            "print('kubernetes' in sys.modules, 'external_dns.controller.dnsrecord.controller' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "False"]
