#!/usr/bin/env python3
"""Drops the name and producer sections of a WebAssembly component in place: `component-name` (the names of its
types and functions, for debuggers) and `producers` (the tools that made it). Hosts read neither: exports are named
by the export section. Usage: python3 tools/strip_names.py COMPONENT.wasm
"""

import sys
from pathlib import Path

DROPPED = {"component-name", "producers"}


def uleb(data: bytes, at: int) -> tuple[int, int]:
    """An unsigned LEB128 number at `at`: its value and the offset after it."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def strip(data: bytes) -> bytes:
    """The binary without the top-level custom sections named in DROPPED."""
    if data[:4] != b"\0asm":
        raise ValueError("not a WebAssembly binary")
    out = bytearray(data[:8])
    at = 8
    while at < len(data):
        start, kind = at, data[at]
        size, body = uleb(data, at + 1)
        end = body + size
        if end > len(data):
            raise ValueError(f"a section at byte {start} runs past the end")
        name = None
        if kind == 0:
            length, name_at = uleb(data, body)
            name = data[name_at : name_at + length].decode("utf-8", "replace")
        if name not in DROPPED:
            out += data[start:end]
        at = end
    return bytes(out)


def main() -> None:
    path = Path(sys.argv[1])
    path.write_bytes(strip(path.read_bytes()))


if __name__ == "__main__":
    main()
