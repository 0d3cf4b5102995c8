"""Make components/type-sample/fonts/TypeSample-Regular.otf, the .otf of the type-sample pack:
the ASCII letters of DejaVu Sans (pnpkit's own font, src/pnpkit/fonts) redrawn with
PostScript (CFF) outlines, as a foundry ships an .otf, and named Type Sample. Its letters
with accents are left out on purpose: the pack's `fonts: fallback:` draws them.

    python scripts/make_sample_otf.py
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import fontmaker  # noqa: E402  # the tests' maker of fonts in foundries' formats

OUT = ROOT / "components" / "type-sample" / "fonts" / "TypeSample-Regular.otf"
TEXT = "".join(chr(c) for c in range(0x20, 0x7F))
OUT.write_bytes(fontmaker.cff(TEXT, "Type Sample", fontmaker.DEJAVU))
print(OUT, OUT.stat().st_size)
