"""The image's base: Debian bookworm's own packages, extracted by mmdebstrap and set up without a shell.

mmdebstrap's `extract` variant unpacks the packages and their dependencies but runs no maintainer script
(there is no shell to run them), so the few things those scripts do for us are done here, from the host:
the CA bundle and its hash links (ca-certificates' postinst), /etc/localtime (tzdata's), the users
(base-passwd's), nsswitch.conf (libc-bin's). The packages only maintainer scripts need (dpkg, tar, debconf,
an awk) are removed again with what only they pulled in, so no shell, package manager or interpreter other
than Python is left; /var/lib/dpkg/status lists what is there, for image scanners. Docs, man pages and
locales are not unpacked (copyright files are kept).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

SUITE = "bookworm"
# Roots of the package set; apt adds their dependencies. manylinux wheels take libstdc++ from the system
# (google-re2's extension links it).
PACKAGES = ("python3.11-minimal", "libpython3.11-stdlib", "ca-certificates", "netbase", "tzdata", "base-files",
            "libstdc++6")
# Install-time tools pulled in by dependencies (readline-common -> dpkg, tzdata -> debconf, base-files -> awk):
# removed again, with the libraries only they need.
INSTALL_ONLY = frozenset({"dpkg", "tar", "debconf", "mawk"})
MIRRORS = (
    f"deb http://deb.debian.org/debian {SUITE} main",
    f"deb http://deb.debian.org/debian {SUITE}-updates main",
    f"deb http://deb.debian.org/debian-security {SUITE}-security main",
)
DPKG_FILTER = (
    "path-exclude=/usr/share/doc/*",
    "path-include=/usr/share/doc/*/copyright",
    "path-exclude=/usr/share/man/*",
    "path-exclude=/usr/share/info/*",
    "path-exclude=/usr/share/locale/*",
    "path-exclude=/usr/share/lintian/*",
    "path-exclude=/usr/share/bug/*",
    # glibc's iconv modules (8 MB, 2.9 MB compressed): Python's codecs are its own and nothing here calls iconv
    "path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*",
)
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"
NONROOT = (65532, 65532)
PASSWD = ("root:x:0:0:root:/root:/usr/sbin/nologin\n"
          "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
          f"nonroot:x:{NONROOT[0]}:{NONROOT[1]}:nonroot:/home/nonroot:/usr/sbin/nologin\n")
GROUP = f"root:x:0:\nnogroup:x:65534:\nnonroot:x:{NONROOT[1]}:\n"
# libc-bin's template (its postinst installs it), without nis; glibc's built-in default asks DNS before files.
NSSWITCH = ("passwd: files\ngroup: files\nshadow: files\ngshadow: files\nhosts: files dns\nnetworks: files\n"
            "protocols: files\nservices: files\nethers: files\nrpc: files\n")
HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
# mmdebstrap's own set-up files and the host's copies it leaves behind; the runtime provides the last two.
LEFTOVERS = ("etc/apt", "var/lib/apt", "var/cache/apt", "var/log/apt", "etc/fstab", "etc/hostname",
             "etc/resolv.conf", "etc/dpkg")


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    control: str  # the deb's control paragraph
    deb: Path

    def depends(self) -> list[list[str]]:
        """Pre-Depends + Depends as alternatives groups of bare package names."""
        fields = dict(re.findall(r"^([\w-]+): (.*(?:\n .*)*)", self.control, re.M))
        text = ", ".join(v for k, v in fields.items() if k in ("Pre-Depends", "Depends"))
        groups = [[re.sub(r"[\s(:].*", "", alt.strip()) for alt in group.split("|")]
                  for group in text.split(",") if group.strip()]
        return [g for g in groups if all(g)]

    def provides(self) -> list[str]:
        m = re.search(r"^Provides: (.*)$", self.control, re.M)
        return [re.sub(r"[\s(].*", "", p.strip()) for p in m.group(1).split(",")] if m else []


def mmdebstrap(rootfs: Path, cache: Path, epoch: int, mirrors: tuple[str, ...] = MIRRORS) -> None:
    """Extracts PACKAGES and their dependencies into rootfs (a new directory). The .debs (cache/debs) and apt's
    lists (cache/apt-lists) are kept across builds: apt takes a cached .deb whose checksum matches, and its
    update of kept lists fetches only what changed (17 s -> 2 s here)."""
    debs, lists = cache / "debs", cache / "apt-lists"
    debs.mkdir(parents=True, exist_ok=True)
    lists.mkdir(parents=True, exist_ok=True)
    cmd = ["mmdebstrap", "--quiet", "--mode=root", "--variant=extract", f"--include={','.join(PACKAGES)}",
           # merged /usr, as debootstrap lays it out for bookworm
           '--setup-hook=for d in bin sbin lib lib64; do ln -s usr/$d "$1/$d"; mkdir -p "$1/usr/$d"; done',
           '--setup-hook=mkdir -p "$1"/var/cache/apt/archives "$1"/var/lib/apt/lists',
           f"--setup-hook=sync-in {debs} /var/cache/apt/archives/",
           f"--setup-hook=sync-in {lists} /var/lib/apt/lists/",
           "--skip=cleanup/apt", "--skip=essential/unlink",
           *(f"--dpkgopt={opt}" for opt in DPKG_FILTER),
           SUITE, str(rootfs), *mirrors]
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}
    subprocess.run(cmd, check=True, env=env, stdin=subprocess.DEVNULL)
    shutil.rmtree(lists)
    shutil.copytree(rootfs / "var" / "lib" / "apt" / "lists", lists, symlinks=True,
                    ignore=shutil.ignore_patterns("lock", "partial"))


def packages(rootfs: Path, cache: Path) -> list[Package]:
    """The packages mmdebstrap extracted (its apt cache); the .deb cache keeps these and only these."""
    debs = cache / "debs"
    archives = rootfs / "var" / "cache" / "apt" / "archives"
    found = []
    for deb in sorted(archives.glob("*.deb")):
        kept = debs / deb.name
        if not kept.exists():
            shutil.copy2(deb, kept)
        control = subprocess.run(["dpkg-deb", "--field", str(kept)], check=True, capture_output=True,
                                 text=True).stdout
        fields = dict(re.findall(r"^(Package|Version): (.*)$", control, re.M))
        found.append(Package(fields["Package"], fields["Version"], control.rstrip("\n"), kept))
    for old in set(debs.glob("*.deb")) - {p.deb for p in found}:
        old.unlink()
    return found


def runtime_closure(pkgs: list[Package]) -> list[Package]:
    """The packages PACKAGES need at run time: their dependency closure, not entering INSTALL_ONLY."""
    by_name = {p.name: p for p in pkgs}
    for p in pkgs:
        for virtual in p.provides():
            by_name.setdefault(virtual, p)
    keep: dict[str, Package] = {}
    todo = list(PACKAGES)
    while todo:
        pkg = by_name[todo.pop()]
        if pkg.name in keep or pkg.name in INSTALL_ONLY:
            continue
        keep[pkg.name] = pkg
        for group in pkg.depends():
            choices = [by_name[a] for a in group if a in by_name]
            if choices and not any(c.name in keep for c in choices):
                todo.append(choices[0].name)
    return sorted(keep.values(), key=lambda p: p.name)


def _members(deb: Path) -> list[tuple[str, bool]]:
    """(path, is_dir) of every entry of a .deb's data."""
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
        members = [(m.name.removeprefix("./").rstrip("/"), m.isdir()) for m in tar]
    if proc.wait() != 0:
        raise RuntimeError(f"dpkg-deb --fsys-tarfile {deb} failed")
    return [(name, is_dir) for name, is_dir in members if name and name != "."]


