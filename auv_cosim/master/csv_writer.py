"""Formatting of results.csv rows, and the writer process that formats them off the master's
loop (see auv_cosim/master/recorder.py).

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

The text of a double is made in C when ujson is there (a dependency of the project; its
encoder writes the shortest text that reads back as the same double, Python's ``repr`` digits):
a whole block goes through one ``ujson.dumps`` of its rows, 2.6-2.9 times faster than ``repr``
value by value (``benchmarks/bench_recorder.py``). Its text differs from ``repr``'s only in a
one-digit negative exponent (``1e-5`` where ``repr`` writes ``1e-05``), which one regular
expression pads. Whether the installed ujson writes exactly ``repr``'s text is checked when this
module loads, on doubles of every layout (``_formats_as_repr``); if it does not, or is missing,
or a block holds a NaN or an infinity (ujson refuses them), the block is formatted with ``repr``
as below: the file is the same, byte for byte, whichever way.

This module imports only the standard library, and ujson if it is there: the child starts in a
few milliseconds with ``python -I -S csv_writer.py PATH NCOLS KINDS [DIR]`` (KINDS: one letter
per column, ``r`` a Real, ``d`` an Integer or Boolean; DIR: the folder ujson is installed in,
which ``-S`` leaves off the path) and reads, from its standard input, blocks of an 8-byte row
count (little-endian) followed by that many rows of NCOLS native float64 values. At the end of
its input it has written every row it received, and exits 0.
"""
from __future__ import annotations

import errno
import os
import re
import struct
import sys
from array import array

HEADER = struct.Struct("<Q")  # the number of rows that follow

#: ujson's one-digit negative exponents (``e-5``, before a separator), which repr writes ``e-05``
_SHORT_NEGATIVE_EXPONENT = re.compile(r"e-(\d)(?=[,\]])")

#: doubles of every layout repr uses: positional, from 1e-4 and below 1e16, else scientific with
#: a sign and at least two exponent digits; both zeros; powers of two and subnormals, where the
#: shortest text has two neighbours at unequal distances
_PROBE = [0.1, 1.0, -0.0, 0.0, 2.5, -1.5e-5, 1e-5, 9.99e-5, 1e-4, 0.00012345, 3.3e-7, -1e-10,
          123456789012345.6, 1e15, 9999999999999998.0, 1e16, 1.5e16, 1e22, -1.7976931348623157e308,
          5e-324, 2.2250738585072014e-308, 2.0 ** -20, 2.0 ** 60, 1.0 / 3.0, 2.0 / 3.0, 9.80665]


def _formats_as_repr(ujson) -> bool:
    """True when ``ujson`` writes every double of ``_PROBE`` as repr does (after the exponent
    padding) and refuses NaN and infinities when asked to."""
    try:
        if _json_text(ujson, _PROBE) != "[" + ",".join(map(repr, _PROBE)) + "]":
            return False
    except Exception:   # an ujson without allow_nan, one that refuses a finite double: repr it is
        return False
    try:
        ujson.dumps([float("nan")], allow_nan=False)
    except (OverflowError, ValueError):   # refused, as _format_with_ujson expects
        return True
    except Exception:
        return False
    return False


def _json_text(ujson, values) -> str:
    """``ujson``'s text of ``values`` (a list, of rows or of numbers) with repr's exponents:
    one-digit negative exponents padded. Raises on a NaN or an infinity."""
    text = ujson.dumps(values, allow_nan=False)
    return _SHORT_NEGATIVE_EXPONENT.sub(r"e-0\1", text) if "e-" in text else text


def _load_ujson():
    try:
        import ujson
    except ImportError:
        return None
    return ujson if _formats_as_repr(ujson) else None


_ujson = _load_ujson()


def fast_formatter_folder() -> str | None:
    """The folder of the ujson this module formats with (None without), for the writer process,
    whose ``-S`` leaves it off the path."""
    return os.path.dirname(_ujson.__file__) if _ujson is not None else None


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
    if _ujson is not None:
        text = _format_with_ujson(kinds, values)
        if text is not None:
            return text
    return _format_with_repr(kinds, values)


def _format_with_ujson(kinds: str, values: list) -> str | None:
    """format_block's text through one ``ujson.dumps`` of the block's rows (whole-number columns
    as ints); None when the block holds a NaN or an infinity, which ujson refuses."""
    ncols = len(kinds)
    rows = [values[i:i + ncols] for i in range(0, len(values), ncols)]
    whole = [j for j, kind in enumerate(kinds) if kind == "d"]
    try:
        for row in rows:
            for j in whole:
                row[j] = int(row[j])
        text = _json_text(_ujson, rows)
    except (OverflowError, ValueError):   # NaN or inf: int() and ujson refuse them
        return None
    return text[2:-2].replace("],[", "\n") + "\n"


def _format_with_repr(kinds: str, values: list) -> str:
    """format_block's text with ``repr`` of each Real, ``int`` then ``str`` of each whole
    number, a column at a time."""
    ncols = len(kinds)
    columns = [_column_text(values[j::ncols], kind) for j, kind in enumerate(kinds)]
    return "\n".join(map(",".join, zip(*columns))) + "\n"


def _read(stream, n: int) -> bytes:
    data = stream.read(n)  # a buffered read: short only at the end of the input
    if len(data) < n:
        raise EOFError(f"the master stopped in the middle of a block ({len(data)} of {n} bytes)")
    return data


def main(argv: list[str]) -> int:
    global _ujson
    path, ncols, kinds = argv[0], int(argv[1]), argv[2]
    if len(argv) > 3 and _ujson is None:   # the folder of the master's ujson
        sys.path.append(argv[3])
        _ujson = _load_ujson()
    if len(kinds) != ncols:
        raise SystemExit(f"csv_writer: {ncols} columns but {len(kinds)} column kinds {kinds!r}")
    stdin = sys.stdin.buffer
    with open(path, "ab", buffering=0) as out:
        complete = out.seek(0, os.SEEK_END)   # the header the master wrote
        while True:
            header = stdin.read(HEADER.size)
            if not header:  # the master closed the pipe: every row it sent is written
                return 0
            if len(header) < HEADER.size:
                header += _read(stdin, HEADER.size - len(header))
            (nrows,) = HEADER.unpack(header)
            view = memoryview(format_block(kinds, array("d", _read(stdin, nrows * ncols * 8)).tolist()).encode("utf-8"))
            size = len(view)
            try:
                while view:
                    view = view[out.write(view):]
            except OSError as e:   # a full disk: no half row is left, the master hears why
                try:
                    os.ftruncate(out.fileno(), complete)
                except OSError:
                    pass
                print(f"csv_writer: {path}: {e.strerror or e}; cut back to its last whole row", file=sys.stderr)
                return e.errno if e.errno == errno.ENOSPC else 1
            complete += size


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
