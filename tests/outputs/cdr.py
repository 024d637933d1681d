"""A ROS 2 bag read without the library that wrote it: SQLite (the standard library's sqlite3) and
a CDR decoder of a few lines, for the messages the tests read, laid out field by field from the
ROS 2 message definitions (little-endian CDR: a 4-byte encapsulation header, then each
primitive aligned to its size from the end of that header; a string is a uint32 length
counting its NUL, then its bytes; a sequence a uint32 count, then its elements)."""
from __future__ import annotations

import sqlite3
import struct
from pathlib import Path


class Cdr:
    def __init__(self, data: bytes):
        assert data[:2] == b"\x00\x01", f"not little-endian CDR: {data[:4]!r}"
        self.data, self.pos = data[4:], 0

    def _take(self, fmt: str, size: int):
        self.pos += (-self.pos) % size
        value = struct.unpack_from("<" + fmt, self.data, self.pos)[0]
        self.pos += size
        return value

    def uint8(self):
        return self._take("B", 1)

    def int32(self):
        return self._take("i", 4)

    def uint32(self):
        return self._take("I", 4)

    def float32(self):
        return self._take("f", 4)

    def float64(self):
        return self._take("d", 8)

    def string(self) -> str:
        n = self.uint32()
        text = self.data[self.pos:self.pos + n - 1].decode()
        self.pos += n
        return text

    def doubles(self, n: int) -> list[float]:
        return [self.float64() for _ in range(n)]

    # ---------------------------------------------------------------- messages
    def header(self) -> dict:
        sec, nanosec = self.int32(), self.uint32()
        return {"stamp": sec * 10**9 + nanosec, "frame_id": self.string()}

    def transform_stamped(self) -> dict:
        return {"header": self.header(), "child_frame_id": self.string(),
                "translation": self.doubles(3), "rotation": self.doubles(4)}

    def tf_message(self) -> list[dict]:
        return [self.transform_stamped() for _ in range(self.uint32())]

    def odometry(self) -> dict:
        return {"header": self.header(), "child_frame_id": self.string(),
                "position": self.doubles(3), "orientation": self.doubles(4), "pose_covariance": self.doubles(36),
                "linear": self.doubles(3), "angular": self.doubles(3), "twist_covariance": self.doubles(36)}

    def fluid_pressure(self) -> dict:
        return {"header": self.header(), "fluid_pressure": self.float64(), "variance": self.float64()}

    def twist_with_covariance_stamped(self) -> dict:
        return {"header": self.header(), "linear": self.doubles(3), "angular": self.doubles(3),
                "covariance": self.doubles(36)}

    def float64_multi_array(self) -> dict:
        dims = []
        for _ in range(self.uint32()):
            dims.append((self.string(), self.uint32(), self.uint32()))
        self.uint32()   # data_offset
        return {"dim": dims, "data": self.doubles(self.uint32())}


def bag_tables(folder: Path) -> tuple[dict[str, tuple[str, str]], dict[str, list[tuple[int, bytes]]]]:
    """({topic: (type, offered QoS)}, {topic: [(timestamp, CDR bytes)]}) of the bag's SQLite file."""
    (db,) = Path(folder).glob("*.db3")
    with sqlite3.connect(db) as con:
        topics = {i: (name, kind, qos) for i, name, kind, qos in
                  con.execute("SELECT id, name, type, offered_qos_profiles FROM topics")}
        messages: dict[str, list] = {name: [] for name, _, _ in topics.values()}
        for topic_id, stamp, data in con.execute("SELECT topic_id, timestamp, data FROM messages ORDER BY timestamp, id"):
            messages[topics[topic_id][0]].append((stamp, bytes(data)))
    con.close()
    return {name: (kind, qos) for name, kind, qos in topics.values()}, messages
