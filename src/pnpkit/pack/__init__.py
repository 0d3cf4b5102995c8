"""Reading a pack: its files, its format and every key's check, sheets of items,
the checked model."""
