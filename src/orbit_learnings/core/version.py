"""The release, defined once: the package metadata (pyproject) reads it from here."""

VERSION = "0.1.0"
