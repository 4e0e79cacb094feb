"""octoDNS side of the provider_sync_* benchmarks: its venv under .bench/ (installed on first use) and the
octoDNS config that syncs one YAML zone file into one target provider with the ownership processor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = ROOT / ".bench"
OCTO_VENV = BENCH_DIR / "octodns-venv"


def ensure_octodns(packages: tuple[str, ...], module: str) -> tuple[Path | None, str]:
    """The octoDNS venv's python with `packages` installed (on first use), `module` importable; or None and
    the reason."""
    python = OCTO_VENV / "bin" / "python"
    probe = [str(python), "-c", f"import octodns, {module}; print(octodns.__version__)"]
    if python.exists() and subprocess.run(probe, capture_output=True, timeout=120, check=False).returncode == 0:
        return python, ""
    BENCH_DIR.mkdir(exist_ok=True)
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(OCTO_VENV)], check=True, timeout=300,
                           capture_output=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], check=True, timeout=900,
                       capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        return None, f"installing {' '.join(packages)} failed: {(exc.stderr or '')[-500:]}"
    except subprocess.TimeoutExpired:
        return None, "installing octoDNS timed out"
    if subprocess.run(probe, capture_output=True, timeout=120, check=False).returncode != 0:
        return None, f"octoDNS installed but {module} cannot be imported"
    return python, ""


def write_octo_config(workdir: Path, zone: str, zone_yaml: Path, ttl: int, target_name: str,
                      target: dict[str, Any]) -> Path:
    """octoDNS config syncing a copy of `zone_yaml` (YamlProvider "config") into the provider `target` (named
    `target_name`), with the OwnershipProcessor; returns the config file's path."""
    directory = workdir / f"octo-config-{zone}"
    directory.mkdir(exist_ok=True)
    (directory / f"{zone}.yaml").write_text(zone_yaml.read_text())
    config = workdir / f"octo-{zone}.yaml"
    config.write_text(yaml.safe_dump({
        "providers": {
            "config": {"class": "octodns.provider.yaml.YamlProvider", "directory": str(directory),
                       "default_ttl": ttl, "enforce_order": False},
            target_name: target,
        },
        "processors": {"owner": {"class": "octodns.processor.ownership.OwnershipProcessor"}},
        "zones": {f"{zone}.": {"sources": ["config"], "processors": ["owner"], "targets": [target_name]}},
    }))
    return config
