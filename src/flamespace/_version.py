"""flamespace's version, in a module of its own: recorders write it into every profile's
metadata without importing the package root (and the root imports it from here)."""

__version__ = "0.1.0"
