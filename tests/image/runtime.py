"""Running the built image (dist/oci, `make image`) the way the chart's pod runs it, with umoci and runc.

`unpack()` unpacks the image once per session (umoci, as root); `Pod` turns the chart's rendered container
(args, env, securityContext, the /tmp emptyDir) into a runc config: the image's user and entrypoint, the
container's uid/gid, a read-only root filesystem, every capability dropped, no new privileges, and a
writable /tmp only, the memory limit. Departures from a kubelet, written down: the container shares the host's network
namespace (it talks to test servers on 127.0.0.1, and the tests reach its ports there), and runc applies
no seccomp profile (the chart asks for RuntimeDefault, which is the container runtime's own).
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.charts.render import ROOT, containers, find, render_chart

DIST = ROOT / "dist"
LAYOUT = DIST / "oci"
SUMMARY = DIST / "image.json"
TOOLS = ("umoci", "runc", "skopeo")
_ids = itertools.count()


@dataclass(frozen=True)
class Built:
    """The image `make image` left in dist/: its OCI layout, tag and build summary (dist/image.json)."""

    layout: Path
    tag: str
    summary: dict[str, Any]

    @property
    def oci_ref(self) -> str:
        return f"oci:{self.layout}:{self.tag}"


def built() -> Built:
    """The built image; skips (a failure in CI) when there is none or the tools to run it are missing."""
    if not SUMMARY.is_file() or not (LAYOUT / "index.json").is_file():
        pytest.skip("no image in dist/: run `make image` (as root)")
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if missing or os.geteuid() != 0:
        pytest.skip(f"running the image needs root and {', '.join(TOOLS)} (make image-deps); missing: {missing}")
    summary = json.loads(SUMMARY.read_text())
    return Built(LAYOUT, summary["reference"].rsplit(":", 1)[1], summary)


def unpack(image: Built, dest: Path) -> Path:
    """umoci's bundle of the image in dest: rootfs/ and the runtime config umoci derives from the image."""
    subprocess.run(["umoci", "unpack", "--image", f"{image.layout}:{image.tag}", str(dest)], check=True,
                   capture_output=True, timeout=300)
    return dest


