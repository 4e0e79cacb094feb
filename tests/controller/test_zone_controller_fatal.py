"""ZoneController.on_fatal: a failure no retry can fix (a refused credential) goes to the handler instead of
the retry log line, from a zone's reconcile and from the zone listing; other failures never reach it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from structlog.testing import capture_logs

from external_dns.errors import ConfigError
from external_dns.plan.changes import Changes
from external_dns.providers.provider import ProviderError, SoftError
from tests.controller.test_zone_controller import TWO_ZONES, ep, make
from tests.helpers.threads import thread_leak_check


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check()


class Refused(ProviderError, ConfigError):
    """As PDNSAuthError / TsigRejected: the provider refused our credentials."""


@pytest.mark.parametrize("error, fatal", [(Refused("refused the API key (HTTP 401)"), True),
                                          (SoftError("HTTP 503"), False),
                                          (ProviderError("refused 1 change(s)"), False)])
def test_only_refused_credentials_reach_on_fatal(error: Exception, fatal: bool) -> None:
    zc, _, provider = make(TWO_ZONES, [ep("www.a.test", "A", "10.0.0.1")])
    seen: list[tuple[str, BaseException]] = []
    zc.on_fatal = lambda zone, exc: seen.append((zone, exc))

    def refuse(_zone: str, _changes: Changes) -> None:
        raise error

    provider.hook = refuse
    with capture_logs() as logs:
        assert zc.reconcile("a.test") is False
    assert [zone for zone, _ in seen] == (["a.test"] if fatal else [])
    retry_lines = [e for e in logs if str(e["event"]).startswith("Failed to do run once")]
    assert len(retry_lines) == (0 if fatal else 1)  # the handler logs the fatal line itself


def test_a_refused_zone_listing_reaches_on_fatal() -> None:
    zc, _, provider = make(TWO_ZONES, [])
    seen: list[str] = []
    zc.on_fatal = lambda zone, exc: seen.append(zone)

    def refuse() -> list[str]:
        raise Refused("refused while listing zones")

    provider.zones = refuse  # type: ignore[method-assign]
    with capture_logs() as logs:
        assert zc.zone_keys() == [""]
    assert seen == [""] and not [e for e in logs if "cannot list" in str(e["event"])]


def test_without_a_handler_a_refusal_is_retried_as_before() -> None:
    zc, _, provider = make(TWO_ZONES, [ep("www.a.test", "A", "10.0.0.1")])

    def refuse(_zone: str, _changes: Changes) -> None:
        raise Refused("refused")

    provider.hook = refuse
    with capture_logs() as logs:
        assert zc.reconcile("a.test") is False
    assert zc.failures("a.test") == 1
    assert [e["log_level"] for e in logs if str(e["event"]).startswith("Failed to do run once")] == ["error"]
