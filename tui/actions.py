"""Every action of the app, in one registry.

One :class:`Action` per thing a user can do. The registry generates the key
bindings of each scope (the app, the main screen, each pane), the command
palette entries, the slash commands and the help screen, so they can never
disagree. Keys can be changed in the user's config (``ui.keymap``: action id
→ keys), applied with Textual's keymap support.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from textual.binding import Binding

if TYPE_CHECKING:
    from ljtui.tui.app import LjtuiApp

APP = "app"
MAIN = "main"
DIFF = "diff"
"""Scopes: where an action's key works (the app, the main screen, the focused Diff pane)."""

NONE, OPTIONAL, REQUIRED = "none", "optional", "required"
"""Whether a slash command takes text after its name."""

MOVEMENT_KEYS = frozenset({"up", "down", "left", "right", "j", "k", "h", "l", "pageup", "pagedown", "home", "end"})
"""Keys that move within a pane (a selection, a scroll)."""
MOVES_IN_PANE = "moves within its pane: from the palette it would move what the user does not see"
"""Why an action whose keys all move within a pane is not in the command palette."""

Run = Callable[["LjtuiApp", str], None]
"""Carries an action out; the string is the slash command's argument text (empty from a key)."""


@dataclass(frozen=True)
class Action:
    """One thing a user can do, and every way to reach it.

    Attributes:
        id: stable name, also the binding id users remap in ``ui.keymap``.
        title: what it does, for the palette, the help screen and tooltips.
        run: carries it out.
        keys: default keys (Textual key names, comma separated); empty: no key.
        label: short footer label; empty keeps the key out of the footer.
        scope: where the key works.
        slash: the slash command name; empty: none.
        usage: how the slash command is typed, e.g. ``/open PLAN.md``.
        args: whether the slash command takes text.
        priority: the key acts before the focused widget sees it (quit; the focus keys, so keys read with them
            in one batch go to the pane they focus).
        palette: listed in the command palette.
        palette_note: why it is not (see :attr:`palette_reason`).
        minor: a short footer leaves this key out before the pane's other keys (F1 and the palette still list it).
    """

    id: str
    title: str
    run: Run
    keys: str = ""
    label: str = ""
    scope: str = APP
    slash: str = ""
    usage: str = ""
    args: str = NONE
    priority: bool = False
    palette: bool = True
    palette_note: str = ""
    minor: bool = False

    @property
    def palette_reason(self) -> str:
        """Why the action is not in the command palette: its note, or :data:`MOVES_IN_PANE` for movement keys;
        empty when it is in the palette (or is left out without a reason)."""
        if self.palette:
            return ""
        keys = {k.strip() for k in self.keys.split(",") if k.strip()}
        return self.palette_note or (MOVES_IN_PANE if keys and keys <= MOVEMENT_KEYS else "")

    def binding(self) -> Binding:
        """The Textual binding for this action's keys."""
        return Binding(self.keys, f"app.run_action('{self.id}')", self.label or self.title, show=bool(self.label),
                       id=self.id, tooltip=self.title, priority=self.priority)


class Registry:
    """Actions by id and by slash name, in a stable order."""

    def __init__(self, actions: tuple[Action, ...]) -> None:
        self.actions = actions
        self._by_id = {a.id: a for a in actions}
        self._by_slash = {a.slash: a for a in actions if a.slash}
        if len(self._by_id) != len(actions) or len(self._by_slash) != sum(1 for a in actions if a.slash):
            raise ValueError("action ids and slash names must be unique")

    def get(self, action_id: str) -> Action | None:
        return self._by_id.get(action_id)

    def slash(self, name: str) -> Action | None:
        return self._by_slash.get(name)

    def bindings(self, scope: str) -> list[Binding]:
        """Bindings of every action with keys in ``scope``."""
        return [a.binding() for a in self.actions if a.keys and a.scope == scope]

    def slash_commands(self) -> list[Action]:
        """Actions reachable as slash commands, by name."""
        return sorted(self._by_slash.values(), key=lambda a: a.slash)

    def keys_by_pane(self, keymap: dict[str, str]) -> dict[str, set[str]]:
        """The keys bound in each pane scope after the user's ``keymap`` (action id → keys);
        ``everywhere``: the keys of the app and the main screen, which always act."""
        keys: dict[str, set[str]] = {}
        for action in self.actions:
            bound = keymap.get(action.id, action.keys)
            if bound:
                scope = "everywhere" if action.scope in (APP, MAIN) else action.scope
                keys.setdefault(scope, set()).update(k.strip() for k in bound.split(","))
        return keys
