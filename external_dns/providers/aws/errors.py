"""Turning botocore failures into provider errors: throttling, 5xx, timeouts and connection problems are
`SoftError` (the controller retries later), refused or missing credentials `AWSAuthError` (a configuration
error: the long-running process exits 1), anything else `ProviderError`. Messages carry the operation,
the AWS error code and message, never request parameters or credentials."""

from __future__ import annotations

import html
import re
from typing import Any

import botocore.exceptions

from external_dns.errors import ConfigError
from external_dns.providers.provider import ProviderError, SoftError

SOFT_CODES = frozenset((
    "Throttling", "ThrottlingException", "ThrottledException", "RequestLimitExceeded", "TooManyRequestsException",
    "PriorRequestNotComplete", "ServiceUnavailable", "InternalFailure", "InternalError", "RequestTimeout",
    "ProvisionedThroughputExceededException", "RequestThrottled",
))

# The credentials themselves are wrong or expired: every call fails alike, retrying cannot help.
AUTH_CODES = frozenset((
    "InvalidClientTokenId", "SignatureDoesNotMatch", "UnrecognizedClientException", "InvalidAccessKeyId",
    "AuthFailure", "MissingAuthenticationToken", "ExpiredToken", "ExpiredTokenException", "IncompleteSignature",
    "InvalidSignatureException",
))
# Valid credentials not allowed this call: an IAM policy may allow some hosted zones and not others, so this
# is fatal only for a call every zone needs (listing the hosted zones).
ACCESS_DENIED_CODES = frozenset(("AccessDenied", "AccessDeniedException"))

# An XML error document botocore could not read for the client's protocol (e.g. an IAM refusal in XML to a
# JSON-protocol client such as DynamoDB): it then gives the HTTP status as the code and the body as the message.
_XML_CODE = re.compile(r"<Code>([^<]{1,128})</Code>")
_XML_MESSAGE = re.compile(r"<Message>([^<]{0,2048})</Message>")


class AWSAuthError(ProviderError, ConfigError):
    """AWS refused our credentials or found none."""


def _error(exc: botocore.exceptions.ClientError) -> dict[str, str]:
    """The answer's error (code, message). botocore reads `<Error>` at the top of the document; an answer
    that nests it in `<Errors>` (the query protocol's shape, e.g. an IAM refusal from moto) is read there."""
    response: dict[str, Any] = dict(exc.response)
    err = response.get("Error") or {}
    nested = response.get("Errors")
    if not err.get("Code") and isinstance(nested, dict) and isinstance(nested.get("Error"), dict):
        err = nested["Error"]
    out = {str(k): str(v) for k, v in err.items()}
    if out.get("Code", "") in ("", str(_status(exc))) and "<Code>" in out.get("Message", ""):
        code, message = _XML_CODE.search(out["Message"]), _XML_MESSAGE.search(out["Message"])
        if code:
            out = {"Code": html.unescape(code.group(1)), "Message": html.unescape(message.group(1)) if message else ""}
    return out


def error_code(exc: BaseException) -> str:
    if isinstance(exc, botocore.exceptions.ClientError):
        return _error(exc).get("Code", "")
    return ""


def _status(exc: botocore.exceptions.ClientError) -> int:
    return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)


def is_soft(exc: BaseException) -> bool:
    if isinstance(exc, botocore.exceptions.ClientError):
        return error_code(exc) in SOFT_CODES or _status(exc) >= 500
    return isinstance(exc, (botocore.exceptions.ConnectionError, botocore.exceptions.ReadTimeoutError,
                            botocore.exceptions.ConnectTimeoutError))


def is_auth(exc: BaseException, every_zone: bool = False) -> bool:
    """Our credentials are missing, wrong or expired (a code saying so, or a 401/403 without a known code);
    with `every_zone` (a call every zone needs), also an access denied."""
    if isinstance(exc, botocore.exceptions.ClientError):
        code = error_code(exc)
        if code in ACCESS_DENIED_CODES:
            return every_zone
        return code in AUTH_CODES or (_status(exc) in (401, 403) and code in ("", "Forbidden", "Unauthorized"))
    return isinstance(exc, (botocore.exceptions.NoCredentialsError, botocore.exceptions.PartialCredentialsError))


def describe(exc: BaseException) -> str:
    if isinstance(exc, botocore.exceptions.ClientError):
        err = _error(exc)
        code = err.get("Code") or f"HTTP {_status(exc)}"
        return f"{code}: {err.get('Message', '')}".rstrip(": ")
    return f"{type(exc).__name__}: {exc}"


def wrap(operation: str, exc: BaseException, every_zone: bool = False) -> ProviderError:
    """The provider error for `exc` raised by `operation` (`every_zone`: a call every zone needs)."""
    message = f"{operation}: {describe(exc)}"
    if is_soft(exc):
        return SoftError(message)
    return AWSAuthError(message) if is_auth(exc, every_zone) else ProviderError(message)
