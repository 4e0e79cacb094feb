"""Plan outputs (`--plan-output`, `--plan-output-file FORMAT=PATH`): the plan rendered for people, before
the safety check and in dry-run too, so a refused plan is still shown.

Formats (`FORMATS`): `log` (default; lines in the log, see output/log.py), `markdown` (a pull-request
comment), `html` (a standalone page), `json` (stable, documented in output/json_output.py). A format with
a file is written there (atomically: a temporary file, then renamed); `log` without a file adds nothing
(the controller logs each planned change once, `Desired change: ...`), the others without a file go to
stdout.

`render(fmt, plans, meta)` returns the text; `emit_outputs(formats, files, plans, meta)` runs every requested
output. Every format says whether the plan is safe (each zone's verdict, the thresholds and the figures) and,
with a `PlanMeta`, whose plan it is and when it was made.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence

from external_dns.plan.output import html, json_output, log, markdown
from external_dns.plan.output.model import NO_CHANGES, PlanMeta, Row, Side, ZonePlan, rows, zones_with_changes

RENDERERS: dict[str, Callable[[Sequence[ZonePlan], PlanMeta | None], str]] = {
    "log": log.render,
    "markdown": markdown.render,
    "html": html.render,
    "json": json_output.render,
}
FORMATS: tuple[str, ...] = tuple(RENDERERS)


def render(fmt: str, plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> str:
    """The plan in format `fmt`; ValueError naming an unknown format."""
    try:
        renderer = RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown plan output {fmt!r} (one of: {', '.join(FORMATS)})") from None
    return renderer(plans, meta)


def write_file(path: str, text: str) -> None:
    """Write `text` to `path`: a regular file (or none yet) atomically (same-directory temporary file, then
    rename), with the permissions a plain `open(path, "w")` gives (the umask's; mkstemp's file is 0600); a
    symlink is written through (the file it leads to is replaced, never the link); anything else that exists
    (`/dev/stdout`, `/dev/null`, a FIFO with a reader) is written into as it is, never replaced (as root a
    rename would have put a regular file in place of the system's device node). An OSError names `path`, not
    the temporary file."""
    tmp = ""
    try:
        try:
            st: os.stat_result | None = os.stat(path)  # through symlinks
        except FileNotFoundError:
            st = None
        if st is not None and (not stat.S_ISREG(st.st_mode) or _is_descriptor(path)):
            _write_into(path, st, text)
            return
        target = os.path.realpath(path)  # a symlink (even one to a file still to be made): its target
        fd, tmp = tempfile.mkstemp(prefix=".plan-", dir=os.path.dirname(target))
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o666 & ~_umask())
            fh.write(text)
        os.replace(tmp, target)
    except OSError as exc:
        _unlink(tmp)
        raise OSError(exc.errno, exc.strerror, path) from None
    except BaseException:
        _unlink(tmp)
        raise


def _is_descriptor(path: str) -> bool:
    """`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`...: another name of an open descriptor of a process,
    written into even when it is a regular file (the shell's `> out.json`), never replaced."""
    hop = os.path.abspath(path)
    for _ in range(40):  # the kernel's limit of links in a row
        if hop.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(hop):
            return False
        hop = os.path.normpath(os.path.join(os.path.dirname(hop), os.readlink(hop)))
    return False


def _write_into(path: str, st: os.stat_result, text: str) -> None:
    """Write into an existing file that is not a regular one (a device, a FIFO) or names a descriptor: opened
    without waiting (a FIFO without a reader is refused, ENXIO), appending (a redirected stdout keeps what is
    in it), then written in full."""
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        os.set_blocking(fd, True)
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


@functools.cache
def _umask() -> int:
    """The process's umask: from /proc (Linux), else by setting and restoring it, once (os.umask changes it
    for every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _unlink(tmp: str) -> None:
    if tmp and os.path.exists(tmp):
        os.unlink(tmp)


def emit_outputs(formats: Sequence[str], files: Mapping[str, str], plans: Sequence[ZonePlan],
                 meta: PlanMeta | None = None) -> None:
    """Run every output: each format in `formats` and each in `files` (FORMAT -> PATH), once."""
    wanted = list(dict.fromkeys([*formats, *files]))
    for fmt in wanted:
        text = render(fmt, plans, meta)
        path = files.get(fmt)
        if path:
            write_file(path, text)
        elif fmt == "log":
            continue  # the controller already logs each planned change once ("Desired change: ...")
        else:
            sys.stdout.write(text)
            sys.stdout.flush()


__all__ = ["FORMATS", "NO_CHANGES", "RENDERERS", "PlanMeta", "Row", "Side", "ZonePlan", "emit_outputs", "render",
           "rows", "write_file", "zones_with_changes"]
