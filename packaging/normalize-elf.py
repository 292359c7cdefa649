#!/usr/bin/env python3
"""Makes a stripped geo binary the same bytes wherever it was built, in place.

Usage: normalize-elf.py FILE

A release build's debug information names the folder it was built in. Stripping removes it,
but two things computed from it stay:
- .swift_modhash: a hash of each module's LLVM IR, which only the compiler reads (to skip code
  generation in an incremental build). Its bytes are zeroed; the section stays, since removing
  an allocated section makes strip drop the binary's GNU_RELRO segment.
- the GNU build ID, which the linker hashed from the whole output. It is set to a hash of the
  file itself (the ID's own bytes zeroed), so it still names this content uniquely for
  debuggers and crash reports.
"""

import hashlib
import struct
import sys

def sections(elf: bytes) -> dict:
    """Each section's name and (file offset, size), in a 64-bit little-endian ELF file."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4]
    named = {}
    for name, _type, _flags, _addr, offset, size in headers:
        start = names_offset + name
        named[elf[start:elf.index(b"\0", start)].decode()] = (offset, size)
    return named


def build_id_range(elf: bytes, named: dict) -> tuple[int, int]:
    """Offset and length of the build ID's bytes (the note's descriptor)."""
    if ".note.gnu.build-id" not in named:
        raise ValueError("no .note.gnu.build-id section")
    offset, _ = named[".note.gnu.build-id"]
    namesz, descsz = struct.unpack_from("<II", elf, offset)
    return offset + 12 + (namesz + 3) // 4 * 4, descsz


def main() -> int:
    path = sys.argv[1]
    elf = bytearray(open(path, "rb").read())
    try:
        named = sections(elf)
        start, length = build_id_range(elf, named)
    except ValueError as error:
        print(f"normalize-elf.py: {path}: {error}", file=sys.stderr)
        return 1
    if ".swift_modhash" in named:
        offset, size = named[".swift_modhash"]
        elf[offset:offset + size] = bytes(size)
    elf[start:start + length] = bytes(length)
    digest = hashlib.sha256(elf).digest()
    if length > len(digest):
        print(f"normalize-elf.py: {path}: a {length}-byte build ID is longer than SHA-256", file=sys.stderr)
        return 1
    elf[start:start + length] = digest[:length]
    open(path, "wb").write(elf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
