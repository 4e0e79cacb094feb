"""goflate against Go itself: a tiny Go program (tests/endpoint/gogzip, standard library only) is built here and
compresses the same bytes with Go's gzip writer as external-dns does before it encrypts an ownership TXT; the
bytes must be the same, for label texts drawn by hypothesis and for inputs that reach every part of the encoder
(stored, fixed and dynamic blocks, long matches, full 16,384-token blocks, the window sliding)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.endpoint import goflate

pytestmark = pytest.mark.integration

SOURCE = Path(__file__).with_name("gogzip")


class GoGzip:
    """The Go program, kept running: one line of hex in, one line of hex out."""

    def __init__(self, binary: Path) -> None:
        self.proc = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def gzip(self, data: bytes) -> bytes:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(data.hex() + "\n")
        self.proc.stdin.flush()
        return bytes.fromhex(self.proc.stdout.readline().strip())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def go_gzip(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GoGzip]:
    go = shutil.which("go")
    if go is None:
        if os.environ.get("CI") == "true":
            pytest.fail("go is not installed: CI builds the Go peers with it", pytrace=False)
        pytest.skip("go is not installed")
    out = tmp_path_factory.mktemp("gogzip") / "gogzip"
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
    build = subprocess.run([go, "build", "-o", str(out), "."], cwd=SOURCE, env=env, capture_output=True,
                           text=True, timeout=300, check=False)
    assert build.returncode == 0, build.stderr
    peer = GoGzip(out)
    yield peer
    peer.close()


LABEL_KEYS = ("heritage", "external-dns/owner", "external-dns/resource", "external-dns/aws/weight",
              "external-dns/set-identifier", "external-dns/target")
VALUE = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-./:=", max_size=80)


@st.composite
def label_texts(draw: st.DrawFn) -> str:
    """Ownership label texts as the TXT registry serialises them: `heritage=external-dns,key=value,...`."""
    pairs = draw(st.lists(st.tuples(st.sampled_from(LABEL_KEYS), VALUE), max_size=6))
    return ",".join(["heritage=external-dns", *(f"{k}={v}" for k, v in pairs)])


@settings(max_examples=400, deadline=None)
@given(text=label_texts())
def test_label_texts_compress_to_gos_bytes(go_gzip: GoGzip, text: str) -> None:
    data = text.encode()
    assert goflate.gzip(data) == go_gzip.gzip(data)


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(st.binary(max_size=600), st.text(max_size=300).map(str.encode),
                      st.lists(st.sampled_from([b"a", b"ab", b"abc", b"external-dns", b"\x00", b"/"]),
                               max_size=400).map(b"".join)))
def test_any_bytes_compress_to_gos_bytes(go_gzip: GoGzip, data: bytes) -> None:
    out = goflate.gzip(data)
    assert out == go_gzip.gzip(data)
    assert zlib.decompress(out, 16 + zlib.MAX_WBITS) == data


def _letters(n: int, alphabet: bytes, seed: int) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.choice(alphabet) for _ in range(n))


@pytest.mark.parametrize("data", [
    b"",
    os.urandom(70_000),  # stored blocks of 16,384 literals; the window slides once
    b"x" * 70_000,  # 258-byte matches at distance 1, one hash value
    _letters(100_000, b"abcdefghijklmnop", 1),  # dynamic blocks of 16,384 tokens, short matches, a slide
    bytes(range(256)) * 800,  # several slides, every match 256 back
], ids=["empty", "random-70k", "one-byte-70k", "16-letters-100k", "all-bytes-200k"])
def test_large_inputs_compress_to_gos_bytes(go_gzip: GoGzip, data: bytes) -> None:
    assert goflate.gzip(data) == go_gzip.gzip(data)
