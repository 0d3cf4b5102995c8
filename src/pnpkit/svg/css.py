"""Resolve the CSS of an art file into each element's own `style`, as design tools write it.

Illustrator writes `<style>.cls-1{fill:#e30613}</style>` and `class="cls-1"`, Inkscape and
Affinity write `style="…"` on every element. The compiler (svgdraw) reads presentation
attributes and a plain `style` attribute only, so this step runs first: the sheets' rules are
parsed by tinycss2, matched by cssselect2 (selectors by element, class, id and their
combinations), and each element gets the declarations that win the cascade as CSS defines it:
`!important` first, then inline `style` over any sheet, then specificity, then the later rule.
Presentation attributes rank below all of these, as in CSS: the compiler lets `style` win.

The `<style>` elements are removed once read: a stylesheet with `@import` or a `url()` of a
file is a located problem, never fetched. Values are then made plain for the compiler (see
`plain_value`): lengths in px, numeric font weights, `rgba()` and `currentColor`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from lxml import etree

SVG = "{http://www.w3.org/2000/svg}"
Problems = list[tuple[int, str]]  # (line, message)
# Rules times elements matched: 20 MB of CSS and elements would otherwise take hours; an
# Illustrator export has tens of rules for thousands of elements.
MAX_CSS_WORK = 20_000_000
# (important, inline, specificity, order): the larger key wins the cascade
_Rank = tuple[bool, bool, tuple[int, int, int], int]

# Declarations design tools write that draw nothing different at these values (or draw nothing
# at all in print): dropped, so that they are no error. None: dropped at any value.
NEUTRAL: Mapping[str, set[str] | None] = MappingProxyType(
    {
        "isolation": None,
        "enable-background": None,
        "line-height": None,
        "font-variant": None,
        "font-variant-ligatures": None,
        "font-variant-caps": None,
        "font-variant-numeric": None,
        "font-variant-east-asian": None,
        "font-feature-settings": None,
        "font-stretch": {"normal"},
        "letter-spacing": {"0", "0px", "normal"},
        "word-spacing": {"0", "0px", "normal"},
        "writing-mode": {"lr-tb", "lr", "horizontal-tb"},
        "text-align": {"start"},
        "text-decoration": {"none"},
        "baseline-shift": {"baseline"},
        "dominant-baseline": {"auto"},
        "mix-blend-mode": {"normal"},
        "paint-order": {"normal", "fill stroke markers", "fill"},
        "vector-effect": {"none"},
        "marker": {"none"},
        "marker-start": {"none"},
        "marker-mid": {"none"},
        "marker-end": {"none"},
        "overflow": {"visible", "hidden"},
        "color-interpolation": None,
        "color-interpolation-filters": None,
        "color-rendering": None,
        "shape-rendering": None,
        "text-rendering": None,
        "image-rendering": None,
        "solid-color": None,
        "solid-opacity": None,
        "stroke-dasharray": {"none"},
        "filter": {"none"},
        "mask": {"none"},
        "clip-path": {"none"},
        "shape-padding": None,
        "shape-inside": None,
        "inline-size": None,
        "white-space": None,
        "font-kerning": None,
    }
)
_LENGTH_PROPS = frozenset({"stroke-width", "font-size", "stroke-dashoffset", "stroke-dasharray"})
_PX_RE = re.compile(r"(?<![\w.])([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)px\b")
_RGBA_RE = re.compile(r"rgba\(\s*([^,]+),([^,]+),([^,]+),\s*([-+]?[\d.]+)(%?)\s*\)")
_HEX8_RE = re.compile(r"#([0-9a-fA-F]{6})([0-9a-fA-F]{2})|#([0-9a-fA-F]{3})([0-9a-fA-F])")
_OPACITY_OF = MappingProxyType(
    {"fill": "fill-opacity", "stroke": "stroke-opacity", "stop-color": "stop-opacity"}
)


def resolve(root: etree._Element) -> Problems:
    """Give every element of root the winning declarations in its `style` attribute, remove
    the `<style>` sheets; return the located problems of the CSS."""
    import cssselect2  # here, not at the top: a build without art files never imports it

    problems: Problems = []
    sheets = [el for el in root.iter(SVG + "style")]
    matcher = cssselect2.Matcher()
    order = 0
    for sheet in sheets:
        order = _add_sheet(matcher, sheet, order, problems)
    elements = sum(1 for _ in root.iter(etree.Element))
    if order * elements > MAX_CSS_WORK:
        problems.append(
            (
                sheets[0].sourceline or 0,
                f"the <style> sheets have {order:,} rules for {elements:,} elements; pnpkit "
                f"matches at most {MAX_CSS_WORK:,} rule-element pairs",
            )
        )
        order = 0
    for wrapper in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
        el = wrapper.etree_element
        chosen = _cascade(matcher, wrapper, el, problems) if order else _inline(el, problems)
        if chosen is not None:
            _write_style(el, chosen)
    for sheet in sheets:
        parent = sheet.getparent()
        if parent is not None:
            _remove_keeping_tail(sheet)
    return problems


def _add_sheet(matcher: Any, sheet: etree._Element, order: int, problems: Problems) -> int:
    import cssselect2
    import tinycss2

    line = sheet.sourceline or 0
    if sheet.get("type", "text/css") != "text/css":
        problems.append((line, f"<style type='{sheet.get('type')}'> is not CSS"))
        return order
    css = "".join(sheet.itertext())
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        at = line + css.count("\n", 0, max(0, _offset(css, rule)))
        if rule.type == "error":
            problems.append((at, f"bad CSS in <style>: {rule.message}"))
        elif rule.type == "at-rule":
            problems.append((at, f"CSS @{rule.lower_at_keyword} is not supported in art files"))
        elif rule.type == "qualified-rule":
            decls = _declarations(rule.content, at, problems)
            try:
                selectors = cssselect2.compile_selector_list(rule.prelude)
            except cssselect2.SelectorError as exc:
                problems.append((at, f"unsupported CSS selector: {exc}"))
                continue
            for selector in selectors:
                if selector.pseudo_element is None:
                    matcher.add_selector(selector, (order, decls))
            order += 1
    return order


def _offset(css: str, rule: Any) -> int:
    """The character offset of a rule in the sheet, from tinycss2's line (1-based) — the
    sheet's lines count from the <style> element's line."""
    lines = css.split("\n")
    return sum(len(text) + 1 for text in lines[: max(0, rule.source_line - 1)])


def _declarations(tokens: Any, line: int, problems: Problems) -> list[tuple[str, str, bool]]:
    """(name, value, important) of a declaration block; url() of anything but #id refused."""
    import tinycss2

    out: list[tuple[str, str, bool]] = []
    for decl in tinycss2.parse_blocks_contents(tokens, skip_comments=True, skip_whitespace=True):
        if decl.type == "error":
            problems.append((line, f"bad CSS declaration: {decl.message}"))
        elif decl.type == "declaration":
            value = tinycss2.serialize(decl.value).strip()
            if _file_url(decl.value):
                problems.append(
                    (line, f"CSS '{decl.name}: {value[:60]}' names a file: only url(#id)")
                )
                continue
            out.append((decl.lower_name, value, decl.important))
    return out


