"""Checks of a read pack: its rules (and the pack's own rules.py), trust, colour-blind and
text checks."""
