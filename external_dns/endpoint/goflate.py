"""DEFLATE exactly as Go's `compress/flate` writes it at BestCompression (level 9), for encrypted ownership TXT.

external-dns deletes an encrypted ownership TXT by rebuilding its value from the decrypted labels and the stored
nonce: gzip (Go's writer, level 9, one Write, Flush, Close), then AES-GCM. Go's deflate makes other choices than
zlib's (match search, lazy matching, block type), so a value zlib compressed is a value Go cannot rebuild, and
Go would leave it behind. This module makes the bytes Go's writer makes, so Go can remove what we wrote.

The algorithm, as Go's package implements it (facts from its documentation and source; the code is our own):
- LZ77 over a 64 KiB window sliding by 32 KiB, hash chains of 4-byte prefixes (17-bit multiplicative hash),
  matches of 4 to 258 bytes (3-byte matches only within 4 KiB), lazy evaluation: a match is emitted only when
  the match at the next byte is not longer; level 9 searches up to 4,096 chain entries (a quarter once a
  match of 32 is held) and stops at 258.
- A block ends at 16,384 tokens or at a flush; each block is written in the smallest of fixed Huffman, dynamic
  Huffman (Go's length-limited code construction, ties broken by symbol) and stored.
- Flush adds an empty stored block (sync marker); Close adds an empty final stored block.

Speed is not a goal here: labels are tens of bytes, and a value is compressed only when written.
"""

from __future__ import annotations

import functools
import itertools
import struct
import zlib
from bisect import bisect_right
from collections.abc import Sequence

# -- the level-9 parameters and the window -------------------------------------------------------------------
_GOOD, _LAZY, _NICE, _CHAIN = 32, 258, 258, 4096
_MIN_MATCH, _MAX_MATCH = 4, 258
_BASE_MATCH = 3  # lengths are coded from 3 (RFC 1951 3.2.5); the matcher emits 4 and longer
_FAR = 4096  # a match of the shortest length only this close
_WINDOW = 1 << 15
_WINDOW_MASK = _WINDOW - 1
_HASH_SHIFT = 32 - 17
_HASH_MUL = 0x1E35A7BD
_MAX_HASH_OFFSET = 1 << 24
_MAX_BLOCK_TOKENS = 1 << 14
_MAX_STORED = 65535
_NEVER = 0x7FFFFFFF  # Go's int32 maximum: "no block start" and the sentinel frequency

# -- tokens: a literal is its byte value; a match is 1 << 30 | (length - 3) << 22 | (distance - 1) -----------
_MATCH = 1 << 30
_LENGTH_SHIFT = 22
_OFFSET_MASK = (1 << _LENGTH_SHIFT) - 1
_END_BLOCK = 256

