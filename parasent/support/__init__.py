"""Leaf helpers below every other layer: the data directory, atomic directory writes, locks,
the run log, tables, memory-mapped safetensors, argument checks, optional imports."""
