"""Text set in type: the bidi algorithm, HarfBuzz shaping, fonts, text boxes and rich text.
Knows nothing of packs."""
