"""The package's version, written once: ``pyproject.toml`` reads it (dynamic), ``parasent.__version__``
re-exports it, and CHANGELOG.md's newest entry names it (tests/test_version.py checks all three).

It sits at the bottom so that the model, its card and a saved index can record the version that
wrote them without reading the package root from below (the root imports the layers, never the
other way round)."""

__version__ = "0.1.0"
