"""Anchors: a learning's citation of code lines, and finding those lines again after edits.

Pure: everything here works on text handed in; reading files and asking git happen above.
"""
