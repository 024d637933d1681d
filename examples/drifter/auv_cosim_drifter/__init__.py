"""A profiling drifter as an auv-cosim unit (see README.md): a float of fixed mass that pumps oil
into an outer bladder to change its volume, and so its buoyancy, to dive and hold a depth."""
