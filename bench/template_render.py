"""Benchmark: the Go text/template subset on Services, per object.

For N = 1k and 10k Services (5 labels, 3 annotations each) prints the best-of-3 time to render each
template on every object, in microseconds per object: a plain field template, external-dns's documented
`range` over labels with `contains`, an `if`/`eq`/`index` template, and an `--fqdn-target-template` pair
list. The plain template is also run on the engine before the Go subset landed (the field-and-pipe engine
of commit ffc6113^, read from git history; `n/a` without the history), so the cost of the richer engine on
the template every user has is visible. Parsing happens once, outside the timing.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from external_dns.sources.template import FQDNTemplate

SIZES = (1_000, 10_000)
REPEATS = 3
OLD_ENGINE_REV = "ffc6113^"

TEMPLATES = {
    "fields": "{{.Name}}.{{.Namespace}}.example.org",
    "range+contains": ('{{ range $k, $v := .Labels }}{{ if contains $k "app" }}{{ $.Name }}.{{ $v }}.example.org'
                       '{{ printf "," }}{{ end }}{{ end }}'),
    "if+eq+index": ('{{ if eq .Kind "Service" }}{{ if index .Spec.Selector "app" }}{{ .Name }}.'
                    '{{ index .Spec.Selector "app" }}.example.org{{ end }}{{ end }}'),
    "fqdn-target pairs": "{{.Name}}.example.org:{{.Spec.ClusterIP}},{{.Name}}.lb.example.org:lb.example.net",
}


def services(n: int) -> list[dict[str, Any]]:
    return [{
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": f"svc-{i}", "namespace": f"ns-{i % 50}",
                     "labels": {"app": f"shop-{i % 7}", "app.kubernetes.io/name": "cart", "tier": "web",
                                "team": "payments", "env": "prod"},
                     "annotations": {"a": "1", "b": "2", "c": "3"}},
        "spec": {"type": "ClusterIP", "clusterIP": f"10.96.{(i >> 8) & 255}.{i & 255}",
                 "selector": {"app": f"shop-{i % 7}"}},
    } for i in range(n)]


def best_of(objs: list[dict[str, Any]], render: Callable[[dict[str, Any]], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        for obj in objs:
            render(obj)
        best = min(best, time.perf_counter() - start)
    return best


def old_engine() -> Any | None:
    """The previous engine's FQDNTemplate class, from git history (None when unavailable)."""
    root = Path(__file__).resolve().parent.parent
    try:
        source = subprocess.run(["git", "show", f"{OLD_ENGINE_REV}:external_dns/sources/template.py"], cwd=root,
                                capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    module = types.ModuleType("bench_old_template")
    sys.modules[module.__name__] = module  # dataclasses look their module up while the class is made
    exec(compile(source, "old_template.py", "exec"), module.__dict__)  # our own file, from git history
    return module.FQDNTemplate


def main() -> None:
    old = old_engine()
    print("| N | template | µs/object | names/object | old engine µs/object |")
    print("| --- | --- | --- | --- | --- |")
    for n in SIZES:
        objs = services(n)
        for label, text in TEMPLATES.items():
            t = FQDNTemplate(text)
            count = len(t.render(objs[0], "Service", "service"))
            secs = best_of(objs, lambda o, t=t: t.render(o, "Service", "service"))  # type: ignore[misc]
            previous = "n/a"
            if label == "fields" and old is not None:
                before = old(text)
                secs_before = best_of(objs, lambda obj, b=before: b.render(obj, "Service"))  # type: ignore[misc]
                previous = f"{secs_before / n * 1e6:.1f}"
            print(f"| {n} | {label} | {secs / n * 1e6:.1f} | {count} | {previous} |", flush=True)


if __name__ == "__main__":
    main()
