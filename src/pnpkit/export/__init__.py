"""Exports of a built kit: print-shop profiles, Tabletop Simulator, face pages, PDF/X,
low ink."""
