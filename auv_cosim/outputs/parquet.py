"""results.parquet (``--format parquet``, ``export --format parquet``): results.csv's table as
Apache Parquet, for long runs and campaigns.

The columns are results.csv's, by the same names and in the same order, every value a float64
(an Integer or Boolean column too: its value as the run's row holds it); the file is written as
the run goes, a row group every ``ROW_GROUP`` rows (zstd compressed), so a 24 h mission does
not keep another copy of its table to write it. A file cut short (the process killed) is no
Parquet file; a run that fails or is interrupted closes it with every row made.

The file's key-value metadata says what the numbers are: ``auv_cosim.units`` (JSON: each
column's unit, as its FMU declares it, "" where none), ``auv_cosim.scenario`` (the scenario's
name), ``auv_cosim.version`` (the package's), ``auv_cosim.start_time``; each column's field also
carries its ``unit``.
"""

from __future__ import annotations

import json

import numpy as np

from .formats import FileWriter

#: rows of one Parquet row group
ROW_GROUP = 65536


class ParquetWriter(FileWriter):
    name, kind = "results.parquet", "parquet"

    def __init__(self, folder=None, force=True, record=None):
        super().__init__(folder, force)
        self.record = record
        self.writer = None
        self.pending: list[np.ndarray] = []
        self.count = 0

    def start(self, plan, layout) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .scene import column_units

        record = [c for c in (plan.record if self.record is None else self.record) if c in layout.colmap and c != "time"]
        self.names = ["time"] + record
        self.index = np.array([0] + [layout.colmap[c] for c in record], dtype=np.intp)
        units = column_units(plan, record)
        self.schema = pa.schema([pa.field(n, pa.float64(), nullable=False, metadata={"unit": units[n]}) for n in self.names],
                                metadata={"auv_cosim.units": json.dumps(units), "auv_cosim.scenario": plan.name,
                                          "auv_cosim.version": package_version(), "auv_cosim.start_time": repr(plan.start_time)})
        self.make_room()
        self.writer = pq.ParquetWriter(str(self.path), self.schema, compression="zstd")

    def rows(self, block: np.ndarray) -> None:
        self.pending.append(block[:, self.index].astype(np.float64))
        self.count += len(block)
        if self.count >= ROW_GROUP:
            self._write()

    def _write(self) -> None:
        import pyarrow as pa

        if not self.pending:
            return
        data = np.vstack(self.pending)
        self.pending, self.count = [], 0
        table = pa.Table.from_arrays([pa.array(data[:, j]) for j in range(data.shape[1])], schema=self.schema)
        self.writer.write_table(table, row_group_size=ROW_GROUP)

    def close(self) -> None:
        if self.writer is not None:
            try:
                self._write()
            finally:
                self.writer.close()
                self.writer = None


def package_version() -> str:
    """The installed distribution's version ("unknown" when it is not installed, as in a bare
    checkout on sys.path)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("auv-cosim")
    except PackageNotFoundError:
        return "unknown"
