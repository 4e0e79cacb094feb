# mypy: disable-error-code="no-untyped-call"
"""The CLI against hostile surroundings (issue 27, items 10 and 19), through the real `python -m external_dns`:
`--plan-output-file` onto a symlink, a FIFO or a device node writes through it and never replaces it; `apply
--policy` is honoured; a full disk names the file; Ctrl-C during `--once` ends with one line and exit 130; a
TSIG time refusal points at the clock."""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import dns.tsig
import pytest

from external_dns.providers.rfc2136 import RFC2136Config
from external_dns.providers.rfc2136.transport import Transport
from tests.cmd.test_plan_apply import OWNER, Env
from tests.helpers.cli import clean_env, run_cli

pytestmark = pytest.mark.integration


@pytest.fixture
def env(tmp_path: Path) -> Env:
    e = Env(tmp_path)
    e.hosts("example.org", 3)
    e.hosts("example.com", 3)
    e.once()
    return e


def plan_output(env: Env, path: Path | str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    return env.once("--dry-run", f"--plan-output-file=json={path}", expect=expect)


# -- item 10: --plan-output-file never replaces what it writes to ----------------------------------------------------
def test_a_symlink_is_written_through(env: Env) -> None:
    target = env.tmp / "real" / "plan.json"
    target.parent.mkdir()
    target.write_text("old")
    link = env.tmp / "plan.json"
    link.symlink_to(target)
    plan_output(env, link)
    assert link.is_symlink() and '"zones"' in target.read_text()
    dangling = env.tmp / "later.json"
    dangling.symlink_to(env.tmp / "real" / "later.json")  # a link to a file still to be made: made there
    plan_output(env, dangling)
    assert dangling.is_symlink() and '"zones"' in (env.tmp / "real" / "later.json").read_text()


def test_a_fifo_is_written_into_and_kept(env: Env) -> None:
    fifo = env.tmp / "plan.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    time.sleep(0.2)  # the reader has the FIFO open
    try:
        plan_output(env, fifo)
        reader.join(30)
    finally:
        if reader.is_alive():  # nothing was written into the FIFO: release the reader (EOF)
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            reader.join(5)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and b'"zones"' in got[0]
    # no reader: refused at once, naming the file (the run does not wait for one)
    proc = plan_output(env, fifo, expect=1)
    assert str(fifo) in proc.stderr and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_device_node_is_written_into_and_kept(env: Env) -> None:
    """As root the rename put a regular file where /dev/null was. A node made here, like /dev/null (1, 3), and
    like /dev/full (1, 7) for a full disk, whose error names the file."""
    if os.geteuid() != 0:  # mknod needs root: a FIFO is the same path (not a regular file)
        fifo = env.tmp / "null"
        os.mkfifo(fifo)
        assert plan_output(env, fifo, expect=1).returncode == 1 and stat.S_ISFIFO(os.lstat(fifo).st_mode)
        return
    null, full = env.tmp / "null", env.tmp / "full"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    plan_output(env, null)
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    proc = plan_output(env, full, expect=1)
    assert f"No space left on device: '{full}'" in proc.stderr and stat.S_ISCHR(os.lstat(full).st_mode)


def test_stdout_is_written_into_not_replaced(env: Env, tmp_path: Path) -> None:
    """A name of the process's stdout (as /dev/stdout is: a link to /proc/self/fd/1), made here: never the
    system's /dev/stdout, which the code before the fix replaced by a regular file (as root)."""
    out = tmp_path / "out.json"
    stdout = tmp_path / "stdout"
    stdout.symlink_to("/proc/self/fd/1")
    with open(out, "w") as fh:
        fh.write("before\n")
        fh.flush()
        proc = subprocess.run([sys.executable, "-m", "external_dns", "--once", "--dry-run",
                               f"--plan-output-file=json={stdout}", *env.flags()], stdout=fh,
                              stderr=subprocess.PIPE, text=True, env=clean_env(), timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("before\n") and '"zones"' in text and stdout.is_symlink()


# -- item 19 ---------------------------------------------------------------------------------------------------------
def test_apply_honours_the_policy(env: Env) -> None:
    env.hosts("example.org", 2)  # h02 deleted
    env.hosts("example.com", 4)  # h03 created
    plan = env.tmp / "plan.json"
    run_cli(["plan", *env.flags(f"--plan-file={plan}")])
    proc = run_cli(["apply", str(plan), "--provider=zonefile", f"--zonefile-dir={env.zones}",
                    f"--txt-owner-id={OWNER}", "--policy=upsert-only"])
    assert "apply --policy=upsert-only: changes of the plan left out" in proc.stderr
    assert "h02.example.org" in env.names("example.org")  # the sync plan's delete is not applied
    assert "h03.example.com" in env.names("example.com")
    run_cli(["apply", str(plan), "--provider=zonefile", f"--zonefile-dir={env.zones}", f"--txt-owner-id={OWNER}",
             "--policy=upsert-all"], expect=2)


def test_a_full_disk_names_the_zone_file(env: Env, tmp_path: Path) -> None:
    """The zone file's write fails on a descriptor (ENOSPC): the error says which file."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import errno, os\n_real = os.fsync\n"
        "def _full(fd):\n    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))\nos.fsync = _full\n")
    env.hosts("example.org", 4)
    proc = run_cli(["--once", *env.flags()], env={"PYTHONPATH": f"{hook}:{Path(__file__).resolve().parents[2]}"},
                   expect=1)
    assert f"No space left on device (writing zone file): '{env.zones / 'example.org.zone'}'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ctrl_c_during_once_ends_without_a_traceback(env: Env) -> None:
    """The run waits on the zone file's lock, held here; SIGINT then ends it with one line and exit 130."""
    env.hosts("example.org", 4)
    lock = os.open(env.zones / ".example.org.zone.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "external_dns", "--once", *env.flags()],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _waits_on(proc.pid, env.zones):
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        os.close(lock)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted (SIGINT)" in err


def _waits_on(pid: int, zones: Path) -> bool:
    """Whether the process has the zone file's lock file open (it is waiting for the lock)."""
    try:
        return any(os.readlink(fd) == str(zones / ".example.org.zone.lock") for fd in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:  # a descriptor closed while listed
        return False


def test_badtime_points_at_the_clock() -> None:
    t = Transport(RFC2136Config(hosts=("127.0.0.1",), port=53, zones=("example.org",), tsig_keyname="k",
                                tsig_secret="c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI="))
    for exc in (dns.tsig.PeerBadTime(), dns.tsig.BadTime()):
        text = str(t.describe_tsig_failure("127.0.0.1", exc, "zone example.org"))
        assert "clock" in text and "300 seconds" in text and "--rfc2136-tsig-secret" not in text
    assert "--rfc2136-tsig-secret" in str(t.describe_tsig_failure("127.0.0.1", dns.tsig.PeerBadKey(), "zone x"))

