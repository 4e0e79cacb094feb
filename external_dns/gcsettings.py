"""Garbage-collector settings for after start-up (a ground module: no imports from the package).

A sync allocates hundreds of thousands of short-lived, cycle-free objects (endpoints, plan rows, record
tuples). With CPython's defaults a generation-0 collection runs every 700 allocations and every collection
of the older generations scans everything alive, including the tens of thousands of objects start-up
created (modules, classes, functions, the flag parser) that live as long as the process. So, once the
process is wired: `gc.freeze()` moves everything alive to the permanent generation (never scanned again),
and generation 0 is collected every 50,000 allocations instead of 700 (measured on a 20,000-record zone-file
no-op: 3.0 s -> 2.1 s whole process, the same peak memory). Cycles are still collected.

`release_free_heap()`, after each periodic pass of the long-running controller: a pass allocates and frees
copies of the whole zone; glibc keeps the freed pages inside its heap, so the resident size creeps up pass
after pass as the free space fragments. `malloc_trim(0)` hands whole free pages back to the system (a 10k-record
zone: 6 MiB after ten passes, 3 %; a few milliseconds). Not glibc (musl, macOS): nothing to do.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

GEN0_THRESHOLD = 50_000
# A one-shot run (`--once`) builds its whole state once and exits: generation 1 is collected every 100
# generation-0 collections instead of 10, so the records it keeps are scanned about once instead of again in
# every generation-1 pass (a 100k-record zone-file no-op: 0.58 -> 0.26 s of collection, the same peak memory).
# Cycles are still collected; the long-running controller keeps the defaults.
ONE_SHOT_GEN1_THRESHOLD = 100


def settle_after_startup(one_shot: bool = False) -> None:
    """Call once the process is wired, before the first sync (`one_shot`: a `--once` run)."""
    if not one_shot:
        # A one-shot run ends in seconds: start-up's garbage (a few hundred KiB of import-time cycles) is frozen
        # with the rest instead of collected first (a full collection over ~200k objects: ~45 ms CPU of a 5k
        # --once run). The long-running controller collects it, as it lives on.
        gc.collect()
    gc.freeze()
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, ONE_SHOT_GEN1_THRESHOLD if one_shot else gen1, gen2)


def settle_before_exit() -> None:
    """Call when a one-shot run is over and the process is about to end: what is alive then moves to the
    permanent generation, so the full collections the interpreter runs while it shuts down do not scan the
    run's objects (and its cyclic garbage) again; the system takes the memory back with the process (a
    100k-record zone-file no-op: ~0.3 s CPU less). Exit handlers, thread joins and stream flushes run as
    before; only finalizers of garbage cycles still uncollected at exit are skipped, which the interpreter
    never promised to run (our files are written and closed by `with` blocks before)."""
    gc.freeze()


_pause_lock = threading.Lock()
_pause_depth = 0
_pause_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector paused while tens of thousands of short-lived, cycle-free objects are built (a
    LIST body parsed, a zone transfer read, UPDATEs rendered): each collection would scan everything alive.
    Pausing is process-wide, so it is counted across threads: the collector resumes when the last pauser
    leaves, and only if it ran when the first came (an informer's LIST parsed while a sync reads a zone:
    without the count, whichever ended first turned the collector back on under the other)."""
    global _pause_depth, _pause_was_enabled
    with _pause_lock:
        if _pause_depth == 0:
            _pause_was_enabled = gc.isenabled()
            gc.disable()
        _pause_depth += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pause_depth -= 1
            if _pause_depth == 0 and _pause_was_enabled:
                gc.enable()


_libc: Any = None
_libc_lock = threading.Lock()


def _malloc_trim() -> Any:
    global _libc
    with _libc_lock:
        if _libc is None:
            import ctypes  # here, not at start-up: a --once run never trims (~6 ms of imports)

            _libc = False
            try:
                lib = ctypes.CDLL(None)  # the process's own symbols (libc among them): no ldconfig subprocess
            except OSError:
                lib = None
            trim = getattr(lib, "malloc_trim", None)
            if trim is not None:
                trim.argtypes = [ctypes.c_size_t]
                trim.restype = ctypes.c_int
                _libc = trim
        return _libc or None


def release_free_heap() -> bool:
    """Return the C heap's free pages to the system (glibc `malloc_trim(0)`); False where there is no such call."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
