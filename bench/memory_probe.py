"""Runs the CLI (`python bench/memory_probe.py <CLI flags>`, PYTHONPATH = the code under test) with a probe
for bench/memory_scale.py: it writes `startup.json` into `$MEM_PROBE_DIR` when the process is wired (the
moment `settle_after_startup` runs: imports and wiring done, nothing listed yet), and then serves requests
dropped into that directory as files:

* `<label>.req` -> `<label>.json`: VmRSS, VmHWM, glibc's `mallinfo2` (arena in use / free), Python's
  allocated blocks and, with `MEM_PROBE_TRACE=<frames>` set, `tracemalloc`'s traced total;
* `<label>.snapreq` -> `<label>.json`: the same, plus (when tracing) a snapshot pickled to `<label>.snap`
  (group it by file / line and diff two of them: `memory_scale.py --analyse`);
* `<label>.trim` -> `<label>.json`: the same after `gc.collect()` and glibc `malloc_trim(0)` (`.trimonly`:
  `malloc_trim(0)` alone);
* `<label>.garbage` -> `<label>.json`: what a full collection finds unreachable (cyclic garbage the
  collector had not reached yet), counted by type (and by key set for dicts, by code for frames/functions);
* `<label>.holders` -> `<label>.json`: how many objects of `$MEM_PROBE_HOLD` (a type name, default Endpoint)
  are alive and, for a sample, the chain of containers holding them (what keeps them alive; unfreezes the
  start-up objects `gcsettings` froze, so ask it last).

Stdlib only, so it adds nothing to the process it measures but one sleeping thread (and tracemalloc's
bookkeeping when asked).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import os
import runpy
import sys
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

DIR = Path(os.environ.get("MEM_PROBE_DIR", "."))
FRAMES = int(os.environ.get("MEM_PROBE_TRACE", "0") or 0)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
        "keepcost")]


def _libc() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


LIBC = _libc()


def _status() -> dict[str, float]:
    out: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def stats() -> dict[str, Any]:
    out: dict[str, Any] = {"t": time.time(), **_status(), "py_blocks": sys.getallocatedblocks()}
    if LIBC is not None and hasattr(LIBC, "mallinfo2"):
        LIBC.mallinfo2.restype = _Mallinfo2
        mi = LIBC.mallinfo2()
        out.update(malloc_arena_mib=(mi.arena + mi.hblkhd) / 2**20, malloc_used_mib=(mi.uordblks + mi.hblkhd) / 2**20,
                   malloc_free_mib=mi.fordblks / 2**20)
    if tracemalloc.is_tracing():
        out["traced_mib"] = tracemalloc.get_traced_memory()[0] / 2**20
    return out


def _kind(obj: Any) -> str:
    name = type(obj).__qualname__
    if isinstance(obj, dict):
        return f"dict{sorted(obj)[:6]}"
    code = getattr(obj, "f_code", None) or getattr(obj, "__code__", None)
    if code is not None:
        return f"{name} {code.co_filename.rsplit('/', 2)[-1]}:{code.co_name}"
    return name


def garbage() -> dict[str, Any]:
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        found = gc.collect()
        kinds = Counter(_kind(o) for o in gc.garbage)
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
    return {"collected": found, "kinds": kinds.most_common(40), **stats()}


def holders(depth: int = 6, sample: int = 300) -> dict[str, Any]:
    """Chains of referrers of a sample of objects of one type (one scan of the heap per level)."""
    wanted = os.environ.get("MEM_PROBE_HOLD", "Endpoint")
    gc.unfreeze()  # objects frozen at start-up (gcsettings) are invisible to gc.get_objects(); ask last
    gc.collect()
    every = gc.get_objects()
    alive = [o for o in every if type(o).__name__ == wanted]
    step = max(1, len(alive) // sample)
    chains: list[list[str]] = [[] for _ in alive[::step]]
    last: dict[int, Any] = {}  # sample index -> the outermost holder found
    current = {id(o): i for i, o in enumerate(alive[::step])}
    ignore = {id(every), id(alive), id(current)}
    for _ in range(depth):
        found: dict[int, Any] = {}  # sample index -> its first holder at this level
        for obj in every:
            if id(obj) in ignore:
                continue
            for ref in gc.get_referents(obj):
                i = current.get(id(ref))
                if i is not None and i not in found:
                    found[i] = obj
        for i, obj in found.items():
            chains[i].append(_kind(obj))
            last[i] = obj
        current = {id(obj): i for i, obj in found.items()
                   if type(obj).__name__ != "frame" and (not hasattr(obj, "__dict__") or isinstance(obj, type))}
        if not current:
            break
    del every
    tops = Counter(f"{_kind(obj)} len={len(obj) if hasattr(obj, '__len__') else '-'} first={_first(obj)} "
                   f"refs={sys.getrefcount(obj) - 2} referrers={[_kind(r) for r in gc.get_referrers(obj)][:8]}"
                   for obj in {id(o): o for o in last.values()}.values())
    return {"type": wanted, "alive": len(alive), "frames": _frame_holders(wanted), "tops": tops.most_common(10),
            "chains": Counter(" <- ".join(c) for c in chains).most_common(30), **stats()}


def _first(obj: Any) -> str:
    try:
        return repr(next(iter(obj.values() if isinstance(obj, dict) else obj)))[:300]
    except Exception:
        return "-"


def _frame_holders(wanted: str) -> list[str]:
    """Locals of running frames (not visible to the collector in 3.11) holding `wanted` objects directly or in
    a list / tuple / dict value, or an object whose attributes do."""
    def count(value: Any) -> int:
        if type(value).__name__ == wanted:
            return 1
        if isinstance(value, (list, tuple)):
            return sum(1 for v in value if type(v).__name__ == wanted)
        if isinstance(value, dict):
            return sum(1 for v in value.values() if type(v).__name__ == wanted)
        attrs = getattr(value, "__dict__", None)
        return sum(count(v) for v in attrs.values() if isinstance(v, (list, tuple))) if isinstance(attrs, dict) else 0

    out: list[str] = []
    names = {t.ident: t.name for t in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        f: Any = frame
        while f is not None:
            for var, value in f.f_locals.items():
                n = count(value)
                if n:
                    out.append(f"{names.get(ident)}: {f.f_code.co_name} {var} ({type(value).__name__}): {n}")
            f = f.f_back
    return out


def _write(label: str, data: dict[str, Any]) -> None:
    tmp = DIR / f".{label}.json"
    tmp.write_text(json.dumps(data))
    tmp.rename(DIR / f"{label}.json")


def _serve() -> None:
    while True:
        time.sleep(0.2)  # polling a directory the bench writes into: nothing to wait on
        for req in sorted(DIR.glob("*.req")) + sorted(DIR.glob("*.snapreq")) + sorted(DIR.glob("*.trim")) + sorted(DIR.glob("*.trimonly")) \
                + sorted(DIR.glob("*.garbage")) + sorted(DIR.glob("*.holders")):
            label = req.stem
            if req.suffix in (".garbage", ".holders"):
                req.unlink()
                _write(label, garbage() if req.suffix == ".garbage" else holders())
                continue
            if req.suffix in (".trim", ".trimonly"):
                if req.suffix == ".trim":
                    gc.collect()
                if LIBC is not None:
                    LIBC.malloc_trim(0)
            data = stats()
            if tracemalloc.is_tracing() and req.suffix == ".snapreq":
                tracemalloc.take_snapshot().dump(str(DIR / f"{label}.snap"))
            req.unlink()
            _write(label, data)


def _hook() -> None:
    import external_dns.cmd.run as run

    settle = getattr(run, "settle_after_startup")  # noqa: B009 - imported there, not exported

    def probed(*args: Any, **kwargs: Any) -> None:
        _write("startup", stats())
        settle(*args, **kwargs)

    setattr(run, "settle_after_startup", probed)  # noqa: B010


def main() -> None:
    if FRAMES:
        tracemalloc.start(FRAMES)
    _hook()
    threading.Thread(target=_serve, name="memory-probe", daemon=True).start()
    sys.argv = ["external_dns", *sys.argv[1:]]
    runpy.run_module("external_dns", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
