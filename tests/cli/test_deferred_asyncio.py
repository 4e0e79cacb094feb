"""structlog imports asyncio for async logger methods we never call: the CLI imports structlog with asyncio
deferred (cmd/main.py `_DeferredModule`), so a `--once` run never loads it, while code that does use asyncio
still gets the real module. The Go-template engine, too, is imported only with a first template."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from external_dns.cmd.main import _DeferredModule

PROBE = "\n".join([
    "import json, sys",
    "from external_dns.cmd.main import main",
    "code = main(sys.argv[1:])",
    "print(json.dumps({'code': code, 'real': [m for m in ('asyncio.events', 'asyncio.base_events', "
    "'external_dns.sources.gotemplate.parse', 'external_dns.sources.gotemplate.execute') if m in sys.modules]}))",
])


@pytest.mark.integration
def test_once_over_manifests_never_loads_asyncio(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.yaml").write_text(
        "apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: a\nspec:\n  endpoints:\n"
        "  - dnsName: www.example.org\n    recordType: A\n    targets: [10.0.0.1]\n")
    argv = ["--once", "--source=manifest", f"--manifest-dir={tmp_path / 'm'}", f"--zonefile-dir={tmp_path}",
            "--zonefile-create-zone=example.org", "--provider=zonefile", "--txt-owner-id=t", "--policy=sync"]
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"code": 0, "real": []}, proc.stderr
    assert "www 300 IN A 10.0.0.1" in (tmp_path / "example.org.zone").read_text()


@pytest.mark.integration
def test_code_using_asyncio_after_start_up_gets_the_real_module() -> None:
    code = "\n".join([
        "import sys",
        "from external_dns.cmd.main import _import_structlog_without_rich",
        "_import_structlog_without_rich()",
        "import structlog.stdlib, asyncio",
        "assert type(sys.modules['asyncio']).__name__ == '_DeferredModule'",
        "from asyncio import Queue",
        "import asyncio.subprocess",
        "async def f():",
        "    await structlog.stdlib.get_logger('t').ainfo('from an async logger')",
        "    return 7",
        "assert asyncio.run(f()) == 7",
        "assert sys.modules['asyncio'].Queue is Queue and type(sys.modules['asyncio']).__name__ == 'module'",
        "print('ok')",
    ])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().splitlines()[-1:] == ["ok"], proc.stderr


def test_deferred_module_loads_once_for_racing_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    name = "external_dns_deferred_probe"
    monkeypatch.setitem(sys.modules, name, _DeferredModule(name))
    stub = sys.modules[name]
    loads: list[int] = []

    class Real:
        value = 42

    def fake_import(module: str) -> Real:
        assert module == name
        loads.append(1)
        sys.modules[name] = Real()  # type: ignore[assignment]
        return Real()

    monkeypatch.setattr("external_dns.cmd.main.importlib.import_module", fake_import)
    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(stub.value)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert got == [42] * 8 and loads == [1]
    with pytest.raises(AttributeError):
        _ = stub.missing
