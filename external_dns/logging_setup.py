"""Logging set-up for every command: structlog to stderr, `--log-format` text (logfmt like external-dns's logrus:
`time="..." level=info msg="..." key=value`) or json (`{"level", "msg", "time", ...}`), `--log-level`.

Standard-library logging (kubernetes client, boto3, urllib3) goes to stderr at the same level, so nothing
is printed to stdout by the controller.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Mapping, MutableMapping
from datetime import datetime
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
_BARE = re.compile(r"^[A-Za-z0-9\-._/@^+]*$")  # logrus's needsQuoting: anything else is quoted


def go_value(value: Any) -> str:
    """A log value as logrus prints it (fmt's %v): strings as they are, `true`/`false`, `<nil>`, lists
    `[a b]`, maps `map[k:v]` (sorted keys), errors by their message; never a Python repr."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "<nil>"
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{go_value(k)}:{go_value(value[k])}" for k in sorted(value, key=str)) + "]"
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return "[" + " ".join(go_value(v) for v in items) + "]"
    return str(value)


def rfc3339(timestamp: float | None = None) -> str:
    """A log line's time as logrus's default formatters write it: RFC 3339 in seconds, local time with its
    offset, `Z` for UTC (a pod's usual zone): `2024-05-01T12:00:00Z`."""
    now = datetime.now() if timestamp is None else datetime.fromtimestamp(timestamp)
    text = now.astimezone().isoformat(timespec="seconds")
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _level_name(level: str) -> str:
    """A level as logrus names it: logrus has no `critical`; its highest levels that log are fatal and panic."""
    level = level.lower()
    return "fatal" if level == "critical" else level


