"""The manifest source's directory walk (issue 27, item 8): a directory or sub-directory that cannot be listed
fails the read (it read as empty, and `sync` deleted everything its files described); a symlinked directory is
followed (it was silently skipped), each real directory once, so a link back up the tree ends; a symlink that
leads nowhere fails the read. Permission errors are real: as root, the read runs in a forked child that drops to
`nobody`."""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
import yaml

from external_dns.sources.manifest import ManifestReadError, ManifestSource
from tests.sources.helpers import dnsendpoint

NOBODY = 65534


def record(name: str, host: str) -> dict[str, Any]:
    obj = dnsendpoint(endpoints=[{"dnsName": host, "recordType": "A", "targets": ["192.0.2.1"]}])
    obj["metadata"]["name"] = name
    return obj


def write(path: Path, *docs: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(list(docs)))


@pytest.fixture
def shared_dir() -> Generator[Path, None, None]:
    """A directory an unprivileged user can reach (pytest's tmp_path sits under a root-only directory)."""
    path = Path(tempfile.mkdtemp(prefix="manifests-"))
    path.chmod(0o755)
    yield path
    for root, dirs, _files in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    shutil.rmtree(path)


def unprivileged(read: Callable[[], object]) -> object:
    """`read()` in a forked child without root's rights (the exception it raised, or its result)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, run, report, leave without running any cleanup of the parent
        code = 0
        try:
            os.close(rfd)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            try:
                out: object = read()
            except Exception as exc:  # handed to the parent, which asserts on it
                out = exc
            with os.fdopen(wfd, "wb") as pipe:
                pickle.dump(out, pipe)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and data, "the child failed"
    return pickle.loads(data)


def dns_names(directory: Path) -> list[str]:
    return sorted(e.dns_name for e in ManifestSource(directory).endpoints())


def test_an_unreadable_sub_directory_fails_the_read(shared_dir: Path) -> None:
    write(shared_dir / "top.yaml", record("top", "top.example.org"))
    write(shared_dir / "team" / "app.yaml", record("app", "app.example.org"))
    assert unprivileged(lambda: dns_names(shared_dir)) == ["app.example.org", "top.example.org"]
    (shared_dir / "team").chmod(0o311)  # can be entered, not listed
    got = unprivileged(lambda: dns_names(shared_dir))
    assert isinstance(got, ManifestReadError), got
    assert f"{shared_dir / 'team'}: cannot read directory: Permission denied" in str(got)


def test_an_unreadable_manifest_directory_fails_the_read(shared_dir: Path) -> None:
    write(shared_dir / "top.yaml", record("top", "top.example.org"))
    shared_dir.chmod(0o311)
    got = unprivileged(lambda: dns_names(shared_dir))
    assert isinstance(got, ManifestReadError) and "cannot read directory" in str(got), got


def test_symlinked_directories_are_followed_once(tmp_path: Path) -> None:
    write(tmp_path / "real" / "a.yaml", record("a", "a.example.org"))
    write(tmp_path / "manifests" / "b.yaml", record("b", "b.example.org"))
    (tmp_path / "manifests" / "linked").symlink_to(tmp_path / "real")  # e.g. a mounted volume's layout
    (tmp_path / "real" / "up").symlink_to(tmp_path / "manifests")  # a cycle back up
    (tmp_path / "manifests" / "again").symlink_to(tmp_path / "real")  # the same directory twice
    source = ManifestSource(tmp_path / "manifests")
    assert sorted(e.dns_name for e in source.endpoints()) == ["a.example.org", "b.example.org"]
    assert source.problems == []


@pytest.mark.parametrize("target", ["missing", "loop"])
def test_a_symlink_that_leads_nowhere_fails_the_read(tmp_path: Path, target: str) -> None:
    write(tmp_path / "b.yaml", record("b", "b.example.org"))
    link = tmp_path / "team"
    link.symlink_to(tmp_path / target if target == "missing" else link)  # dangling, or a link to itself
    with pytest.raises(ManifestReadError, match="team: cannot follow symlink"):
        ManifestSource(tmp_path).endpoints()
