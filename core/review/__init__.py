"""Reviewing an EDIT plan block by block, then applying the accepted blocks.

Everything the Diff pane does lives here, so the TUI holds no patching logic
and headless callers can do the same.
"""
