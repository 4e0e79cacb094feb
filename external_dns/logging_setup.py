"""Logging set-up for every command: structlog to stderr, `--log-format` text (logfmt like external-dns's logrus:
`time="..." level=info msg="..." key=value`) or json (`{"level", "msg", "time", ...}`), `--log-level`.

Standard-library logging (kubernetes client, boto3, urllib3) goes to stderr at the same level, so nothing
is printed to stdout by the controller.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

LEVELS: dict[str, int] = {
    "panic": logging.CRITICAL,
    "fatal": logging.CRITICAL,
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
    "trace": logging.DEBUG,
}
_BARE = re.compile(r"^[A-Za-z0-9_.:/@^+\-]+$")


def _quote(value: Any) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict | list | tuple):
        text = repr(value)  # single quotes inside: no escaping noise in the double-quoted logfmt value
    else:
        text = json.dumps(value, default=str)
    if text and _BARE.match(text):
        return text
    return json.dumps(text)


def logfmt_renderer(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> str:
    """`time="..." level=info msg="..." k=v ...` (extra keys sorted)."""
    ts = event_dict.pop("timestamp", "")
    level = event_dict.pop("level", "info")
    msg = event_dict.pop("event", "")
    parts = [f'time="{ts}"', f"level={level}", f"msg={json.dumps(str(msg))}"]
    exc = event_dict.pop("exception", None)
    parts.extend(f"{key}={_quote(event_dict[key])}" for key in sorted(event_dict))
    line = " ".join(parts)
    if exc:
        line += "\n" + str(exc)
    return line


def _rename_for_json(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    event_dict["msg"] = event_dict.pop("event", "")
    if "timestamp" in event_dict:
        event_dict["time"] = event_dict.pop("timestamp")
    return event_dict


def configure_logging(level: str = "info", fmt: str = "text", stream: TextIO | None = None) -> None:
    """Configure structlog (and stdlib logging) for the process; `level` is a `--log-level` value."""
    if level not in LEVELS:
        raise ValueError(f"--log-level: unknown level {level!r} (one of: {', '.join(LEVELS)})")
    if fmt not in ("text", "json"):
        raise ValueError(f"unsupported log format: {fmt}")
    out = stream if stream is not None else sys.stderr
    numeric = LEVELS[level]
    renderer: Any
    if fmt == "json":
        renderer = [_rename_for_json, structlog.processors.JSONRenderer(default=str, sort_keys=True)]
    else:
        renderer = [logfmt_renderer]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            *renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(stream=out, level=numeric, force=True,
                        format="time=\"%(asctime)s\" level=%(levelname)s logger=%(name)s msg=%(message)r")
