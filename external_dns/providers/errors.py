"""The errors a provider raises (the Provider interface is `provider.py`, which re-exports the first two).

- `ProviderError`: a failure that is not transient; `SoftError`: a transient one, retried with backoff
  (external-dns `provider.SoftError`).
- `ChangeError` and its kinds: a batch of changes refused because it does not fit the records held, worded
  as external-dns's in-memory provider words them (`record already exists`, `record not found`, `invalid
  batch request`), so every provider that checks a batch before writing it says the same thing.
"""

from __future__ import annotations


class ProviderError(Exception):
    """A provider failure that is not transient (bad credentials, a refused record, ...)."""


class SoftError(ProviderError):
    """A transient provider failure (throttling, timeout, 5xx): the controller retries with backoff and
    never exits for it (external-dns `provider.SoftError`)."""


class ChangeError(ProviderError):
    """A refused change; `str()` starts with external-dns's message for the kind, then the detail."""

    message = ""

    def __init__(self, detail: str = "") -> None:
        super().__init__(f"{self.message}: {detail}" if detail else self.message)
        self.detail = detail


class RecordAlreadyExistsError(ChangeError):
    """A create of a record set the zone already holds."""

    message = "record already exists"


class RecordNotFoundError(ChangeError):
    """An update or delete of a record set the zone does not hold (or holds with other values)."""

    message = "record not found"


class InvalidBatchRequestError(ChangeError):
    """One record set changed more than once in a batch."""

    message = "invalid batch request"
