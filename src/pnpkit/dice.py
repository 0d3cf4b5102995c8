"""Dice: cube nets with fold lines and glue tabs, and sticker sheets, for templates."""
