"""gcsettings.py: after start-up, what is alive leaves the collector's scans and generation 0 is collected
less often; cycles are still collected. Run in a child interpreter: the settings are process-wide."""

from __future__ import annotations

import subprocess
import sys

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
