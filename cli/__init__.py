"""The ``ljtui`` command line: the full-screen app and headless sub-commands."""
