"""Interoperability with other libraries' model formats (no import of those libraries needed)."""
