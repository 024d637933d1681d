"""results.csv, written as the run goes.

Rows arrive in blocks (the master hands over a block every 256 steps or every second of wall
time, whichever comes first, and whatever is left when the run ends, fails or is
interrupted); each block is formatted in one go and flushed to the OS, so a crash of the master
process loses at most the block being filled and an FMU error, a NaN or Ctrl-C lose nothing.

Formatting: ``time`` and every Real as the shortest text that reads back as the same double
(Python's ``repr``), Integer and Boolean columns as whole numbers. The text depends on nothing
but the values, so two runs of a deterministic scenario give byte-identical files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


class CsvRecorder:
    def __init__(self, path: Path, columns: list[str], colmap: dict[str, int], record: list[str], integer_columns: set[str]):
        self.path = Path(path)
        self.names = ["time"] + list(record)
        self.index = np.array([0] + [colmap[n] for n in record], dtype=np.intp)
        self._fmt = ",".join("%d" if n in integer_columns else "%r" for n in self.names) + "\n"
        self._f = open(self.path, "w", encoding="utf-8", newline="", buffering=1 << 20)
        self._f.write(",".join(self.names) + "\n")
        self._f.flush()
        self.rows = 0

    def write_block(self, block: np.ndarray):
        if self._f is None:
            return
        fmt = self._fmt
        sel = block[:, self.index] if len(self.index) != block.shape[1] else block
        self._f.write("".join([fmt % tuple(r) for r in sel.tolist()]))
        self._f.flush()
        self.rows += len(sel)

    def flush(self):
        if self._f is not None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            self._f.flush()
            self._f.close()
            self._f = None