def _logrus_level(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    event_dict["level"] = _level_name(event_dict.get("level", "info"))
    return event_dict


def _add_time(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    event_dict["timestamp"] = rfc3339()
    return event_dict


def _quote(value: Any) -> str:
    """logrus's text value: bare when it only has safe characters, else a Go-quoted string whose
    non-ASCII characters are kept as they are (Go's %q escapes only unprintable ones)."""
    text = go_value(value)
    if _BARE.match(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def logfmt_renderer(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> str:
    """`time="..." level=info msg="..." k=v ...` (extra keys sorted)."""
    ts = event_dict.pop("timestamp", "")
    level = event_dict.pop("level", "info")
    msg = event_dict.pop("event", "")
    parts = [f'time="{ts}"', f"level={level}", f"msg={_quote(str(msg))}"]
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


def silence_stream(stream: TextIO) -> bool:
    """Point `stream`'s file descriptor at /dev/null (its reader is gone: EPIPE); False when it has none."""
    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):
        return False
    try:
        os.dup2(devnull, fd)
    except OSError:
        return False
    finally:
        os.close(devnull)
    return True


def print_line(text: str, stream: TextIO | None = None) -> None:
    """`print(text, file=stream, flush=True)` (stdout by default) that never raises: a line nobody can read
    any more (EPIPE: the stream is then pointed at /dev/null) or a closed stream is dropped."""
    out = sys.stdout if stream is None else stream
    try:
        print(text, file=out, flush=True)
    except BrokenPipeError:
        silence_stream(out)
    except (OSError, ValueError):
        pass


CLEAR_LINE = "\r\x1b[K"  # back to column 0, erase to the end of the line


class StatusLine:
    """One line redrawn in place at the bottom of a terminal (the `--progress` bar). Log lines written to
    the same stream through `configure_logging` clear it first and redraw it after themselves, so a bar
    never runs into a log line."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.stream: TextIO | None = None
        self.text = ""
        self._cleared = False

    def show(self, stream: TextIO, text: str) -> None:
        """Draw `text` as the line; a terminal that went away (EIO, EPIPE) ends the drawing, never the caller's
        work (the apply the bar reports on)."""
        with self.lock:
            self.stream, self.text, self._cleared = stream, text, False
            try:
                stream.write(CLEAR_LINE + text)
                stream.flush()
            except (OSError, ValueError):
                self.stream, self.text = None, ""

    def end(self) -> None:
        """Leave the last state of the line on screen and stop redrawing it."""
        with self.lock:
            if self.stream is not None and self.text:
                with contextlib.suppress(OSError, ValueError):
                    self.stream.write("\n" if not self._cleared else CLEAR_LINE + self.text + "\n")
                    self.stream.flush()
            self.stream, self.text = None, ""

    def write_through(self, stream: TextIO, text: str) -> int:
        """Write `text` (part of a log line) to `stream`, clearing the status line first and redrawing it
        once the log line is complete."""
        with self.lock:
            active = self.stream is stream and bool(self.text)
            if active and text and not self._cleared:
                stream.write(CLEAR_LINE)
                self._cleared = True
            n = stream.write(text)
            if active and text.endswith("\n"):
                stream.write(self.text)
                self._cleared = False
                stream.flush()
            return n


STATUS = StatusLine()


class _StatusAwareStream:
    """The log stream: every write goes through STATUS (a no-op when no status line is shown).

    Writing a log line never raises: a failed write would otherwise end whichever thread logged (a zone
    worker, the scheduler, the signal watcher) and a process whose log reader went away (`... | head`)
    would stop reconciling and no longer stop on SIGTERM. When the reader is gone for good (EPIPE) the
    descriptor is pointed at /dev/null, so later writes (ours, the standard library's, the interpreter's
    last flush at exit) are dropped quietly; any other failed write loses that line only. Departure from
    Go, where a write to a closed stderr kills the process with SIGPIPE: losing the log never stops DNS
    reconciliation (logrus itself drops a line it cannot write and carries on)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lost = 0  # log writes that failed (lines dropped)

    def write(self, text: str) -> int:
        try:
            return STATUS.write_through(self.stream, text)
        except (OSError, ValueError) as exc:  # ValueError: the stream was closed
            self._failed(exc)
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError) as exc:
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        self.lost += 1
        if isinstance(exc, BrokenPipeError) and silence_stream(self.stream):
            with contextlib.suppress(OSError, ValueError):
                self.stream.flush()  # what the failed write left in the buffer goes to /dev/null

    def isatty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty()) if isatty is not None else False


class _StdlibFormatter(logging.Formatter):
    """Standard-library records (kubernetes client, boto3, urllib3) in the same logfmt as ours."""

    def format(self, record: logging.LogRecord) -> str:
        ts = rfc3339(record.created)
        line = (f'time="{ts}" level={_level_name(record.levelname)} msg={_quote(record.getMessage())} '
                f"logger={_quote(record.name)}")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class _StdlibJSONFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        doc = {"level": _level_name(record.levelname), "logger": record.name, "msg": record.getMessage(),
               "time": rfc3339(record.created)}
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def configure_logging(level: str = "info", fmt: str = "text", stream: TextIO | None = None) -> None:
    """Configure structlog (and stdlib logging) for the process; `level` is a `--log-level` value."""
    if level not in LEVELS:
        raise ValueError(f"--log-level: unknown level {level!r} (one of: {', '.join(LEVELS)})")
    if fmt not in ("text", "json"):
        raise ValueError(f"unsupported log format: {fmt}")
    raw = stream if stream is not None else sys.stderr
    out: Any = _StatusAwareStream(raw)
    numeric = LEVELS[level]
    renderer: Any
    if fmt == "json":
        # compact and key-sorted, as logrus's JSONFormatter (Go's encoding/json) writes a line
        renderer = [_rename_for_json, structlog.processors.JSONRenderer(default=str, sort_keys=True,
                                                                        ensure_ascii=False, separators=(",", ":"))]
    else:
        renderer = [logfmt_renderer]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _logrus_level,
            _add_time,
            structlog.processors.format_exc_info,
            *renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(_StdlibFormatter() if fmt == "text" else _StdlibJSONFormatter())
    logging.basicConfig(level=numeric, force=True, handlers=[handler])
