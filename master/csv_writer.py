"""Formatting of results.csv rows, and the writer process that formats them off the master's
loop (see master/recorder.py).

Writing the shortest text that reads back as the same double (``repr``) costs about 0.45 us per
value in CPython, some 20 us per row of the survey stack: a fifth of a communication step. A
long run therefore hands its raw rows to a child process running this file, which formats and
appends them on another core while the master steps on. The text comes from the same
``format_rows`` in both places, so the file is the same, byte for byte.

This module imports nothing but the standard library: the child starts in a few milliseconds
with ``python -I -S csv_writer.py PATH NCOLS FORMAT`` and reads, from its standard input, blocks
of an 8-byte row count (little-endian) followed by that many rows of NCOLS native float64
values. At the end of its input it has written every row it received, and exits 0.
"""
from __future__ import annotations

import struct
import sys
from array import array

HEADER = struct.Struct("<Q")  # the number of rows that follow


def row_format(integer: list[bool]) -> str:
    """The %-format of one row: ``%d`` for Integer and Boolean columns, ``%r`` for Reals."""
    return ",".join("%d" if i else "%r" for i in integer) + "\n"


def format_rows(fmt: str, rows) -> str:
    """The text of ``rows`` (sequences of floats), one line each."""
    return "".join([fmt % tuple(r) for r in rows])


def _read(stream, n: int) -> bytes:
    data = stream.read(n)  # a buffered read: short only at the end of the input
    if len(data) < n:
        raise EOFError(f"the master stopped in the middle of a block ({len(data)} of {n} bytes)")
    return data


def main(argv: list[str]) -> int:
    path, ncols, fmt = argv[0], int(argv[1]), argv[2]
    stdin = sys.stdin.buffer
    with open(path, "a", encoding="utf-8", newline="") as out:
        while True:
            header = stdin.read(HEADER.size)
            if not header:  # the master closed the pipe: every row it sent is written
                return 0
            if len(header) < HEADER.size:
                header += _read(stdin, HEADER.size - len(header))
            (nrows,) = HEADER.unpack(header)
            values = array("d", _read(stdin, nrows * ncols * 8)).tolist()
            out.write(format_rows(fmt, [values[i:i + ncols] for i in range(0, len(values), ncols)]))
            out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
