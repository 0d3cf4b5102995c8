"""Problems found in a game pack: one type, one text format."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Location:
    """A place in a source file; line and column are 1-based (0 = unknown)."""

    file: str
    line: int = 0
    column: int = 0
    sheet: str = (
        ""  # a workbook's sheet: then line is the row, column the column, shown as Deck!C14
    )

    def __str__(self) -> str:
        if self.sheet:
            return f"{self.file}:{self.sheet}!{column_letters(self.column)}{self.line}"
        return f"{self.file}:{self.line}:{self.column}"


def column_letters(n: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA: a spreadsheet's column name."""
    out = ""
    while n > 0:
        n, rest = divmod(n - 1, 26)
        out = chr(65 + rest) + out
    return out


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a game pack, and where."""

    where: Location
    message: str
    rule: str = "schema"
    level: str = field(default="error")

    def __str__(self) -> str:
        return f"{self.where}: {self.level}: {one_line(self.message)} [{self.rule}]"

    @property
    def is_error(self) -> bool:
        return self.level == "error"


MAX_QUOTED = 300  # characters of a library's message (libxml's, say) quoted in one of ours


def one_line(message: str, limit: int = 0) -> str:
    """message on one line (a problem is one line of output: libxml's message for a long
    attribute spans two), cut to limit characters when limit is given."""
    if any(ch in message for ch in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        message = " ".join(message.split())
    if limit and len(message) > limit:
        message = message[: limit - 1] + "…"
    return message


ALL_WARNINGS_HELP = "list every warning (by default warnings alike are folded into one line)"
# a text, an item or a file the message names; a quote inside it (player's) is no end of it
_QUOTED = re.compile(r"'.*?'(?=[\s),;:]|$)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")  # a size, a ratio, a line


def folded(problems: Sequence[Problem]) -> list[Problem]:
    """The problems as the terminal shows them: errors each on its own; warnings alike (one rule,
    one message but for the quoted texts and numbers in it: a low contrast on 500 cards) as the
    first of them, saying how many more there are. A summary still counts every one."""
    alike: dict[tuple[str, str, str], list[Problem]] = {}
    for problem in problems:
        if not problem.is_error:
            alike.setdefault(_shape(problem), []).append(problem)
    shown = []
    for problem in problems:
        group = [problem] if problem.is_error else alike[_shape(problem)]
        if group[0] is not problem:
            continue
        more = len(group) - 1
        if more:
            note = f"; … and {more} more like this; --all-warnings lists them"
            problem = dataclasses.replace(problem, message=problem.message + note)
        shown.append(problem)
    return shown


def _shape(problem: Problem) -> tuple[str, str, str]:
    """What warnings alike share: level, rule and the message with its particulars masked."""
    masked = _NUMBER.sub("#", _QUOTED.sub("'…'", problem.message))
    return problem.level, problem.rule, masked
