"""image/oci.py, the OCI layout writer, on small trees (no root, no image needed): the same tree gives the same
digest whatever its files' times, owners and group/other write bits; tar entries are sorted, numeric, with one
file time, the config's `created` from SOURCE_DATE_EPOCH; the gzip stream carries no name or time; layers
partition the tree; the layer cache gives back the same blobs; set-uid files, device nodes and paths in no
layer are refused."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tarfile
from pathlib import Path
from typing import Any

import pytest

from image import oci

EPOCH = 1_700_000_000


def _spec(**kw: object) -> oci.ImageSpec:
    base: dict[str, object] = {"epoch": EPOCH, "user": "65532:65532", "entrypoint": ["external-dns"],
                               "env": {"PATH": "/usr/bin"}, "labels": {"org.opencontainers.image.version": "1"},
                               "exposed_ports": ["7979/tcp"], "owners": {"home/nonroot": (65532, 65532)}}
    base.update(kw)
    return oci.ImageSpec(**base)  # type: ignore[arg-type]


LAYERS = [oci.Layer("base", lambda p: not p.startswith("opt/")), oci.Layer("app", lambda p: p.startswith("opt/app"))]


def _tree(root: Path) -> Path:
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/tool").write_text("#!/usr/bin/python3\n")
    (root / "usr/bin/tool").chmod(0o775)
    (root / "usr/share").mkdir()
    (root / "usr/share/data").write_bytes(b"x" * 5000)
    os.link(root / "usr/share/data", root / "usr/share/data-link")
    (root / "bin").symlink_to("usr/bin")
    (root / "tmp").mkdir()
    (root / "home/nonroot").mkdir(parents=True)
    (root / "opt/app/lib").mkdir(parents=True)
    (root / "opt/app/lib/mod.py").write_text("print('hi')\n")
    (root / "opt/app/lib/mod.py").chmod(0o664)
    return root


def _members(layout: Path, digest: str) -> list[tarfile.TarInfo]:
    with tarfile.open(layout / "blobs/sha256" / digest.split(":")[1], "r:gz") as tar:
        return tar.getmembers()


def _manifest(layout: Path) -> dict[str, Any]:
    index = json.loads((layout / "index.json").read_text())
    digest = index["manifests"][0]["digest"].split(":")[1]
    data: dict[str, Any] = json.loads((layout / "blobs/sha256" / digest).read_bytes())
    return data


def _written(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """The small tree's layout and its manifest."""
    layout = tmp_path / "out"
    oci.write_layout(_tree(tmp_path / "root"), layout, _spec(), LAYERS, "1")
    return layout, _manifest(layout)


def test_same_tree_same_digest_whatever_the_files_times_and_write_bits(tmp_path: Path) -> None:
    first = oci.write_layout(_tree(tmp_path / "a"), tmp_path / "out-a", _spec(), LAYERS, "1")
    other = _tree(tmp_path / "b")
    os.utime(other / "usr/share/data", (1, 1))
    (other / "opt/app/lib/mod.py").chmod(0o644)  # only group write differs: masked
    second = oci.write_layout(other, tmp_path / "out-b", _spec(), LAYERS, "1")
    assert first == second
    assert sorted(os.listdir(tmp_path / "out-a/blobs/sha256")) == sorted(os.listdir(tmp_path / "out-b/blobs/sha256"))
    (other / "usr/share/data").write_bytes(b"y" * 5000)
    assert oci.write_layout(other, tmp_path / "out-c", _spec(), LAYERS, "1") != first


def test_entries_sorted_numeric_and_stamped(tmp_path: Path) -> None:
    layout, manifest = _written(tmp_path)
    layers = manifest["layers"]
    base = _members(layout, layers[0]["digest"])
    names = [m.name for m in base]
    assert names == sorted(names, key=os.fsencode)
    assert {m.mtime for m in base} == {oci.FILE_TIME}
    by_name = {m.name: m for m in base}
    assert (by_name["home/nonroot"].uid, by_name["home/nonroot"].gid) == (65532, 65532)
    assert {(m.uid, m.gid, m.uname, m.gname) for m in base if m.name != "home/nonroot"} == {(0, 0, "", "")}
    assert by_name["tmp"].mode == 0o1777 and by_name["usr/bin/tool"].mode == 0o755
    assert by_name["bin"].issym() and by_name["bin"].linkname == "usr/bin"
    assert by_name["usr/share/data-link"].islnk() and by_name["usr/share/data-link"].linkname == "usr/share/data"
    app = _members(layout, layers[1]["digest"])
    # the directories above a layer's paths come along, with the same headers as in the layer below
    assert [m.name for m in app] == ["opt", "opt/app", "opt/app/lib", "opt/app/lib/mod.py"]
    assert app[-1].mode == 0o644


