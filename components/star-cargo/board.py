"""The galaxy board, drawn from data.board, data.planets and data.cargo (the same data
CARGO-B01..B05 check). A Python face (`front: board.py:draw`): the board is a generated
grid, and its arithmetic reads plainer here than in Jinja. Layout, in mm from the trim's
top-left corner:
  edge strips of data.board.edge on every side of the grid hold the column letters (top
  and bottom) and row numbers (left and right);
  the grid: space (i, r) has its top-left corner at (edge + i * cell, edge + (r - 1) * cell);
  below the bottom strip, a band: the fee table in the lower-left corner, the title and
  the legend to its right.
The icons and the fee table come from the kit's template macros, as on every other face.
"""

from pnpkit.faces.pyfaces import drawing

INK = "#1f2a44"
LABEL = dict(font_family="DejaVu Sans", font_size=2.2, fill="#5f687d")  # a space's name


def draw(ctx):
    d = drawing(ctx)
    face, board, text_box = ctx["face"], ctx["data"]["board"], ctx["text_box"]
    icons = ctx["macros"]("star-cargo/icons.svg.j2")
    e, c, columns, rows = board["edge"], board["cell"], board["columns"], board["rows"]
    gw, gh = len(columns) * c, rows * c
    band_top = 2 * e + gh
    bleed, w, h = face["bleed"], face["w"], face["h"]

    def centred(text, x, y, box_w, box_h, size, fill=INK):
        """A bold label centred in its box: the grid's letters and numbers, spaces' names."""
        return text_box(
            text,
            x,
            y,
            box_w,
            box_h,
            size=size,
            bold=True,
            anchor="middle",
            valign="middle",
            fill=fill,
        )

    # the sheet: light space, label strips a shade darker, the band below
    d.add(d.rect((-bleed, -bleed), (w + 2 * bleed, h + 2 * bleed), fill="#d5dbea"))
    d.add(d.rect((e, e), (gw, gh), fill="#eef1f8"))
    d.add(d.rect((-bleed, band_top), (w + 2 * bleed, h - band_top + bleed), fill="#e6e9f2"))

    def corner(cell):
        """The top-left corner of a space named like 'G8'."""
        return e + columns.index(cell[0]) * c, e + (int(cell[1:]) - 1) * c

    def on_grid(cell):  # a cell off the grid is skipped here; CARGO-B01 and D01 report it
        return isinstance(cell, str) and cell[:1] in columns and cell[1:].isdigit()

    for r in range(1, rows + 1):
        for i, column in enumerate(columns):
            space(d, column + str(r), e + i * c, e + (r - 1) * c, c, board["void"])
    d.add(d.rect((e, e), (gw, gh), fill="none", stroke=INK, stroke_width=0.6))

    # grid labels on all four edges, so every sheet of a split board shows them
    for i, column in enumerate(columns):
        for y in (3, e + gh):  # kept 3 mm inside the cut (the safe zone)
            d.add(centred(column, e + i * c, y, c, e - 3, 13))
    for r in range(1, rows + 1):  # in the strip's middle 1 mm clear of each side: "10" shrinks
        for x in (3, e + gw):  # rather than touch the grid's frame
            d.add(centred(str(r), x + 1, e + (r - 1) * c, e - 5, c, 12))

    # planets: a disc, the cargo it supplies, its name; a magnifier where it inspects
    colours = icons.PLANET_COLOURS
    placed = [p for p in ctx["data"]["planets"].values() if on_grid(p.get("cell"))]
    for n, p in enumerate(placed):
        x, y = corner(p["cell"])
        mid = x + c / 2
        d.add(
            d.circle(
                (mid, y + 6.6), 4.6, fill=colours[n % len(colours)], stroke=INK, stroke_width=0.5
            )
        )
        d.add(
            d.path(
                f"M{mid - 6.4} {y + 7.6} C{mid - 3} {y + 9.6} {mid + 3} {y + 4.2} {mid + 6.4} "
                f"{y + 5.4}",
                fill="none",
                stroke=INK,
                stroke_width=0.4,
            )
        )
        size, count = 4.4, len(p["supplies"])
        for k, cargo in enumerate(p["supplies"]):
            d.add(
                icons.icon(
                    cargo, mid - count * (size + 0.4) / 2 + k * (size + 0.4) + 0.2, y + 11.6, size
                )
            )
        d.add(centred(p["name"][ctx["lang"]], x + 0.6, y + 16.3, c - 1.2, 5, 7))
        if p["inspection"]:
            # 2 mm inside its space: on the board's split at column I it stays clear of the
            # dashed line where the right sheet's edge goes, and of the planet's disc
            d.add(
                d.circle(
                    (x + c - 4.4, y + 3.1), 2.4, fill="#fff4c2", stroke="#1a1a1a", stroke_width=0.35
                )
            )
            d.add(icons.icon("magnifier", x + c - 6.4, y + 1.1, 4.0))

    home = board["home"]
    if on_grid(home):
        x, y = corner(home)
        d.add(
            d.rect(
                (x + 0.6, y + 0.6),
                (c - 1.2, c - 1.2),
                fill="#fff4c2",
                stroke="#c8322b",
                stroke_width=0.9,
            )
        )
        d.add(icons.icon("home", x + c / 2 - 5.5, y + 2.4, 11))
        d.add(centred(ctx["s"]["home"], x + 0.6, y + 14.8, c - 1.2, 5, 8, fill="#c8322b"))
        d.add(d.text(home, insert=(x + 0.8, y + 2.6), **LABEL))

    band(d, ctx, icons, band_top)
    return d