def _file_url(tokens: Any) -> bool:
    for token in tokens:
        if token.type == "url" and not token.value.startswith("#"):
            return True
        if token.type == "function":
            if token.lower_name == "url":
                args = [t for t in token.arguments if t.type == "string"]
                if not args or not args[0].value.startswith("#"):
                    return True
            elif _file_url(token.arguments):
                return True
    return False


def _cascade(
    matcher: Any, wrapper: Any, el: etree._Element, problems: Problems
) -> dict[str, str] | None:
    """The declarations that win for el, from the sheets and its style attribute."""
    ranked: dict[str, tuple[_Rank, str]] = {}
    for specificity, _, _, (order, decls) in matcher.match(wrapper):
        for name, value, important in decls:
            _keep(ranked, name, value, (important, False, specificity, order))
    for name, value, important in _inline_declarations(el, problems):
        _keep(ranked, name, value, (important, True, (0, 0, 0), 0))
    if not ranked and el.get("style") is None:
        return None
    return {name: value for name, (_, value) in ranked.items()}


def _keep(ranked: dict[str, tuple[_Rank, str]], name: str, value: str, rank: _Rank) -> None:
    if name not in ranked or rank >= ranked[name][0]:
        ranked[name] = (rank, value)


def _inline(el: etree._Element, problems: Problems) -> dict[str, str] | None:
    """The style attribute's declarations, the last of each name winning (no sheet)."""
    if not isinstance(el.tag, str) or el.get("style") is None:
        return None
    ranked: dict[str, tuple[_Rank, str]] = {}
    for name, value, important in _inline_declarations(el, problems):
        _keep(ranked, name, value, (important, True, (0, 0, 0), 0))
    return {name: value for name, (_, value) in ranked.items()}


