"""controller/outcomes.py: which failed reconciles end the long-running process (refused credentials and
other configuration errors, unless a soft error is in the chain), and the outcome history."""

from __future__ import annotations

import threading

from external_dns.controller.controller import RunOnceError
from external_dns.controller.outcomes import OutcomeLog, is_fatal_error
from external_dns.errors import ConfigError
from external_dns.providers.pdns import PDNSAuthError
from external_dns.providers.provider import ProviderError, SoftError
from external_dns.providers.rfc2136.transport import TsigKeyRejected, TsigRejected


def wrapped(exc: BaseException) -> BaseException:
    """`exc` as the pipeline re-raises it (RunOnceError from exc)."""
    try:
        raise RunOnceError("records", exc) from exc
    except RunOnceError as outer:
        return outer


def test_refused_credentials_are_fatal_through_the_pipeline_wrapper() -> None:
    assert is_fatal_error(PDNSAuthError("PowerDNS at http://x refused the API key (HTTP 401 Unauthorized)"))
    assert is_fatal_error(wrapped(PDNSAuthError("refused")))
    assert is_fatal_error(wrapped(ConfigError("--rfc2136-zone: invalid zone name")))
    assert is_fatal_error(wrapped(TsigKeyRejected("RFC2136 server 127.0.0.1:53 rejected TSIG key 'k' (BadSignature)")))


def test_soft_and_other_errors_are_retried() -> None:
    assert not is_fatal_error(SoftError("HTTP 503"))
    assert not is_fatal_error(wrapped(ProviderError("PowerDNS refused 1 change(s)")))
    assert not is_fatal_error(wrapped(OSError("connection refused")))
    assert not is_fatal_error(ValueError("bad manifest"))
    # zone-scoped: the server is not authoritative for one zone, or the key may not update it
    assert not is_fatal_error(wrapped(TsigRejected("RFC2136 server 127.0.0.1:53 answered NOTAUTH for zone a.test")))


def test_a_soft_error_anywhere_in_the_chain_wins() -> None:
    try:
        try:
            raise ConfigError("refused")
        except ConfigError as inner:
            raise SoftError("timed out while reporting") from inner
    except SoftError as exc:
        assert not is_fatal_error(exc)


def test_a_cause_cycle_ends() -> None:
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a
    assert not is_fatal_error(a)


def test_outcome_log_keeps_the_last_and_wakes_waiters() -> None:
    log: OutcomeLog[int] = OutcomeLog(maxlen=2)

    def fill() -> None:
        for i in range(3):
            log.append(i)

    threading.Timer(0.05, fill).start()
    assert log.wait_until(lambda: log.total == 3, 5)
    assert log.items() == [1, 2] and log.items(lambda i: i > 1) == [2]
    assert not log.wait_until(lambda: log.total == 4, 0.05)

