"""The errors a provider raises (providers/errors.py): a batch refusal worded as external-dns's in-memory provider
words it, with the detail after it, and which failures are retried (SoftError) and which are not."""

from __future__ import annotations

import pytest

from external_dns.providers import provider
from external_dns.providers.errors import (
    ChangeError,
    InvalidBatchRequestError,
    ProviderError,
    RecordAlreadyExistsError,
    RecordNotFoundError,
    SoftError,
)


def test_error_strings_match_external_dns() -> None:
    assert str(RecordAlreadyExistsError()) == "record already exists"
    assert str(RecordNotFoundError()) == "record not found"
    assert str(InvalidBatchRequestError()) == "invalid batch request"
    assert str(RecordNotFoundError("foo.org A")) == "record not found: foo.org A"


@pytest.mark.parametrize("kind", [RecordAlreadyExistsError, RecordNotFoundError, InvalidBatchRequestError])
def test_a_change_error_keeps_its_detail_and_is_not_retried(kind: type[ChangeError]) -> None:
    err = kind("www.example.org A")
    assert err.detail == "www.example.org A" and kind().detail == ""
    assert isinstance(err, ProviderError) and not isinstance(err, SoftError)


def test_soft_errors_are_provider_errors_and_provider_py_re_exports_both() -> None:
    assert issubclass(SoftError, ProviderError)
    assert provider.ProviderError is ProviderError and provider.SoftError is SoftError
