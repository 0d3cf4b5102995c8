"""Make tests/fonts/WQYMicroHei-subset.ttf, the CJK font of the tests: a few glyphs of
WenQuanYi Micro Hei (Apache-2.0, see tests/fonts/LICENSE-WQY-MicroHei.txt), taken from
Debian's fonts-wqy-microhei package:

    apt-get download fonts-wqy-microhei && dpkg-deb -x fonts-wqy-microhei_*.deb x
    python scripts/make_test_font.py x/usr/share/fonts/truetype/wqy/wqy-microhei.ttc
"""

import argparse
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

TEXT = "你好世界牌卡金木石得到张回合 "
OUT = Path(__file__).resolve().parents[1] / "tests" / "fonts" / "WQYMicroHei-subset.ttf"

ap = argparse.ArgumentParser(
    description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
)
ap.add_argument("ttc", type=Path, help="wqy-microhei.ttc from Debian's fonts-wqy-microhei")
font = TTCollection(ap.parse_args().ttc).fonts[0]
options = subset.Options()
options.name_IDs = ["*"]
options.notdef_outline = True
sub = subset.Subsetter(options)
sub.populate(text=TEXT)
sub.subset(font)
font.save(str(OUT))
print(OUT, OUT.stat().st_size)
