"""The data registry and the readers of every dataset layout."""
