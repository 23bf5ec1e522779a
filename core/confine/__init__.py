"""Confining the commands ljtui runs for a model: a kernel sandbox around every child (SAFE-1)."""
