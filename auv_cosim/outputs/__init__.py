"""What a run gives to the tools a marine-robotics engineer opens, and how it keeps time.

Each piece is an observer of the master's loop (``auv_cosim.master.Observer``) or its pacer
(``auv_cosim.master.Pacer``), so a run with none of them is the run it always was (results.csv
byte for byte), and each writer also serves ``auv-cosim export`` of a finished results folder:

- ``pacing``: ``run --realtime FACTOR``, the loop paced to the wall clock, its lateness in
  summary.json (``realtime``);
- ``frames``: the NED world and body frames of the vehicles as Foxglove and ROS expect them
  (ENU and FLU), written once;
- ``foxglove``: the Foxglove channels of a run (poses, the vehicle drawn to size, waypoints,
  track, surface and floor, every recorded signal) into an MCAP file (``--format mcap``) or a
  live WebSocket view (``--live``);
- ``parquet``: results.parquet (``--format parquet``);
- ``rosbag``: a ROS 2 bag of standard messages (``--format rosbag``);
- ``osp``: ``export-osp``, an OspSystemStructure.xml of a scenario's stack for libcosim.

The libraries (foxglove-sdk, mcap, pyarrow, rosbags) are the ``outputs`` extra of the
project; each module imports its own only when used. See docs/outputs.md.
"""