def test_gzip_has_no_name_or_time_and_diff_ids_hash_the_tars(tmp_path: Path) -> None:
    layout, manifest = _written(tmp_path)
    config = json.loads((layout / "blobs/sha256" / manifest["config"]["digest"].split(":")[1]).read_bytes())
    layers = manifest["layers"]
    for layer, diff_id in zip(layers, config["rootfs"]["diff_ids"], strict=True):
        blob = (layout / "blobs/sha256" / layer["digest"].split(":")[1]).read_bytes()
        assert layer["size"] == len(blob) and hashlib.sha256(blob).hexdigest() == layer["digest"].split(":")[1]
        flags, mtime = blob[3], int.from_bytes(blob[4:8], "little")
        assert (flags & 0x08, mtime) == (0, 0)  # no FNAME, no MTIME
        assert f"sha256:{hashlib.sha256(gzip.decompress(blob)).hexdigest()}" == diff_id
    assert config["config"]["User"] == "65532:65532" and config["config"]["ExposedPorts"] == {"7979/tcp": {}}
    assert config["created"] == "2023-11-14T22:13:20Z"
    index = json.loads((layout / "index.json").read_text())
    assert index["manifests"][0]["annotations"] == {"org.opencontainers.image.ref.name": "1"}
    assert json.loads((layout / "oci-layout").read_text()) == {"imageLayoutVersion": "1.0.0"}


def test_a_rebuild_leaves_only_its_own_blobs(tmp_path: Path) -> None:
    root = _tree(tmp_path / "root")
    layout = tmp_path / "out"
    oci.write_layout(root, layout, _spec(), LAYERS, "1")
    (root / "opt/app/lib/mod.py").write_text("print('changed')\n")
    oci.write_layout(root, layout, _spec(), LAYERS, "1")
    manifest = _manifest(layout)
    config_ref, layers = manifest["config"], manifest["layers"]
    index = json.loads((layout / "index.json").read_text())
    wanted = {d.split(":")[1] for d in (config_ref["digest"], index["manifests"][0]["digest"],
                                        *(layer["digest"] for layer in layers))}
    assert set(os.listdir(layout / "blobs/sha256")) == wanted


def test_the_layer_cache_gives_the_same_blobs_and_keeps_only_the_last_builds(tmp_path: Path) -> None:
    root = _tree(tmp_path / "root")
    cache = tmp_path / "cache"
    first = oci.write_layout(root, tmp_path / "o1", _spec(), LAYERS, "1", cache)
    kept = set(os.listdir(cache))
    assert len(kept) == 2
    assert oci.write_layout(root, tmp_path / "o2", _spec(), LAYERS, "1", cache) == first  # from the cache
    assert oci.write_layout(root, tmp_path / "o3", _spec(), LAYERS, "1") == first  # without it
    (root / "opt/app/lib/mod.py").write_text("print('changed')\n")
    oci.write_layout(root, tmp_path / "o4", _spec(), LAYERS, "1", cache)
    now = set(os.listdir(cache))
    assert len(now) == 2 and len(now & kept) == 1  # the base layer kept, the old app layer dropped


def test_refuses_setuid_files_devices_and_unplaced_paths(tmp_path: Path) -> None:
    root = _tree(tmp_path / "root")
    (root / "usr/bin/tool").chmod(0o4755)
    with pytest.raises(ValueError, match="set-uid"):
        oci.write_layout(root, tmp_path / "o1", _spec(), LAYERS, "1")
    (root / "usr/bin/tool").chmod(0o755)
    os.mkfifo(root / "usr/fifo")
    with pytest.raises(ValueError, match="only directories, files and symlinks"):
        oci.write_layout(root, tmp_path / "o2", _spec(), LAYERS, "1")
    (root / "usr/fifo").unlink()
    (root / "opt/other").mkdir()
    with pytest.raises(ValueError, match="paths in no layer"):
        oci.write_layout(root, tmp_path / "o3", _spec(), LAYERS, "1")
