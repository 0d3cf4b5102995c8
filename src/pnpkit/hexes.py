"""Hex tiles: geometry for templates and a packer that lays hexes edge to edge, sharing cut lines."""
