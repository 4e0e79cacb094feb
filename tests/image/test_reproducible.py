"""Two builds of one commit give the same image: `python3 -m image.build` again into another directory (the
download cache of `make image` warm) must give dist/'s manifest digest and docker archive, byte for byte."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.charts.render import ROOT
from tests.image.runtime import Built

pytestmark = pytest.mark.integration


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def test_a_second_build_gives_the_same_digest(image: Built, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}  # the commit's time, as make's
    proc = subprocess.run([sys.executable, "-m", "image.build", "--dist", str(tmp_path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-5000:]
    again = json.loads((tmp_path / "image.json").read_text())
    assert again["source_date_epoch"] == image.summary["source_date_epoch"], "dist/ holds another commit's image"
    for key in ("debian_packages", "wheels"):  # what the mirror and the index served: the same inputs
        assert again[key] == image.summary[key], key
    assert again["layers"] == image.summary["layers"]
    assert again["digest"] == image.summary["digest"]
    archive = image.summary["archive"]
    assert _sha256(tmp_path / archive) == _sha256(ROOT / "dist" / archive)
