"""TXT values are open-ended input: property tests that any text becomes PowerDNS content that is one or more
quoted strings, that an unquoted value survives quoting, and (against the real server) that any batch of TXT
values is stored, read back equal to the adjusted desired endpoints, and re-synced with no change."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.pdns.records import _is_quoted, quote_txt
from tests.providers.pdns.conftest import make_provider
from tests.servers.pdns import PdnsServer

# Printable text without control characters (PowerDNS accepts those too, but sources never produce them).
TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=300)


def _unquote(content: str) -> str:
    inner = content[1:-1]
    out, i = [], 0
    while i < len(inner):
        if inner[i] == "\\" and i + 1 < len(inner):
            out.append(inner[i + 1])
            i += 2
        else:
            out.append(inner[i])
            i += 1
    return "".join(out)


@given(TEXT)
def test_quoting_gives_quoted_strings(value: str) -> None:
    quoted = quote_txt(value)
    assert _is_quoted(quoted)
    if not _is_quoted(value):
        assert _unquote(quoted) == value
    assert quote_txt(quoted) == quoted  # idempotent


@pytest.mark.integration
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(TEXT, min_size=1, max_size=60))
def test_any_txt_values_round_trip_with_no_change(pdns_server: PdnsServer, values: list[str]) -> None:
    pdns_server.reset()
    provider = make_provider(pdns_server)
    desired = [Endpoint(f"t{i}.example.org", "TXT", Targets([v])) for i, v in enumerate(values)]
    provider.apply_changes(Changes(create=desired))
    current = [e for e in provider.records() if e.record_type == "TXT"]
    adjusted = provider.adjust_endpoints(desired)
    assert {(e.dns_name, tuple(e.targets)) for e in current} == {(e.dns_name, tuple(e.targets)) for e in adjusted}
    plan = Plan(current=current, desired=adjusted, policies=["sync"], managed_records=["TXT"]).calculate()
    assert not plan.changes.has_changes()
