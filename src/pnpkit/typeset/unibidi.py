"""The Unicode bidi algorithm's embedding levels (UAX #9), and the check that a text's explicit
directional controls are matched.

levels() applies rules X1-X10, W1-W7, N1-N2 and I1-I2 to one line, as python-bidi's reference
implementation did (pnpkit called its internal steps, which pinned it below 0.7): the same
levels for every text that implementation read, without bracket pairs (N0), checked against it
on 200,000 random lines. Where it failed it now answers: the explicit controls and the
boundary-neutral characters that X9 removes (ZWJ, ZWNJ, the soft hyphen: an IndexError before)
take the level of the character before them; isolates (U+2066-U+2069, an AssertionError before)
are read as embeddings whose initiator and PDI stand at the outer level as neutrals; a stray
PDF or PDI does nothing and an unclosed control ends with the line. Only unicodedata is used.

A stranger's text with an unmatched control would reorder what follows it (the "Trojan source"
trick), so unmatched() says which one in words, for a located problem.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from unicodedata import bidirectional

_LIMIT = 62  # UAX #9's max_depth + 1 before 6.3, as python-bidi's reference had it
_EMBED = MappingProxyType({"LRE": (0, "N"), "RLE": (1, "N"), "LRO": (0, "L"), "RLO": (1, "R")})
_ISOLATE = MappingProxyType({"LRI": 0, "RLI": 1, "FSI": -1})
_REMOVED = frozenset(("LRE", "RLE", "LRO", "RLO", "PDF", "BN"))  # X9
_NEUTRAL = frozenset(("B", "S", "WS", "ON"))
_BREAK = frozenset(("B",))  # a paragraph separator ends every embedding (X8)
NAMES = MappingProxyType(
    {
        "\u202a": "left-to-right embedding U+202A",
        "\u202b": "right-to-left embedding U+202B",
        "\u202c": "pop directional formatting U+202C",
        "\u202d": "left-to-right override U+202D",
        "\u202e": "right-to-left override U+202E",
        "\u2066": "left-to-right isolate U+2066",
        "\u2067": "right-to-left isolate U+2067",
        "\u2068": "first strong isolate U+2068",
        "\u2069": "pop directional isolate U+2069",
    }
)
CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")  # what unmatched() looks at
_CLOSER = MappingProxyType(
    {
        **dict.fromkeys("\u202a\u202b\u202d\u202e", "\u202c"),
        **dict.fromkeys("\u2066\u2067\u2068", "\u2069"),
    }
)


def unmatched(text: str) -> str | None:
    """Why text's explicit directional controls are not matched (each embedding or override
    closed by U+202C, each isolate by U+2069, nested in order, within its paragraph), or None."""
    open_: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        if ch in _CLOSER:
            open_.append((i, ch))
        elif ch in ("\u202c", "\u2069"):
            if not open_ or _CLOSER[open_[-1][1]] != ch:
                return (
                    f"the text holds an unmatched {NAMES[ch]} (character {i + 1}), "
                    "which closes nothing"
                )
            open_.pop()
        elif open_ and bidirectional(ch) in _BREAK:
            break
    if open_:
        i, ch = open_[-1]
        return (
            f"the text holds an unmatched {NAMES[ch]} (character {i + 1}): close it with "
            f"{NAMES[_CLOSER[ch]]} in the same line, or remove it"
        )
    return None


def _type(ch: str) -> str:
    return bidirectional(ch) or "L"  # an unassigned code point: left to right (UAX #9 default)


def base_level(text: str, isolate: bool = False) -> int:
    """P2-P3: 1 when the first strong character outside isolates is right to left, else 0.
    isolate: text follows an FSI, whose own PDI ends it."""
    isolates = 0
    for ch in text:
        t = _type(ch)
        if t in _ISOLATE:
            isolates += 1
        elif t == "PDI":
            if not isolates and isolate:
                return 0
            isolates = max(0, isolates - 1)
        elif not isolates and t in ("L", "R", "AL"):
            return 0 if t == "L" else 1
    return 0


def levels(text: str, base: int) -> list[int]:
    """The resolved embedding level of each character of one line (X1-I2)."""
    types = [_type(ch) for ch in text]
    lv = _explicit(text, types, base)
    kept = [i for i, t in enumerate(types) if t not in _REMOVED]
    for run in _runs(kept, lv, base):
        _weak(run, types)
        _neutral(run, types, lv)
        for i in run[1:-1]:  # I1, I2
            t = types[i]
            if lv[i] % 2 == 0:
                lv[i] += 1 if t == "R" else 0 if t == "L" else 2
            elif t != "R":
                lv[i] += 1
    level = base
    for i, t in enumerate(types):  # the removed ones: the level of the character before
        if t in _REMOVED:
            lv[i] = level
        level = lv[i]
    return lv


def _explicit(text: str, types: list[str], base: int) -> list[int]:
    """X1-X8: each character's embedding level; overrides and isolates change types in place."""
    lv = [base] * len(types)
    stack: list[tuple[int, str, bool]] = []  # (level, override, an isolate) of the outer ones
    level, override, overflow = base, "N", 0
    for i, t in enumerate(types):
        if t in _EMBED or t in _ISOLATE:
            if t in _ISOLATE:
                lv[i], types[i] = level, "ON"
            odd = _EMBED[t][0] if t in _EMBED else _ISOLATE[t]
            if odd < 0:  # FSI: the direction of its first strong character
                odd = base_level(text[i + 1 :], True)
            new = (level + 1) | 1 if odd else (level + 2) & ~1
            if overflow or new >= _LIMIT:
                overflow += 1
                continue
            stack.append((level, override, t in _ISOLATE))
            level, override = new, _EMBED[t][1] if t in _EMBED else "N"
        elif t == "PDF" or t == "PDI":
            types[i] = "ON" if t == "PDI" else t
            if overflow:
                overflow -= 1
            elif stack and (t == "PDI") == stack[-1][2]:
                level, override, _ = stack.pop()
            elif t == "PDI" and any(s[2] for s in stack):  # closes the embeddings inside it too
                while not stack[-1][2]:
                    stack.pop()
                level, override, _ = stack.pop()
            if t == "PDI":
                lv[i] = level
        elif t == "B":  # X8
            stack, level, override, overflow = [], base, "N", 0
            lv[i] = base
        elif t != "BN":  # X6
            lv[i] = level
            if override != "N":
                types[i] = override
    return lv


