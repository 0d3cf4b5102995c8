"""Editing a pack from the studio: an item's values with their places (sources), and each edit
written back into its YAML, CSV, TSV or XLSX file with every other byte kept (writeback)."""