def prune(rootfs: Path, pkgs: list[Package], keep: list[Package]) -> None:
    """Removes what only the packages outside `keep` brought: their files, then their emptied directories."""
    kept_paths = {name for p in keep for name, _ in _members(p.deb)}
    dirs: set[str] = set()
    for pkg in pkgs:
        if pkg in keep:
            continue
        for name, is_dir in _members(pkg.deb):
            if name in kept_paths:
                continue
            if is_dir:
                dirs.add(name)
            elif (rootfs / name).is_symlink() or (rootfs / name).exists():
                (rootfs / name).unlink()
    for name in sorted(dirs, key=len, reverse=True):
        path = rootfs / name
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()


def write_status(rootfs: Path, keep: list[Package]) -> None:
    """/var/lib/dpkg/status with the kept packages as installed (what scanners read); nothing else of dpkg."""
    dpkg = rootfs / "var" / "lib" / "dpkg"
    shutil.rmtree(dpkg, ignore_errors=True)
    dpkg.mkdir(parents=True)
    paragraphs = []
    for pkg in keep:
        lines = pkg.control.split("\n")
        lines.insert(1, "Status: install ok installed")
        paragraphs.append("\n".join(lines))
    (dpkg / "status").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _symlink(path: Path, target: str) -> None:
    if path.is_symlink() or path.exists():
        path.unlink()
    path.symlink_to(target)


