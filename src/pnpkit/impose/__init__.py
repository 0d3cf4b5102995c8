"""Imposition: placing faces on pages (the layout and its packers)."""
