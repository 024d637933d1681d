"""Formatting of results.csv rows, and the writer process that formats them off the master's
loop (see master/recorder.py).

Writing the shortest text that reads back as the same double (``repr``) costs about 0.45 us per
value in CPython, some 20 us per row of the survey stack: a fifth of a communication step. A
long run therefore hands its raw rows to a child process running this file, which formats and
appends them on another core while the master steps on. The text comes from the same
``format_block`` in both places, so the file is the same, byte for byte.

``format_block`` works a column at a time: every value of a column through ``repr`` (or
``int`` then ``str`` for an Integer or Boolean column) in one ``map``, the rows then joined from
the columns' texts, so no Python code runs per value. A column whose values in the block are
all the same non-zero double (a constant input, a held reference, the sea depth) is formatted
once: equal non-zero doubles have the same bits, so the same text (0.0 and -0.0 compare equal
but read differently: a zero column goes value by value). The text is that of ``"%r"`` and
``"%d"`` of each value, byte for byte (tests/master/test_master_recorder.py); on the survey the
whole costs about 8 % less than one ``%``-format per row (benchmarks/bench_recorder.py: ``repr``
itself is some 19 of the 21 us a row that remain).

This module imports nothing but the standard library: the child starts in a few milliseconds
with ``python -I -S csv_writer.py PATH NCOLS KINDS`` (KINDS: one letter per column, ``r`` a
Real, ``d`` an Integer or Boolean) and reads, from its standard input, blocks of an 8-byte row
count (little-endian) followed by that many rows of NCOLS native float64 values. At the end of
its input it has written every row it received, and exits 0.
"""
from __future__ import annotations

import struct
import sys
from array import array

HEADER = struct.Struct("<Q")  # the number of rows that follow


def column_kinds(integer: list[bool]) -> str:
    """One letter per column: ``d`` for Integer and Boolean columns (whole numbers), ``r`` for
    Reals (``repr``)."""
    return "".join("d" if i else "r" for i in integer)


def _column_text(values: list, kind: str) -> list:
    if kind == "d":
        return list(map(str, map(int, values)))
    first = values[0]
    if first != 0.0 and values.count(first) == len(values):   # one text for the whole column
        return [repr(first)] * len(values)
    return list(map(repr, values))


def format_block(kinds: str, values: list) -> str:
    """The text of a block of rows given as one flat list of floats, row after row, with
    ``len(kinds)`` values a row: one line per row."""
    if not values:
        return ""
    ncols = len(kinds)
    columns = [_column_text(values[j::ncols], kind) for j, kind in enumerate(kinds)]
    return "\n".join(map(",".join, zip(*columns))) + "\n"


def _read(stream, n: int) -> bytes:
    data = stream.read(n)  # a buffered read: short only at the end of the input
    if len(data) < n:
        raise EOFError(f"the master stopped in the middle of a block ({len(data)} of {n} bytes)")
    return data


def main(argv: list[str]) -> int:
    path, ncols, kinds = argv[0], int(argv[1]), argv[2]
    if len(kinds) != ncols:
        raise SystemExit(f"csv_writer: {ncols} columns but {len(kinds)} column kinds {kinds!r}")
    stdin = sys.stdin.buffer
    with open(path, "a", encoding="utf-8", newline="") as out:
        while True:
            header = stdin.read(HEADER.size)
            if not header:  # the master closed the pipe: every row it sent is written
                return 0
            if len(header) < HEADER.size:
                header += _read(stdin, HEADER.size - len(header))
            (nrows,) = HEADER.unpack(header)
            out.write(format_block(kinds, array("d", _read(stdin, nrows * ncols * 8)).tolist()))
            out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