def ca_certificates(rootfs: Path) -> int:
    """What update-ca-certificates does on install: every Mozilla CA enabled, linked into /etc/ssl/certs under
    its name and its subject hash (the image's own `openssl rehash`), and concatenated into the bundle
    /etc/ssl/certs/ca-certificates.crt (OpenSSL's default file, /usr/lib/ssl/cert.pem, points there)."""
    share = rootfs / "usr" / "share" / "ca-certificates"
    certs = sorted(p.relative_to(share).as_posix() for p in share.glob("*/*.crt"))
    _write(rootfs / "etc" / "ca-certificates.conf", "".join(f"{c}\n" for c in certs))
    etc = rootfs / "etc" / "ssl" / "certs"
    etc.mkdir(parents=True, exist_ok=True)
    bundle = []
    for cert in certs:
        _symlink(etc / (Path(cert).stem + ".pem"), f"/usr/share/ca-certificates/{cert}")
        text = (share / cert).read_text(encoding="ascii")
        bundle.append(text if text.endswith("\n") else text + "\n")
    subprocess.run([CHROOT, str(rootfs), "/usr/bin/openssl", "rehash", "/etc/ssl/certs"], check=True,
                   env={"PATH": "/usr/bin"}, stdin=subprocess.DEVNULL)
    _write(etc / "ca-certificates.crt", "".join(bundle))
    return len(certs)


def configure(rootfs: Path) -> None:
    """The rest of what maintainer scripts and base packages would have set up."""
    etc = rootfs / "etc"
    _write(etc / "passwd", PASSWD)
    _write(etc / "group", GROUP)
    _write(etc / "hosts", HOSTS)
    _write(etc / "nsswitch.conf", NSSWITCH)
    _symlink(etc / "localtime", "/usr/share/zoneinfo/Etc/UTC")  # tzdata's postinst, default answer
    _write(etc / "timezone", "Etc/UTC\n")
    home = rootfs / "home" / "nonroot"
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o700)


def base(rootfs: Path, cache: Path, epoch: int) -> tuple[list[Package], int]:
    """The base root filesystem in rootfs: the packages kept and the number of CA certificates enabled."""
    mmdebstrap(rootfs, cache, epoch)
    pkgs = packages(rootfs, cache)
    keep = runtime_closure(pkgs)
    prune(rootfs, pkgs, keep)
    write_status(rootfs, keep)
    cas = ca_certificates(rootfs)
    configure(rootfs)
    return keep, cas


def finish(rootfs: Path) -> None:
    """After the last chroot step: mmdebstrap's leftovers, device nodes and scratch files removed."""
    for rel in LEFTOVERS:
        path = rootfs / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_symlink() or path.exists():
            path.unlink()
    dev = rootfs / "dev"  # the runtime mounts /dev; device nodes never go into a layer
    shutil.rmtree(dev)
    dev.mkdir(mode=0o755)
    for scratch in ("tmp", "var/tmp", "run"):
        shutil.rmtree(rootfs / scratch, ignore_errors=True)
        (rootfs / scratch).mkdir(mode=0o755, parents=True)
    (rootfs / "tmp").chmod(0o1777)
    (rootfs / "var" / "tmp").chmod(0o1777)
