"""`make run` (examples/demo.sh) as a user meets it: the README's sample output is what the demo prints (every
line shown there appears, in that order; `...` stands for lines left out), and the start-up `config` line the
demo means to hide is hidden."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from tests.helpers.cli import ROOT, clean_env

pytestmark = pytest.mark.integration


def readme_sample() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```\n(=== 1\. first sync.*?)```", text, re.S)
    assert block is not None, "README.md has no sample of the demo's output"
    return block.group(1).splitlines()


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The demo run in a copy of examples/ (it writes .demo/ beside them), with this interpreter."""
    root = tmp_path_factory.mktemp("demo")
    shutil.copytree(ROOT / "examples", root / "examples")
    proc = subprocess.run(["bash", str(root / "examples" / "demo.sh"), sys.executable], capture_output=True,
                          text=True, env=clean_env(), timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.splitlines()


def test_the_readme_sample_is_what_the_demo_prints(demo_output: list[str]) -> None:
    position = 0
    for line in readme_sample():
        if line == "...":
            continue
        try:
            position = demo_output.index(line, position) + 1
        except ValueError:
            pytest.fail(f"README line not in the demo's output (after line {position}): {line!r}\n"
                        + "\n".join(demo_output))


def test_the_demo_hides_the_config_line_and_timestamps(demo_output: list[str]) -> None:
    assert not [line for line in demo_output if " msg=config" in line or 'msg="config"' in line]
    assert not [line for line in demo_output if line.startswith("time=")]
