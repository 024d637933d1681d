"""Seeded standard normals handed out a few at a time, drawn from the generator in blocks.

An instrument suite draws the same fixed number of normals at every sample (one per noise
channel). Asking numpy for them at every sample costs about 1 us of call overhead for 8
values; asking for a block of many samples at once costs a few nanoseconds per value. numpy's
``Generator`` consumes its bit stream value after value, whatever the size of the request, so
the values (and the generator's state after them) are the same, bit for bit, whether they are
drawn 8 at a time or 1024 at a time (tests/stacks/auv/test_sensors.py checks it).

The state saved and restored is the generator's as if the values had been drawn sample by
sample: a block drawn ahead and not yet handed out is not part of it (``get_state`` replays
the values handed out from the start of the block to find it).
"""
from __future__ import annotations

import copy
from typing import Dict, List, Optional, Tuple

import numpy as np

#: samples drawn per block: 1024 normals for 8 channels, some 8 KB
SAMPLES_PER_BLOCK = 128


class NormalStream:
    """``take()`` returns the next ``per_sample`` standard normals (a list of floats) of a PCG64
    generator seeded with ``seed``: the values ``Generator.standard_normal(per_sample)`` would
    return call after call. Compiled code reads them in place instead: ``block()`` gives the
    block (a float64 array) and where the next values start, ``advance()`` hands them out."""

    def __init__(self, seed: int, per_sample: int, samples_per_block: int = SAMPLES_PER_BLOCK):
        self.per_sample = int(per_sample)
        self.block_size = self.per_sample * int(samples_per_block)
        self.rng = np.random.Generator(np.random.PCG64(int(seed)))
        self._array = np.zeros(0)    # the block drawn
        self._block: Optional[List[float]] = []   # the same values as floats (take's)
        self._at = 0                 # values of the block handed out
        self._block_start = None     # the generator's state before the block was drawn

    def _draw(self) -> None:
        self._block_start = self.rng.bit_generator.state
        self._array = self.rng.standard_normal(self.block_size)
        self._block = None           # made by the first take()
        self._at = 0

    def take(self) -> List[float]:
        if self._at == len(self._array):
            self._draw()
        if self._block is None:
            self._block = self._array.tolist()
        at = self._at
        self._at = end = at + self.per_sample
        return self._block[at:end]

    def block(self) -> Tuple[np.ndarray, int]:
        """(block, at): the next ``per_sample`` values are ``block[at:at + per_sample]``; they
        are handed out by `advance`, not by this call."""
        if self._at == len(self._array):
            self._draw()
        return self._array, self._at

    def advance(self) -> None:
        """Hand out the ``per_sample`` values `block` pointed at."""
        self._at += self.per_sample

    def get_state(self) -> Dict:
        """The generator's state after the values handed out so far (JSON-friendly)."""
        if self._at == len(self._array):    # nothing drawn ahead
            return copy.deepcopy(self.rng.bit_generator.state)
        replay = np.random.Generator(np.random.PCG64())
        replay.bit_generator.state = self._block_start
        replay.standard_normal(self._at)
        return replay.bit_generator.state

    def set_state(self, state: Dict) -> None:
        self.rng.bit_generator.state = copy.deepcopy(state)
        self._array, self._block, self._at, self._block_start = np.zeros(0), [], 0, None
