"""`python -m pnpkit` runs the command line."""

from pnpkit.commands.cli import run

run()