def space(d, name, x, y, c, void):
    """One space of the grid: a void (dark, a swirl and three stars) or a named blank space."""
    if name in void:
        d.add(d.rect((x, y), (c, c), fill="#2b2540"))
        d.add(
            d.path(
                f"M{x + 3} {y + c * 0.62} C{x + c * 0.3} {y + c * 0.2} {x + c * 0.75} "
                f"{y + c * 0.3} "
                f"{x + c * 0.55} {y + c * 0.55} C{x + c * 0.4} {y + c * 0.75} {x + c * 0.3} "
                f"{y + c * 0.5} "
                f"{x + c * 0.45} {y + c * 0.45}",
                fill="none",
                stroke="#5a4f80",
                stroke_width=0.8,
                stroke_linecap="round",
            )
        )
        for fx, fy, r in ((0.8, 0.2, 0.35), (0.22, 0.85, 0.3), (0.7, 0.78, 0.25)):
            d.add(d.circle((x + c * fx, y + c * fy), r, fill="#d9d2f5"))
    else:
        d.add(d.rect((x, y), (c, c), fill="#fbfcff", stroke="#9aa3b8", stroke_width=0.3))
        d.add(d.text(name, insert=(x + 0.8, y + 2.6), **LABEL))


def band(d, ctx, icons, band_top):
    """Below the grid: the fee table in the lower-left corner [S], then the title and legend."""
    s, text_box, home = ctx["s"], ctx["text_box"], ctx["data"]["board"]["home"]
    tx, ty, tw = 4, band_top + 2, 176
    d.add(
        ctx["macros"]("star-cargo/fees.svg.j2").table(
            tx, ty, tw, ctx["face"]["h"] - ty - 4, label_w=31
        )
    )
    lx = tx + tw + 8
    lw = ctx["face"]["w"] - lx - 4
    d.add(icons.icon("ship", lx, ty + 0.5, 13, "#c8322b"))
    d.add(
        text_box(
            ctx["pack"]["name"],
            lx + 15,
            ty,
            lw - 15,
            9,
            size=24,
            bold=True,
            valign="middle",
            fill=INK,
        )
    )
    d.add(
        text_box(
            s["subtitle"],
            lx + 15,
            ty + 9,
            lw - 15,
            5,
            size=9,
            italic=True,
            valign="middle",
            fill=INK,
        )
    )
    d.add(d.rect((lx, ty + 14.5), (5, 5), fill="#2b2540"))
    legend = [
        (None, s["legend_void"]),
        ("magnifier", s["legend_inspection"]),
        ("home", f"{s['home']} ({home}): {s['legend_home']}"),
    ]
    for (icon, text), y in zip(legend, (ty + 14.5, ty + 20, ty + 25.5)):
        if icon:
            d.add(icons.icon(icon, lx, y, 5))
        d.add(text_box(text, lx + 7, y, lw - 7, 5, size=7, valign="middle", fill=INK))
    d.add(
        text_box(
            s["legend_steps"], lx, ty + 31, lw, 4.6, size=7, italic=True, valign="middle", fill=INK
        )
    )
