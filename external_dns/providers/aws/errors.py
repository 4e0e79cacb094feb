"""Turning botocore failures into provider errors: throttling, 5xx, timeouts and connection problems are
`SoftError` (the controller retries later), refused or missing credentials `AWSAuthError` (a configuration
error: the long-running process exits 1), anything else `ProviderError`. Messages carry the operation,
the AWS error code and message, never request parameters or credentials."""

from __future__ import annotations

import botocore.exceptions

from external_dns.errors import ConfigError
from external_dns.providers.provider import ProviderError, SoftError

SOFT_CODES = frozenset((
    "Throttling", "ThrottlingException", "ThrottledException", "RequestLimitExceeded", "TooManyRequestsException",
    "PriorRequestNotComplete", "ServiceUnavailable", "InternalFailure", "InternalError", "RequestTimeout",
    "ProvisionedThroughputExceededException", "RequestThrottled",
))

# The credentials are missing, wrong, expired or not allowed: retrying with the same ones cannot help.
AUTH_CODES = frozenset((
    "AccessDenied", "AccessDeniedException", "InvalidClientTokenId", "SignatureDoesNotMatch",
    "UnrecognizedClientException", "InvalidAccessKeyId", "AuthFailure", "MissingAuthenticationToken",
    "ExpiredToken", "ExpiredTokenException", "IncompleteSignature", "InvalidSignatureException",
))


class AWSAuthError(ProviderError, ConfigError):
    """AWS refused our credentials or found none."""


def error_code(exc: BaseException) -> str:
    if isinstance(exc, botocore.exceptions.ClientError):
        return str(exc.response.get("Error", {}).get("Code", ""))
    return ""


def is_soft(exc: BaseException) -> bool:
    if isinstance(exc, botocore.exceptions.ClientError):
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
        return error_code(exc) in SOFT_CODES or status >= 500
    return isinstance(exc, (botocore.exceptions.ConnectionError, botocore.exceptions.ReadTimeoutError,
                            botocore.exceptions.ConnectTimeoutError))


def describe(exc: BaseException) -> str:
    if isinstance(exc, botocore.exceptions.ClientError):
        err = exc.response.get("Error", {})
        return f"{err.get('Code', 'Error')}: {err.get('Message', '')}".rstrip(": ")
    return f"{type(exc).__name__}: {exc}"


def wrap(operation: str, exc: BaseException) -> ProviderError:
    """The provider error for `exc` raised by `operation`."""
    message = f"{operation}: {describe(exc)}"
    if is_soft(exc):
        return SoftError(message)
    if error_code(exc) in AUTH_CODES or isinstance(exc, (botocore.exceptions.NoCredentialsError,
                                                         botocore.exceptions.PartialCredentialsError)):
        return AWSAuthError(message)
    return ProviderError(message)
