"""Hostile manifest input: special files, size caps, YAML alias bombs, deep nesting, huge values."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
import structlog.testing

from external_dns.sources import manifest
from external_dns.sources.manifest import ManifestReadError, ManifestSource


def _expect_unreadable(directory: Path, words: str) -> None:
    src = ManifestSource(directory)
    with pytest.raises(ManifestReadError):
        src.endpoints()
    assert any(words in p.message for p in src.problems), [str(p) for p in src.problems]


def test_symlink_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    _expect_unreadable(tmp_path, "not a regular file")


def test_fifo_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _expect_unreadable(tmp_path, "not a regular file")
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        done.set()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    assert done.wait(timeout=10), "reading a FIFO blocked"
    assert errors == []


def test_symlink_to_regular_file_is_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "real.yml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    (tmp_path / "link.yaml").symlink_to(data / "real.yml")  # how ConfigMap volumes look
    assert ManifestSource(tmp_path).endpoints() == []


def test_file_over_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifest, "MAX_FILE_BYTES", 1000)
    (tmp_path / "big.yaml").write_text("# " + "x" * 2000 + "\n")
    _expect_unreadable(tmp_path, "over the limit")


def test_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    bomb = "\n".join(lines)
    (tmp_path / "bomb.yaml").write_text(bomb + "\n")
    _expect_unreadable(tmp_path, "alias")


def test_alias_bomb_as_a_field_value_is_never_expanded(tmp_path: Path) -> None:
    # An aliased structure (below the expansion cap) used as metadata.name, a wrong type: the problem names
    # the field with a bounded value instead of repr()-ing the whole expansion.
    anchors = "anchors:\n  x0: &x0 [a, a, a, a, a, a, a, a]\n"
    for i in range(1, 5):
        anchors += f"  x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 8) + "]\n"
    (tmp_path / "svc.yaml").write_text(
        anchors + "apiVersion: v1\nkind: Service\nmetadata:\n  name: [*x4, *x4]\nspec: {type: LoadBalancer}\n")
    src = ManifestSource(tmp_path)
    src.endpoints()
    [problem] = src.problems
    assert problem.field == "metadata.name" and len(problem.value) < 400


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text("a: &x " + "[" * 500 + "]" * 500 + "\n")
    _expect_unreadable(tmp_path, "nested")
    (tmp_path / "deep.yaml").unlink()
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    _expect_unreadable(tmp_path, "nested too deeply")


def test_huge_integer_is_a_parse_error(tmp_path: Path) -> None:
    (tmp_path / "n.json").write_text('{"a": ' + "9" * 10_000 + "}")
    _expect_unreadable(tmp_path, "invalid JSON")


def test_big_annotation_is_logged_once_and_truncated(tmp_path: Path) -> None:
    value = "y" * 5_000_000
    (tmp_path / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n"
        f"    external-dns.kubernetes.io/hostname: {value}\n"
        "spec: {type: LoadBalancer}\nstatus: {loadBalancer: {ingress: [{ip: 192.0.2.1}]}}\n")
    with structlog.testing.capture_logs() as logs:
        eps = ManifestSource(tmp_path).endpoints()
    assert eps == []
    text = repr(logs)
    assert len(text) < 20_000, len(text)
    assert sum(1 for entry in logs if "yyyy" in repr(entry)) == 1
