"""pnpkit: print-and-play kits for board games from YAML game packs."""

__version__ = "0.1.0"