def _runs(kept: list[int], lv: list[int], base: int) -> list[list[int]]:
    """X10: level runs of the kept characters, each as [sor, indices..., eor] with sor and eor
    given as -1 (L) or -2 (R)."""
    runs: list[list[int]] = []
    start = 0
    for k in range(1, len(kept) + 1):
        if k == len(kept) or lv[kept[k]] != lv[kept[start]]:
            level = lv[kept[start]]
            before = lv[kept[start - 1]] if start else base
            after = lv[kept[k]] if k < len(kept) else base
            sor, eor = -1 - max(level, before) % 2, -1 - max(level, after) % 2
            runs.append([sor, *kept[start:k], eor])
            start = k
    return runs


def _t(types: list[str], i: int) -> str:
    return ("R", "L")[i + 2] if i < 0 else types[i]


def _weak(run: list[int], types: list[str]) -> None:
    """W1-W7 within one level run."""
    chars = run[1:-1]
    prev_strong = prev = _t(types, run[0])
    for i in chars:  # W1 (NSM), W2 (EN after AL), W3 (AL is R)
        if types[i] == "NSM":
            types[i] = prev
        if types[i] == "EN" and prev_strong == "AL":
            types[i] = "AN"
        if types[i] in ("R", "L", "AL"):
            prev_strong = types[i]
        prev = types[i]
    for i in chars:
        if types[i] == "AL":
            types[i] = "R"
    for a, i, b in zip(chars, chars[1:], chars[2:]):  # W4
        if types[i] == "ES" and types[a] == types[b] == "EN":
            types[i] = "EN"
        if types[i] == "CS" and types[a] == types[b] and types[a] in ("AN", "EN"):
            types[i] = types[a]
    for k, i in enumerate(chars):  # W5: terminators next to European numbers
        if types[i] == "EN":
            for side in (range(k - 1, -1, -1), range(k + 1, len(chars))):
                for j in side:
                    if types[chars[j]] != "ET":
                        break
                    types[chars[j]] = "EN"
    prev_strong = _t(types, run[0])
    for i in chars:  # W6 and W7
        if types[i] in ("ET", "ES", "CS"):
            types[i] = "ON"
        if types[i] == "EN" and prev_strong == "L":
            types[i] = "L"
        if types[i] in ("L", "R"):
            prev_strong = types[i]


def _neutral(run: list[int], types: list[str], lv: list[int]) -> None:
    """N1-N2: a stretch of neutrals between two characters of one direction takes it (numbers
    count as right to left; sor and eor at the run's ends), any other its level's."""
    start = None
    for k, i in enumerate(run):
        if _t(types, i) in _NEUTRAL:
            start = k if start is None else start
            continue
        if start is not None:
            before, after = (_t(types, run[start - 1]), _t(types, i))
            before = "R" if before in ("AN", "EN") else before
            after = "R" if after in ("AN", "EN") else after
            for j in run[start:k]:
                types[j] = before if before == after else "LR"[lv[j] % 2]
            start = None
