"""Where a typed key goes: text belongs to the input, single-letter actions to a pane the user chose.

A printable key pressed while a pane has focus runs that pane's action only
when the key is bound there, the user moved to the pane on purpose (F2–F5,
a click, or ``ljtui review``), and the key was pressed after the pane showed
what it shows now (keys queued while a big plan rendered are not replayed
as actions). Any other printable key does nothing but show a one-line hint:
typing goes to the input only from the input, so a stray letter never sends
a message, and text meant for the input never applies, undoes or exports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

if TYPE_CHECKING:
    from ljtui.tui.screens.main import MainScreen


def pane_of(screen: MainScreen) -> str | None:
    """The id of the pane holding the focus (``prompt`` for the input), if any."""
    from ljtui.tui.screens.main import PANES

    focused = screen.focused
    if focused is None:
        return None
    for node in (focused, *focused.ancestors):
        if node.id in PANES:
            return node.id
    return None


def route_key(screen: MainScreen, event: events.Key, pane_keys: dict[str, set[str]]) -> bool:
    """Send a printable key meant as text to the input; True when it was taken here.

    Args:
        screen: the main screen (the key arrived while it is on top).
        event: the key.
        pane_keys: for each pane id, the keys bound in it (after the user's keymap);
            ``everywhere``: keys of the app and the main screen, which always act.
    """
    if not event.is_printable or event.character is None or event.key in pane_keys.get("everywhere", set()):
        return False
    pane = pane_of(screen)
    if pane is None or pane == "prompt":
        return False
    armed = screen.chosen_pane == pane and event.time >= screen.shown_at(pane)
    if armed and event.key in pane_keys.get(pane, set()):
        return False
    screen.hint(typing_hint(pane, bound=event.key in pane_keys.get(pane, set())))
    return True


def typing_hint(pane: str, *, bound: bool) -> str:
    """The one line shown when a key typed in ``pane`` did nothing (``bound``: it is a key of the pane, but
    the user did not move there on purpose, or pressed it before the pane showed what it shows now)."""
    from ljtui.tui.screens.main import PANE_KEYS, PANES

    name = PANES.get(pane, pane)
    if bound:
        return f"Press {PANE_KEYS.get(pane, '')} to use the {name} pane's keys; F6 types a message."
    return f"Typing does nothing in the {name} pane: F6 types a message, F1 lists the keys."