# RFC 1951 3.2.5: the length codes 257-285 and the distance codes 0-29, by base value (length - 3, distance - 1)
# and extra bits; length code 28 (258) is the exception to the pattern
_LENGTH_EXTRA = tuple([0] * 8 + [e for e in range(1, 6) for _ in range(4)] + [0])
_LENGTH_BASE = tuple([sum(1 << e for e in _LENGTH_EXTRA[:c]) for c in range(28)] + [255])
_OFFSET_EXTRA = tuple([0] * 4 + [(c - 2) // 2 for c in range(4, 30)])
_OFFSET_BASE = tuple(list(range(4)) + [(2 + c % 2) << (c - 2) // 2 for c in range(4, 30)])
_LENGTH_CODE = tuple(bisect_right(_LENGTH_BASE, x) - 1 for x in range(256))  # by length - 3
_CODEGEN_ORDER = (16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15)
_NUM_LITERALS, _NUM_OFFSETS, _NUM_CODEGENS = 286, 30, 19


def _offset_code(xoffset: int) -> int:
    return bisect_right(_OFFSET_BASE, xoffset) - 1


Code = tuple[int, int]  # (bit-reversed code, length in bits)


def _reverse(code: int, nbits: int) -> int:
    return int(format(code, f"0{nbits}b")[::-1], 2) if nbits else 0


_REVERSED = [[_reverse(code, nbits) for code in range(1 << nbits)] for nbits in range(16)]  # [bits][code]


def _fixed_literal_codes() -> list[Code]:
    """RFC 1951 3.2.6: 0-143 8 bits from 0x30, 144-255 9 bits from 0x190, 256-279 7 bits, 280-285 8 bits."""
    codes: list[Code] = []
    for sym in range(_NUM_LITERALS):
        if sym < 144:
            code, n = sym + 48, 8
        elif sym < 256:
            code, n = sym - 144 + 400, 9
        elif sym < 280:
            code, n = sym - 256, 7
        else:
            code, n = sym - 280 + 192, 8
        codes.append((_reverse(code, n), n))
    return codes


_FIXED_LITERALS = _fixed_literal_codes()
_FIXED_OFFSETS = [(_reverse(sym, 5), 5) for sym in range(_NUM_OFFSETS)]


# -- Huffman codes as Go builds them ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)  # labels of one cluster repeat their frequency profiles
def _bit_counts(freqs: tuple[int, ...], max_bits: int) -> tuple[int, ...]:
    """How many symbols get each code length (index = bits), for >= 3 symbols whose frequencies are given in
    increasing order: Go's level-by-level construction of a length-limited code (each level tracks its last
    node's frequency, the next leaf's and the next pair's from the level below)."""
    n = len(freqs)
    freq = (*freqs, _NEVER)
    max_bits = min(max_bits, n - 1)
    top = max_bits + 2
    last, next_char, next_pair, needed = [0] * top, [0] * top, [0] * top, [0] * top
    leaves = [[0] * top for _ in range(top)]  # leaves[level][j]: leaves left of the level-j ancestor
    for level in range(1, max_bits + 1):
        last[level], next_char[level] = freq[1], freq[2]
        next_pair[level] = _NEVER if level == 1 else freq[0] + freq[1]
        leaves[level][level] = 2
    needed[max_bits] = 2 * n - 4
    level = max_bits
    while True:
        char, pair = next_char[level], next_pair[level]
        if pair == _NEVER and char == _NEVER:  # this level has nothing left to take
            needed[level] = 0
            next_pair[level + 1] = _NEVER
            level += 1
            continue
        prev = last[level]
        if char < pair:  # a leaf
            row = leaves[level]
            k = row[level] + 1
            last[level], row[level], next_char[level] = char, k, freq[k]
        else:  # a pair from the level below, which must then make two more
            last[level] = pair
            leaves[level][:level] = leaves[level - 1][:level]
            needed[level - 1] = 2
        needed[level] -= 1
        if needed[level] == 0:
            if level == max_bits:
                break
            next_pair[level + 1] = prev + last[level]
            level += 1
        else:
            while needed[level - 1] > 0:
                level -= 1
    top_leaves = leaves[max_bits]
    if top_leaves[max_bits] != n:
        raise AssertionError("goflate: Huffman construction did not place every symbol")
    return (0, *(top_leaves[level] - top_leaves[level - 1] for level in range(max_bits, 0, -1)))


def _huffman(freq: dict[int, int], max_bits: int) -> dict[int, Code]:
    """Code per used symbol for the frequencies, as Go's encoder assigns them: the most frequent symbols get the
    shortest codes, codes of one length go to symbols in increasing order."""
    if len(freq) <= 2:  # one or two symbols: one bit each, in symbol order
        return {sym: (i, 1) for i, sym in enumerate(sorted(freq))}
    used = sorted((f, sym) for sym, f in freq.items())  # by frequency, then symbol
    counts = _bit_counts(tuple(f for f, _ in used), max_bits)
    codes: dict[int, Code] = {}
    code, end = 0, len(used)
    for nbits, count in enumerate(counts):
        code <<= 1
        if nbits == 0 or count == 0:
            continue
        for sym in sorted(sym for _f, sym in used[end - count:end]):
            codes[sym] = (_REVERSED[nbits][code], nbits)
            code += 1
        end -= count
    return codes


def _bit_length(codes: Sequence[Code] | dict[int, Code], freq: dict[int, int]) -> int:
    return sum(f * codes[sym][1] for sym, f in freq.items())


# -- the bit stream --------------------------------------------------------------------------------------------
_SPILL = 1 << 12  # bits held before whole bytes move to the output


class _Bits:
    """LSB-first bit output (RFC 1951 3.1.1) in one integer; `align` pads to a byte as Go's flush does."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.acc = 0
        self.nbits = 0

    def put(self, value: int, nbits: int) -> None:
        self.acc |= value << self.nbits
        self.nbits += nbits
        if self.nbits >= _SPILL:
            self.spill()

    def spill(self) -> None:
        """Move the whole bytes held to the output (the accumulator stays small)."""
        whole = self.nbits >> 3
        self.out += (self.acc & ((1 << (whole << 3)) - 1)).to_bytes(whole, "little")
        self.acc >>= whole << 3
        self.nbits -= whole << 3

    def align(self) -> None:
        nbytes = (self.nbits + 7) // 8
        self.out += self.acc.to_bytes(nbytes, "little")
        self.acc = self.nbits = 0

    def stored_header(self, length: int, final: bool) -> None:
        self.put(1 if final else 0, 3)
        self.align()
        self.put(length | (~length & 0xFFFF) << 16, 32)
        self.align()


def _codegen(lengths: Sequence[int]) -> tuple[list[int], dict[int, int]]:
    """RFC 1951 3.2.7's run-length form of the code lengths, as Go writes it: (symbols with their extra values
    inline, frequency per codegen symbol). Runs of a non-zero length: the length once, then 16 (3-6 repeats);
    runs of zeros: 18 (11-138), then 17 (3-10); what is left is written out."""
    out: list[int] = []
    freq: dict[int, int] = {}
    for size, run in itertools.groupby(lengths):
        count = len(list(run))
        if size:
            out.append(size)
            freq[size] = freq.get(size, 0) + 1
            count -= 1
            while count >= 3:
                n = min(6, count)
                out += (16, n - 3)
                freq[16] = freq.get(16, 0) + 1
                count -= n
        else:
            while count >= 11:
                n = min(138, count)
                out += (18, n - 11)
                freq[18] = freq.get(18, 0) + 1
                count -= n
            if count >= 3:
                out += (17, count - 3)
                freq[17] = freq.get(17, 0) + 1
                count = 0
        if count:
            out += [size] * count
            freq[size] = freq.get(size, 0) + count
    return out, freq


def _write_block(bits: _Bits, tokens: list[int], stored: bytes | None) -> None:
    """One non-final block of `tokens` in the smallest of fixed, dynamic and (when `stored` is given, the bytes
    the tokens stand for) stored form."""
    tokens = [*tokens, _END_BLOCK]
    lit_freq: dict[int, int] = {}
    off_freq: dict[int, int] = {}
    for t in tokens:
        if t < _MATCH:
            lit_freq[t] = lit_freq.get(t, 0) + 1
        else:
            sym = 257 + _LENGTH_CODE[(t - _MATCH) >> _LENGTH_SHIFT]
            lit_freq[sym] = lit_freq.get(sym, 0) + 1
            off = _offset_code(t & _OFFSET_MASK)
            off_freq[off] = off_freq.get(off, 0) + 1
    num_lit = max(lit_freq) + 1
    if not off_freq:  # a dynamic block needs one distance code even when nothing matched (counted in sizes too)
        off_freq[0] = 1
    num_off = max(off_freq) + 1
    lit_codes, off_codes = _huffman(lit_freq, 15), _huffman(off_freq, 15)
    storable = stored is not None and len(stored) <= _MAX_STORED
    extra = 0
    if storable:
        extra = sum(f * _LENGTH_EXTRA[sym - 257] for sym, f in lit_freq.items() if sym > 257)
        extra += sum(f * _OFFSET_EXTRA[sym] for sym, f in off_freq.items())
    fixed_size = 3 + _bit_length(_FIXED_LITERALS, lit_freq) + _bit_length(_FIXED_OFFSETS, off_freq) + extra
    lengths = ([lit_codes[s][1] if s in lit_codes else 0 for s in range(num_lit)]
               + [off_codes[s][1] if s in off_codes else 0 for s in range(num_off)])
    codegen, cg_freq = _codegen(lengths)
    cg_codes = _huffman(cg_freq, 7)
    num_cg = _NUM_CODEGENS
    while num_cg > 4 and _CODEGEN_ORDER[num_cg - 1] not in cg_freq:
        num_cg -= 1
    dynamic_size = (3 + 5 + 5 + 4 + 3 * num_cg + _bit_length(cg_codes, cg_freq)
                    + cg_freq.get(16, 0) * 2 + cg_freq.get(17, 0) * 3 + cg_freq.get(18, 0) * 7
                    + _bit_length(lit_codes, lit_freq) + _bit_length(off_codes, off_freq) + extra)
    if stored is not None and storable and (len(stored) + 5) * 8 < min(fixed_size, dynamic_size):
        bits.stored_header(len(stored), final=False)
        bits.out += stored
        return
    put = bits.put
    lits: Sequence[Code] | dict[int, Code]
    offs: Sequence[Code] | dict[int, Code]
    if dynamic_size < fixed_size:
        lits, offs = lit_codes, off_codes
        put(4 | (num_lit - 257) << 3 | (num_off - 1) << 8 | (num_cg - 4) << 13, 17)  # BFINAL 0, BTYPE 10, counts
        for sym in _CODEGEN_ORDER[:num_cg]:
            put(cg_codes[sym][1] if sym in cg_codes else 0, 3)
        k = 0
        while k < len(codegen):
            sym = codegen[k]
            put(*cg_codes[sym])
            if sym >= 16:
                k += 1
                put(codegen[k], (2, 3, 7)[sym - 16])
            k += 1
    else:
        lits, offs = _FIXED_LITERALS, _FIXED_OFFSETS
        put(2, 3)  # BFINAL 0, BTYPE 01
    acc, nbits = bits.acc, bits.nbits
    for t in tokens:
        if t < _MATCH:
            code, n = lits[t]
            acc |= code << nbits
            nbits += n
            continue
        xlength, xoffset = (t - _MATCH) >> _LENGTH_SHIFT, t & _OFFSET_MASK
        lcode, ocode = _LENGTH_CODE[xlength], _offset_code(xoffset)
        code, n = lits[257 + lcode]
        acc |= (code | (xlength - _LENGTH_BASE[lcode]) << n) << nbits  # the code, then its extra bits
        nbits += n + _LENGTH_EXTRA[lcode]
        code, n = offs[ocode]
        acc |= (code | (xoffset - _OFFSET_BASE[ocode]) << n) << nbits
        nbits += n + _OFFSET_EXTRA[ocode]
        if nbits >= _SPILL:
            bits.acc, bits.nbits = acc, nbits
            bits.spill()
            acc, nbits = bits.acc, bits.nbits
    bits.acc, bits.nbits = acc, nbits


# -- the matcher -----------------------------------------------------------------------------------------------
class _Compressor:
    """Go's level 4-9 compressor state at level 9: fed by `feed`, drained by `step(sync)`.

    Go inserts every position (but the last three of the input) into its hash chains exactly once, in order,
    and reads a chain only behind the position it is at; so the chains are built here as the bytes arrive:
    `links[p + hash_offset]` is the previous position with p's 4-byte hash, plus hash_offset (0: none), the
    value Go's chain holds for p when it is read."""

    def __init__(self, bits: _Bits) -> None:
        self.bits = bits
        self.window = bytearray(2 * _WINDOW)
        self.index = self.end = self.block_start = 0
        self.hashed = 0  # positions below this one are linked
        self.pending = False  # the byte before `index` is still to be emitted (lazy matching)
        self.length, self.offset = _MIN_MATCH - 1, 0
        self.chain_head = -1
        self.heads: dict[int, int] = {}  # hash -> latest linked position + hash_offset
        self.links: dict[int, int] = {}
        self.hash_offset = 1
        self.tokens: list[int] = []

    def feed(self, data: bytes) -> int:
        """Copy what fits into the window (sliding it by 32 KiB first when its end is near) and link the new
        positions; bytes taken."""
        if self.index >= 2 * _WINDOW - (_MIN_MATCH + _MAX_MATCH):
            self._slide()
        n = min(len(data), 2 * _WINDOW - self.end)
        self.window[self.end:self.end + n] = data[:n]
        self.end += n
        w, heads, links, base = self.window, self.heads, self.links, self.hash_offset
        for pos in range(self.hashed, self.end - (_MIN_MATCH - 1)):
            h = ((w[pos] << 24 | w[pos + 1] << 16 | w[pos + 2] << 8 | w[pos + 3]) * _HASH_MUL
                 & 0xFFFFFFFF) >> _HASH_SHIFT
            links[pos + base] = heads.get(h, 0)
            heads[h] = pos + base
        self.hashed = max(self.hashed, self.end - (_MIN_MATCH - 1))
        return n

    def _slide(self) -> None:
        self.window[:_WINDOW] = self.window[_WINDOW:]
        self.index -= _WINDOW
        self.end -= _WINDOW
        self.hashed -= _WINDOW
        self.block_start = self.block_start - _WINDOW if self.block_start >= _WINDOW else _NEVER
        self.hash_offset += _WINDOW
        oldest = self.hash_offset  # positions now below 0: never read again
        self.links = {k: v for k, v in self.links.items() if k >= oldest}
        if self.hash_offset > _MAX_HASH_OFFSET:  # Go rebases its stored positions (after 16 MiB)
            delta = self.hash_offset - 1
            self.hash_offset -= delta
            self.chain_head -= delta
            self.links = {k - delta: (v - delta if v > delta else 0) for k, v in self.links.items()}
            self.heads = {k: v - delta if v > delta else 0 for k, v in self.heads.items()}

    def _flush_block(self, index: int) -> None:
        if index > 0:
            stored = bytes(self.window[self.block_start:index]) if self.block_start <= index else None
            self.block_start = index
            _write_block(self.bits, self.tokens, stored)
        self.tokens = []

    def _find_match(self, pos: int, head: int, lookahead: int) -> tuple[int, int] | None:
        """The longest match (length, distance) for `pos` along the hash chain from `head`, longer than 3."""
        w, links, base = self.window, self.links, self.hash_offset
        look = min(_MAX_MATCH, lookahead)
        nice = min(_NICE, look)
        length, offset, found = _MIN_MATCH - 1, 0, False
        tries = _CHAIN >> 2 if length >= _GOOD else _CHAIN
        w_end = w[pos + length]
        min_index = pos - _WINDOW
        i = head
        while tries > 0:
            if w_end == w[i + length]:
                n = 0
                while n < look and w[i + n] == w[pos + n]:
                    n += 1
                if n > length and (n > _MIN_MATCH or pos - i <= _FAR):
                    length, offset, found = n, pos - i, True
                    if n >= nice:
                        break
                    w_end = w[pos + n]
            if i == min_index:  # Go's chain entry for it was overwritten by then: stop
                break
            i = links.get(i + base, 0) - base
            if i < min_index or i < 0:
                break
            tries -= 1
        return (length, offset) if found else None

    def step(self, sync: bool) -> None:
        """Turn the window's bytes into tokens; with `sync`, everything, writing out the block."""
        if self.end - self.index < _MIN_MATCH + _MAX_MATCH and not sync:
            return
        max_insert = self.end - (_MIN_MATCH - 1)
        w, links, base, tokens = self.window, self.links, self.hash_offset, self.tokens
        index, end, pending, length, offset = self.index, self.end, self.pending, self.length, self.offset
        chain_head = self.chain_head
        while True:
            lookahead = end - index
            if lookahead < _MIN_MATCH + _MAX_MATCH:
                if not sync:
                    break
                if lookahead == 0:
                    if pending:
                        tokens.append(w[index - 1])
                        pending = False
                    if tokens:
                        self._flush_block(index)
                        tokens = self.tokens
                    break
            if index < max_insert:
                chain_head = links.get(index + base, 0)
            prev_length, prev_offset = length, offset
            length, offset = _MIN_MATCH - 1, 0
            if (chain_head - base >= index - _WINDOW and chain_head - base >= 0 and lookahead > prev_length
                    and prev_length < _LAZY):
                found = self._find_match(index, chain_head - base, lookahead)
                if found is not None:
                    length, offset = found
            if prev_length >= _MIN_MATCH and length <= prev_length:
                # the match at the previous byte is at least as long: emit it; what it covers is linked already
                tokens.append(_MATCH | (prev_length - _BASE_MATCH) << _LENGTH_SHIFT | (prev_offset - 1))
                index += prev_length - 1
                pending = False
                length = _MIN_MATCH - 1
                if len(tokens) == _MAX_BLOCK_TOKENS:
                    self._flush_block(index)
                    tokens = self.tokens
            else:
                if pending:
                    tokens.append(w[index - 1])
                    if len(tokens) == _MAX_BLOCK_TOKENS:
                        self._flush_block(index)
                        tokens = self.tokens
                index += 1
                pending = True
        self.index, self.pending, self.length, self.offset = index, pending, length, offset
        self.chain_head = chain_head


def deflate(data: bytes) -> bytes:
    """The raw DEFLATE stream of Go's `flate.NewWriter(w, flate.BestCompression)` after one `Write(data)`, then
    `Flush()` and `Close()`."""
    bits = _Bits()
    comp = _Compressor(bits)
    view = memoryview(data)
    while view:  # Write: drain what can be drained, then take more
        comp.step(sync=False)
        view = view[comp.feed(bytes(view)):]
    comp.step(sync=True)  # Flush: the rest as a block, then the sync marker
    bits.stored_header(0, final=False)
    comp.step(sync=True)  # Close: nothing left, then the final empty block
    bits.stored_header(0, final=True)
    return bytes(bits.out)


_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # no name or time, XFL 2 (best compression), OS unknown


def gzip(data: bytes) -> bytes:
    """Go's `gzip.NewWriterLevel(w, gzip.BestCompression)` after one `Write(data)`, `Flush()`, `Close()`."""
    return _GZIP_HEADER + deflate(data) + struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
