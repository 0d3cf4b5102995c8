"""Problems found in a game pack: one type, one text format."""

from __future__ import annotations

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
