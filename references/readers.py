"""Reading a run's outputs back with the libraries' own readers (mcap, rosbags, pyarrow)."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


def results_table(folder: Path) -> tuple[list[str], np.ndarray]:
    with open(folder / "results.csv", newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    num = lambda x: 1.0 if x == "true" else 0.0 if x == "false" else float(x)   # noqa: E731
    return header, np.array([[num(x) for x in r] for r in rows[1:]])


def mcap_messages(path: Path, topics=None) -> tuple[dict, list]:
    """(summary: topic -> (schema name, encoding, count), [(topic, log_time, decoded)])."""
    from mcap.reader import make_reader
    from mcap_protobuf.decoder import DecoderFactory

    with open(path, "rb") as fh:
        reader = make_reader(fh, decoder_factories=[DecoderFactory()])
        s = reader.get_summary()
        channels = {c.topic: (s.schemas[c.schema_id].name if c.schema_id else None, c.message_encoding,
                              s.statistics.channel_message_counts.get(c.id, 0)) for c in s.channels.values()}
        out = []
        for schema, channel, message in reader.iter_messages(topics=topics):
            out.append((channel.topic, message.log_time, message, schema))
    # decode after reading: JSON channels by json, protobuf ones by the decoder factory
    decoded = []
    factory = DecoderFactory()
    import json
    for topic, log_time, message, schema in out:
        if schema is not None and schema.encoding == "protobuf":
            decoded.append((topic, log_time, factory.decoder_for("protobuf", schema)(message.data)))
        else:
            decoded.append((topic, log_time, json.loads(message.data)))
    return channels, decoded


def bag_messages(folder: Path) -> tuple[dict, list]:
    """(topic -> (msgtype, count), [(topic, timestamp, message)]) of a ROS 2 bag, read with the
    stock Jazzy type store."""
    from rosbags.rosbag2 import Reader
    from rosbags.typesys import Stores, get_typestore

    ts = get_typestore(Stores.ROS2_JAZZY)
    with Reader(folder) as reader:
        topics = {c.topic: (c.msgtype, c.msgcount) for c in reader.connections}
        msgs = [(c.topic, t, ts.deserialize_cdr(raw, c.msgtype)) for c, t, raw in reader.messages()]
    return topics, msgs
