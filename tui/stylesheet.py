"""A stylesheet that parses each CSS source once per set of variables.

Textual's :meth:`Stylesheet.reparse` parses every source again in a fresh
stylesheet and drops the parse cache with it. It runs when the theme is set
at start (and when a screen with its own ``CSS`` is installed), so every
source added after that, each widget class's ``DEFAULT_CSS`` on the way to
the first frame, was parsed a second time.
"""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet


class IncrementalStylesheet(Stylesheet):
    """``reparse`` keeps the parse cache.

    The cache is keyed by each source's text and location and is emptied by
    :meth:`set_variables`, so a new theme still parses everything with its
    colours, while a new source parses only itself. A source that fails to
    parse leaves the rules as they were, as with Textual's ``reparse``.
    """

    def reparse(self) -> None:
        self.parse()
