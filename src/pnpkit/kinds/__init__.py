"""Kinds of piece that bring their own rules and packers (dice, hexes, labels), and the
registry that holds them."""
