"""A PDF's face forms drawn on two cores.

Drawing each face into its PDF form and formatting it is most of writing a first build's PDF.
Once the document's fonts are seeded with every character its forms use (cacheforms.FormPlan),
a form's bytes depend on nothing else the document holds, so a forked child, a copy of the
document at that moment, draws the last half of the forms still to draw (in the order the PDF
draws them) while this process draws the first half; it hands their bytes back as cache entries
(marshal, through a temporary file), which this process takes as it takes the forms an earlier
build kept (FormDrawing.kept_form). The PDF is byte-identical to one drawn on one core
(tests/test_prewarm.py).

Only where it pays and is safe (child.may_fork()): MIN_FORMS forms or more still to draw.
"""

from __future__ import annotations

import contextlib
import marshal
import tempfile
from collections.abc import Callable, Sequence

from pnpkit.build import child
from pnpkit.build.cachefile import Entry

MIN_FORMS = 100  # forms to draw; fewer, and forking a copy of the build costs more than half


class Ahead:
    """A child drawing the forms of `theirs` (drawing ids) with draw(), its new entries of
    `forms` handed back through a temporary file; this process draws `mine` forms first."""

    def __init__(
        self, forms: dict[bytes, Entry], theirs: set[int], mine: int, draw: Callable[[], None]
    ) -> None:
        self.forms, self.theirs, self.mine = forms, theirs, mine
        self.asked = 0  # forms this process drew or took since
        # a file with no name: it goes with the last process holding it, even a killed build's
        self.file = tempfile.TemporaryFile(prefix="pnpkit-forms-")
        before = set(forms)
        self.child = child.Child(lambda: self._draw_and_keep(draw, before))

    def _draw_and_keep(self, draw: Callable[[], None], before: set[bytes]) -> None:
        draw()
        made = {key: entry for key, entry in self.forms.items() if key not in before}
        marshal.dump(made, self.file)
        self.file.flush()  # the child leaves with os._exit, which flushes nothing

    def due(self, drawing: int) -> bool:
        """Whether this process, about to draw the form of `drawing` (its id), should wait for
        the child's instead: one of the child's, once this process has drawn its own half
        (before that, a face drawn early, on a kit's cover, say, it draws itself)."""
        self.asked += 1
        return drawing in self.theirs and self.asked > self.mine

    def collect(self) -> None:
        """Wait for the child and take its forms (none, if it failed)."""
        if self.child.wait() == 0:
            with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
                self.file.seek(0)  # the child wrote through the same open file
                made = marshal.load(self.file)
                for key, entry in made.items():
                    self.forms.setdefault(key, entry)
        self.stop()

    def stop(self) -> None:
        """End the child if it is still there; its file goes."""
        self.child.stop()
        self.file.close()


def may(forms: int) -> bool:
    """Whether a PDF of `forms` forms could have a child draw some: asked before their keys."""
    return forms >= MIN_FORMS and child.may_fork()


def start(
    forms: dict[bytes, Entry], to_draw: Sequence[int], draw: Callable[[set[int]], None]
) -> Ahead | None:
    """A child drawing the last half of `to_draw` (the ids of the drawings whose forms are not
    in `forms`, in the order the PDF draws them) with draw(ids); None where that does not pay
    or cannot be."""
    if not may(len(to_draw)):
        return None
    half = len(to_draw) // 2
    theirs = set(to_draw[half:])
    return Ahead(forms, theirs, half, lambda: draw(theirs))
