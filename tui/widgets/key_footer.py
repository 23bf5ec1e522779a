"""The footer: the keys that work where the focus is, fitted to one line.

Textual's footer rebuilds itself every time the bindings change, and at
start-up (focus, mount, screen resume) they change several times within one
frame. This footer gathers those changes and rebuilds once per frame.

It also fits its keys to the terminal's width instead of cutting them off
at the right edge. The focused pane's keys come first, in the order the
registry declares them (that order is their importance); the keys of the
screen and the app follow. When they do not all fit, the footer first draws
them closer together, then leaves out the screen's and the app's keys, then
the pane's minor keys (:attr:`~ljtui.tui.actions.Action.minor`), then the
pane's other keys, the last declared first in each group. F1 Help and the
command palette key go last, the palette first: between them they list and
reach every key left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

HELP_ACTION_ID = "app.help"
"""The global key kept longest: it lists every key the footer leaves out."""
HELP, PALETTE, PANE, MINOR, GLOBAL = 0, 1, 2, 3, 4
"""Ranks: a lower rank is left out later (``PALETTE`` is the command palette key's)."""


@dataclass(frozen=True)
class Shown:
    """One key as the footer draws it."""

    key: str
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str
    rank: int

    def width(self, compact: bool) -> int:
        """Cells the key takes, its margin included (Textual's footer key styles)."""
        if not self.description:
            return cell_len(self.display) + (1 if compact else 0)
        return cell_len(self.display) + cell_len(self.description) + (2 if compact else 3)


def palette_width(display: str, description: str, compact: bool) -> int:
    """Cells the command palette key takes at the footer's right edge (its border included)."""
    return 1 + cell_len(display) + 1 + cell_len(description) + (0 if compact else 1)


def fit(keys: list[Shown], width: int, palette: tuple[int, int] | None) -> tuple[list[Shown], bool, bool]:
    """The keys that fit in ``width`` cells, whether they are drawn compact, and whether the palette key is
    drawn (``palette``: its width drawn normally and compact; ``None``: there is no palette key).

    Everything drawn normally, else compact; else, compact, the key of the highest rank is left out (the
    last of its rank first, the palette key ranking :data:`PALETTE`) until the rest fit."""
    with_palette = palette is not None

    def total(chosen: list[Shown], compact: bool, drawn_palette: bool) -> int:
        extra = palette[compact] if drawn_palette and palette is not None else 0
        return sum(k.width(compact) for k in chosen) + extra

    for compact in (False, True):
        if total(keys, compact, with_palette) <= width:
            return list(keys), compact, with_palette
    chosen = list(keys)
    while (chosen or with_palette) and total(chosen, True, with_palette) > width:
        last = max(range(len(chosen)), key=lambda i: (chosen[i].rank, i), default=None)
        if last is None or (with_palette and chosen[last].rank < PALETTE):
            with_palette = False
        else:
            del chosen[last]
    return chosen, True, with_palette


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that rebuilds at most once per frame and fits its keys to its width."""

    _rebuild_pending = False
    _built_width = -1

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        self._schedule()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._built_width and self._bindings_ready:
            self._schedule()

    def _schedule(self) -> None:
        if not self._rebuild_pending:
            self._rebuild_pending = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_pending = False
        await self.recompose()

    def shown_keys(self) -> list[Shown]:
        """The keys to show, one per action, the focused pane's first."""
        from ljtui.tui.commands import ACTIONS

        screen, app = self.screen, self.app
        seen: set[str] = set()
        keys: list[Shown] = []
        for node, binding, enabled, tooltip in screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            if node is not app and node is not screen:
                action = ACTIONS.get(binding.id) if binding.id else None
                rank = MINOR if action is not None and action.minor else PANE
            else:
                rank = HELP if binding.id == HELP_ACTION_ID else GLOBAL
            keys.append(Shown(binding.key, app.get_key_display(binding), binding.description, binding.action,
                              enabled, tooltip, rank))
        keys.sort(key=lambda k: k.rank not in (PANE, MINOR))
        return keys

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        width = self.size.width
        self._built_width = width
        keys = self.shown_keys()
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        display = self.app.get_key_display(palette.binding) if palette is not None else ""
        description = palette.binding.description if palette is not None else ""
        widths = (palette_width(display, description, False), palette_width(display, description, True))
        chosen, compact, with_palette = fit(keys, width, widths if palette is not None else None)
        self.compact = compact
        for key in chosen:
            yield FooterKey(key.key, key.display, key.description, key.action, disabled=not key.enabled,
                            tooltip=key.tooltip).data_bind(compact=Footer.compact)
        if with_palette and palette is not None:
            yield FooterKey(palette.binding.key, display, description, palette.binding.action,
                            classes="-command-palette", disabled=not palette.enabled,
                            tooltip=palette.binding.tooltip or description)