def chart_container(values: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The chart's external-dns container and its pod spec, rendered with `values`."""
    objects = render_chart(dict(values or {}))
    pod = find(objects, "Deployment")["spec"]["template"]["spec"]
    return containers(objects)["external-dns"], pod


@dataclass
class Pod:
    """One container of the image, configured from the chart's container spec."""

    bundle: Path  # the session's unpacked image (its rootfs is shared, read-only)
    container: dict[str, Any]
    pod: dict[str, Any]
    workdir: Path  # this pod's runc bundle and its /tmp
    mounts: dict[str, Path] = field(default_factory=dict)  # extra read-only mounts: destination -> host path
    env: dict[str, str] = field(default_factory=dict)

    def config(self, args: Sequence[str] | None = None, command: Sequence[str] | None = None) -> dict[str, Any]:
        """The runc config: the image's (as umoci unpacked it) with the pod's settings applied."""
        base = json.loads((self.bundle / "config.json").read_text())
        cfg = copy.deepcopy(base)
        sc = self.container.get("securityContext") or {}
        psc = self.pod.get("securityContext") or {}
        process = cfg["process"]
        process["terminal"] = False
        # Kubernetes: `command` replaces the image's entrypoint, `args` its cmd
        image_args = process["args"]
        entry = list(command) if command is not None else image_args
        process["args"] = entry + list(args if args is not None else self.container.get("args") or [])
        uid = sc.get("runAsUser", psc.get("runAsUser"))
        gid = sc.get("runAsGroup", psc.get("runAsGroup"))
        user = process["user"]
        if uid is not None:
            user["uid"] = uid
        if gid is not None:
            user["gid"] = gid
        if psc.get("fsGroup") is not None:
            user["additionalGids"] = [psc["fsGroup"]]
        if "ALL" in ((sc.get("capabilities") or {}).get("drop") or []):
            process["capabilities"] = {kind: [] for kind in ("bounding", "effective", "inheritable", "permitted",
                                                            "ambient")}
        process["noNewPrivileges"] = sc.get("allowPrivilegeEscalation") is False
        env = {e["name"]: e["value"] for e in self.container.get("env") or [] if "value" in e}
        process["env"] = [*process["env"], *(f"{k}={v}" for k, v in {**env, **self.env}.items())]
        cfg["root"] = {"path": str(self.bundle / "rootfs"), "readonly": bool(sc.get("readOnlyRootFilesystem"))}
        cfg["linux"]["namespaces"] = [ns for ns in cfg["linux"]["namespaces"] if ns["type"] != "network"]
        cfg["mounts"] = [*cfg["mounts"], *self._volume_mounts()]
        memory = ((self.container.get("resources") or {}).get("limits") or {}).get("memory")
        if memory:
            cfg["linux"].setdefault("resources", {})["memory"] = {"limit": _quantity(memory)}
        cfg["hostname"] = "external-dns"
        return dict(cfg)

    @property
    def tmp(self) -> Path:
        """The host side of the pod's /tmp emptyDir."""
        return self.workdir / "tmp"

    def _volume_mounts(self) -> list[dict[str, Any]]:
        out = []
        for mount in self.container.get("volumeMounts") or []:
            assert mount["name"] == "tmp" and mount["mountPath"] == "/tmp", f"unexpected volume mount {mount}"
            self.tmp.mkdir(exist_ok=True)
            self.tmp.chmod(0o1777)  # an emptyDir is world-writable
            out.append({"destination": "/tmp", "type": "bind", "source": str(self.tmp),
                        "options": ["rbind", "rw", "nosuid", "nodev"]})
        for dest, src in self.mounts.items():
            out.append({"destination": dest, "type": "bind", "source": str(src),
                        "options": ["rbind", "ro", "nosuid", "nodev", "noexec"]})
        return out

    def _write(self, args: Sequence[str] | None, command: Sequence[str] | None) -> tuple[Path, str]:
        bundle = Path(tempfile.mkdtemp(prefix="bundle-", dir=self.workdir))
        (bundle / "config.json").write_text(json.dumps(self.config(args, command)))
        return bundle, f"edns-test-{os.getpid()}-{next(_ids)}"

    def run(self, args: Sequence[str] | None = None, command: Sequence[str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        bundle, cid = self._write(args, command)
        try:
            return subprocess.run(["runc", "run", "--bundle", str(bundle), cid], capture_output=True, text=True,
                                  timeout=timeout, check=False, stdin=subprocess.DEVNULL)
        finally:
            _delete(cid)

    @contextlib.contextmanager
    def start(self, args: Sequence[str] | None = None) -> Iterator[Running]:
        bundle, cid = self._write(args, None)
        log = open(self.workdir / f"{cid}.log", "w+b")  # noqa: SIM115 - read back after the process ends
        proc = subprocess.Popen(["runc", "run", "--bundle", str(bundle), cid], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        running = Running(cid, proc, log)
        try:
            yield running
        finally:
            if proc.poll() is None:
                running.signal(signal.SIGKILL)
                proc.wait(timeout=30)
            log.close()
            _delete(cid)


@dataclass
class Running:
    """A started container: its id, the `runc run` process (its exit code is the container's) and its log."""

    cid: str
    proc: subprocess.Popen[bytes]
    log_file: Any

    def signal(self, sig: signal.Signals) -> None:
        subprocess.run(["runc", "kill", self.cid, sig.name], check=False, capture_output=True, timeout=30)

    def output(self) -> str:
        self.log_file.flush()
        self.log_file.seek(0)
        return str(self.log_file.read().decode(errors="replace"))

    def init_status(self) -> dict[str, str]:
        """/proc/<pid>/status of the container's first process, as the host sees it."""
        state = json.loads(subprocess.run(["runc", "state", self.cid], capture_output=True, text=True,
                                          check=True, timeout=30).stdout)
        text = Path(f"/proc/{state['pid']}/status").read_text()
        return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM, as the kubelet sends it; the exit code."""
        self.signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)


def _quantity(text: str) -> int:
    """A Kubernetes memory quantity in bytes (binary suffixes, as the chart uses)."""
    for suffix, factor in (("Ki", 1 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30)):
        if text.endswith(suffix):
            return int(text[: -len(suffix)]) * factor
    return int(text)


def _delete(cid: str) -> None:
    subprocess.run(["runc", "delete", "--force", cid], check=False, capture_output=True, timeout=30)