def _inline_declarations(el: etree._Element, problems: Problems) -> list[tuple[str, str, bool]]:
    style = el.get("style") if isinstance(el.tag, str) else None
    if not style:
        return []
    import tinycss2

    tokens = tinycss2.parse_component_value_list(style)
    return _declarations(tokens, el.sourceline or 0, problems)


def _write_style(el: etree._Element, chosen: dict[str, str]) -> None:
    kept = {}
    for name, value in chosen.items():
        plain = plain_value(el, name, value)
        if plain is not None:
            kept.update(plain)
    if kept:
        el.set("style", ";".join(f"{name}:{value}" for name, value in kept.items()))
    elif "style" in el.attrib:
        del el.attrib["style"]


def plain_value(el: etree._Element, name: str, value: str) -> dict[str, str] | None:
    """The declaration as the compiler reads it, or None when it draws nothing different."""
    value = value.replace("!important", "").strip()
    neutral = NEUTRAL.get(name, ())
    if name.startswith("-") or name in NEUTRAL and (neutral is None or value in neutral):
        return None
    if name in _LENGTH_PROPS:
        value = _PX_RE.sub(r"\1", value)
    elif name == "font-weight" and value.isdigit():
        value = "bold" if int(value) >= 600 else "normal"
    elif name == "font-family":
        value = value.split(",")[0].strip().strip("'\"")
    elif name in _OPACITY_OF:
        if value.lower() == "currentcolor":
            value = current_colour(el)
        return _colour_alpha(name, value, el)
    return {name: value}


def _colour_alpha(name: str, value: str, el: etree._Element) -> dict[str, str]:
    """rgba() and #rrggbbaa as a colour and an opacity multiplied into name's opacity."""
    alpha = None
    if match := _RGBA_RE.fullmatch(value):
        r, g, b, a, pct = match.groups()
        value = f"rgb({r.strip()},{g.strip()},{b.strip()})"
        alpha = float(a) / (100 if pct else 1)
    elif match := _HEX8_RE.fullmatch(value):
        six, two, three, one = match.groups()
        value, alpha = (
            (f"#{six}", int(two, 16) / 255) if six else (f"#{three}", int(one * 2, 16) / 255)
        )
    if alpha is None:
        return {name: value}
    own = fraction(style_of(el).get(_OPACITY_OF[name], el.get(_OPACITY_OF[name], "1")))
    return {name: value, _OPACITY_OF[name]: f"{max(0.0, min(1.0, alpha)) * own:g}"}


def fraction(text: str) -> float:
    try:
        return float(text.strip().rstrip("%")) / (100 if text.strip().endswith("%") else 1)
    except ValueError:
        return 1.0


def style_of(el: etree._Element) -> dict[str, str]:
    found: dict[str, str] = {}
    for decl in (el.get("style") or "").split(";"):
        name, _, value = decl.partition(":")
        if name.strip():
            found[name.strip()] = value.strip()
    return found


def current_colour(el: etree._Element) -> str:
    """The `color` el inherits (for currentColor), black when none is given."""
    for node in _self_and_ancestors(el):
        value = style_of(node).get("color") or node.get("color")
        if value and value.lower() not in ("inherit", "currentcolor"):
            return value
    return "black"


def _self_and_ancestors(el: etree._Element) -> Iterator[etree._Element]:
    node: etree._Element | None = el
    while node is not None:
        yield node
        node = node.getparent()


def _remove_keeping_tail(el: etree._Element) -> None:
    parent = el.getparent()
    assert parent is not None
    if el.tail:
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)
