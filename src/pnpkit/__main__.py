"""`python -m pnpkit` runs the command line."""

from pnpkit.cli import run

run()
