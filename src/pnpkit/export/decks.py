"""A pack's faces as decks: each group's items in pack order, with their faces and copies.

What every export walks (export.py, tts.py); NN-group folders and NNNa-item-front names
sort in deck order.
"""

from __future__ import annotations

from dataclasses import dataclass

from pnpkit.pack.model import Face, Pack


@dataclass
class DeckItem:
    """One item of a group: its faces and how many copies the game needs."""

    number: int  # 1-based, in pack order
    id: str
    count: int
    front: Face | None
    back: Face | None


@dataclass
class Deck:
    """A group's items in pack order, with its folder name (NN-group) and its shared back if any."""

    number: int
    name: str
    kind: str
    size: tuple[float, float]
    bleed: float
    items: list[DeckItem]

    @property
    def folder(self) -> str:
        return f"{self.number:02d}-{self.name}"

    @property
    def shared_back(self) -> Face | None:
        """The back every item shows, when there is one and more than one item shares it."""
        backs = [i.back for i in self.items if i.back is not None]
        every = len(self.items) > 1 and len(backs) == len(self.items)
        if every and len({b.svg for b in backs}) == 1:
            return backs[0]
        return None

    @property
    def copies(self) -> int:
        return sum(i.count for i in self.items)


def group_faces(pack: Pack, faces: list[Face]) -> list[Deck]:
    """Faces (in render order: group, item, side) as decks of items."""
    numbers = {name: n for n, name in enumerate(pack.groups, 1)}
    decks: dict[str, Deck] = {}
    for face in faces:
        deck = decks.get(face.group)
        if deck is None:
            deck = decks[face.group] = Deck(
                numbers[face.group], face.group, face.kind, face.size, face.bleed, []
            )
        if not deck.items or deck.items[-1].id != face.item:
            deck.items.append(DeckItem(len(deck.items) + 1, face.item, face.count, None, None))
        setattr(deck.items[-1], face.side, face)
    return sorted(decks.values(), key=lambda d: d.number)


def face_stem(item: DeckItem, side: str) -> str:
    """NNNa-<item>-front / NNNb-<item>-back: sorts in deck order, front before back."""
    return f"{item.number:03d}{'a' if side == 'front' else 'b'}-{item.id}-{side}"
