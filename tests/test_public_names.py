"""The names users reach from outside stay where the README and docs/ say they are: the modules of the README's
design map, the classes and functions the docs name, the old paths of moved names (re-exports), the
packages' `__all__`, and the commands the docs show."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import external_dns
from external_dns.cmd.main import SUBCOMMANDS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "external_dns"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "charts/external-dns-py/README.md"]

# Names the README and docs/ mention, where a user imports them from.
DOCUMENTED = {
    "external_dns.plan": ["Plan", "Changes", "PerResource", "POLICIES"],
    "external_dns.plan.plan": ["Plan"],
    "external_dns.plan.changes": ["Changes"],
    "external_dns.endpoint": ["Endpoint", "Targets", "DomainFilter", "MatchAllDomainFilters", "TargetNetFilter"],
    "external_dns.endpoint.zones": ["zone_for_name", "normalize_zone", "display_zone"],
    "external_dns.registry": ["TXTRegistry", "NoopRegistry", "Registry", "AffixNameMapper"],
    "external_dns.providers.provider": ["Provider", "CachedProvider", "ProviderError", "SoftError"],
    "external_dns.sources.source": ["Source"],
    "external_dns.events": ["Recorder", "emit_applied_events", "emit_error_events", "emit_problem_events"],
    "external_dns.events.recorder": ["EventRecorder"],
    "external_dns.errors": ["ConfigError", "error_text"],
    "external_dns.durations": ["parse_go_duration", "parse_duration", "format_go_duration"],
    "external_dns.logging_setup": ["configure_logging"],
    "external_dns.controller.controller": ["Controller", "RunOnceError"],
    "external_dns.controller.safety_gate": ["SafetyGate"],
    "external_dns.informers": ["SharedInformerFactory"],
    "external_dns.informers.reflector": ["ListerWatcher", "Reflector"],
    "external_dns.workqueue": ["RateLimitingQueue", "FakeClock"],
}

# Old paths of moved names: kept as re-exports (a move below cmd/ never re-exports upward).
MOVED = {
    "external_dns.cmd.flags": ["ConfigError", "parse_duration"],
    "external_dns.cmd.logging_setup": ["configure_logging", "LEVELS", "logfmt_renderer"],
    "external_dns.providers.provider": ["zone_for_name"],
    "external_dns.controller.events": ["EventRecorder"],
    "external_dns.controller.record_events": ["Recorder", "emit_applied_events", "emit_error_events"],
}


@pytest.mark.parametrize("module", sorted({**DOCUMENTED, **MOVED}))
def test_documented_and_moved_names_are_importable(module: str) -> None:
    mod = importlib.import_module(module)
    names = DOCUMENTED.get(module, []) + MOVED.get(module, [])
    assert [n for n in names if not hasattr(mod, n)] == []


def _packages() -> list[str]:
    found = ["external_dns"]
    for info in pkgutil.walk_packages(external_dns.__path__, "external_dns."):
        if info.ispkg:
            found.append(info.name)
    return found


@pytest.mark.parametrize("package", _packages())
def test_every_name_in_a_packages_all_resolves(package: str) -> None:
    mod = importlib.import_module(package)
    assert [n for n in getattr(mod, "__all__", []) if not hasattr(mod, n)] == []


def _design_map() -> list[tuple[Path, list[str]]]:
    """(directory, `*.py` / `dir/` names) for every row of the README's module table."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## How it is built"):text.index("## Flags")]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`external_dns/"):
            continue
        first = re.match(r"`(external_dns/[^`]*)`", cells[1])
        assert first is not None
        where = ROOT / first.group(1)
        base = where if where.is_dir() else where.parent
        names = re.findall(r"`([\w*/]+\.py|[\w]+/)`", cells[1] + " " + cells[2])
        rows.append((base, [where.name] * where.is_file() + [n for n in names if not n.startswith("external_dns/")]))
    return rows


def test_every_module_of_the_design_map_exists_and_imports() -> None:
    rows = _design_map()
    assert len(rows) >= 10
    missing = []
    for base, names in rows:
        for name in names:
            hits = list(base.rglob(name.rstrip("/"))) or list(PACKAGE.rglob(name.rstrip("/")))
            if not hits:
                missing.append(f"{base.relative_to(ROOT)}: {name}")
            for hit in hits:
                path = hit if hit.is_dir() else hit.with_suffix("")
                module = ".".join(path.relative_to(ROOT).parts)
                importlib.import_module(module)
    assert missing == []


def _code_spans(text: str) -> list[str]:
    """Inline code and the lines of fenced code blocks."""
    spans, fenced = re.findall(r"`([^`\n]+)`", text), False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            spans.append(line.strip().removeprefix("$ "))
    return spans


def test_every_command_the_docs_show_exists() -> None:
    shown: set[str] = set()
    modules: set[str] = set()
    for doc in DOCS:
        for span in _code_spans(doc.read_text()):
            if m := re.match(r"external-dns ([a-z][a-z-]+)\b", span):
                shown.add(m.group(1))
            modules.update(re.findall(r"python -m (external_dns[\w.]*)", span))
    assert {"plan", "apply", "webhook-server", "rbac", "informer-probe"} <= shown
    assert shown - {"run", *SUBCOMMANDS} == set()
    for module in modules:  # `python -m X` needs X (or X.__main__) importable
        spec = importlib.util.find_spec(module)
        assert spec is not None, module
        if spec.submodule_search_locations is not None:
            assert importlib.util.find_spec(f"{module}.__main__") is not None, module


@pytest.mark.parametrize(("old", "new"), [("external_dns.informers", "external-dns informer-probe"),
                                          ("external_dns.sources.rbac", "external-dns rbac")])
def test_moved_commands_name_their_new_invocation(old: str, new: str) -> None:
    result = subprocess.run([sys.executable, "-m", old, "--help"], capture_output=True, text=True, timeout=60,
                            cwd=ROOT)
    assert result.returncode == 2 and new in result.stderr
