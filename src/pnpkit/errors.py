"""Problems found in a game pack: one type, one text format."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Location:
    """A place in a source file; line and column are 1-based (0 = unknown)."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a game pack, and where."""

    where: Location
    message: str
    rule: str = "schema"
    level: str = field(default="error")

    def __str__(self) -> str:
        return f"{self.where}: {self.level}: {self.message} [{self.rule}]"

    @property
    def is_error(self) -> bool:
        return self.level == "error"
