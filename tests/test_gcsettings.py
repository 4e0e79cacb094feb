"""gcsettings.py: after start-up, what is alive leaves the collector's scans and generation 0 is collected
less often; cycles are still collected. Run in a child interpreter: the settings are process-wide."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

CHILD = """
import gc
from external_dns.gcsettings import GEN0_THRESHOLD, settle_after_startup

alive = [object() for _ in range(1000)]
before = gc.get_freeze_count()
threshold = gc.get_threshold()
settle_after_startup()
assert gc.get_freeze_count() >= before + len(alive), (before, gc.get_freeze_count())
assert gc.get_threshold() == (GEN0_THRESHOLD, threshold[1], threshold[2])

class Node:
    pass

a, b = Node(), Node()
a.other, b.other = b, a  # a cycle created after start-up is still collected
del a, b
assert gc.collect() >= 2
print("ok")
"""


def test_settle_after_startup_freezes_what_is_alive_and_raises_the_gen0_threshold() -> None:
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_a_one_shot_run_also_collects_generation_1_less_often() -> None:
    child = CHILD.replace("settle_after_startup()", "settle_after_startup(one_shot=True)").replace(
        "(GEN0_THRESHOLD, threshold[1], threshold[2])", "(GEN0_THRESHOLD, ONE_SHOT_GEN1_THRESHOLD, threshold[2])"
    ).replace("import GEN0_THRESHOLD,", "import GEN0_THRESHOLD, ONE_SHOT_GEN1_THRESHOLD,")
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


TRIM_CHILD = """
from external_dns.gcsettings import release_free_heap

def rss_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

# 600-byte objects come from malloc (not Python's small-object allocator); the ones freed lie below live ones,
# so free() alone cannot give their pages back (it only shrinks the top of the heap).
freed = [bytes(600) for _ in range(300_000)]
kept = [bytes(600) for _ in range(300_000)]
del freed
before = rss_mib()
assert release_free_heap() is True
after = rss_mib()
assert before - after > 60, (before, after)  # ~180 MiB were freed inside the heap
assert release_free_heap() is True  # nothing left to give back: still fine
print("ok")
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_release_free_heap_gives_freed_pages_back() -> None:
    result = subprocess.run([sys.executable, "-c", TRIM_CHILD], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


EXIT_CHILD = """
import atexit, gc, sys
from external_dns.gcsettings import settle_before_exit

class Node:
    pass

kept = [Node() for _ in range(1000)]
a, b = Node(), Node()
a.other, b.other = b, a  # garbage in a cycle, still uncollected at exit
del a, b
before = gc.get_freeze_count()
atexit.register(lambda: print("exit handler ran", flush=True))
settle_before_exit()
assert gc.get_freeze_count() >= before + len(kept), (before, gc.get_freeze_count())
sys.stdout.write("ok\\n")  # buffered: flushed at exit as usual
"""


def test_settle_before_exit_freezes_what_is_alive_and_the_exit_runs_as_before() -> None:
    result = subprocess.run([sys.executable, "-c", EXIT_CHILD], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["ok", "exit handler ran"]
