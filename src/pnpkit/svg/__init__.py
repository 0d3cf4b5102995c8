"""The SVG compiler: a face's SVG into the drawing operations a PDF canvas replays.
Knows nothing of packs."""
