"""What one confined command may do: where it may write, and whether it may use the network.

A :class:`Rules` value is plain data, computed per command by the
session's :class:`~ljtui.core.confine.session.CommandSandbox` and
enforced by a backend (:mod:`~ljtui.core.confine.landlock` or
:mod:`~ljtui.core.confine.bwrap`). Reads are never restricted: a command
may read what the user may read (the secret-file rules bind ljtui's own
file tools, not programs).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEVICES: tuple[str, ...] = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
"""Device files every command may write to (data written there goes nowhere)."""


@dataclass(frozen=True)
class Place:
    """A folder (or file) a command may write below, and how the user reads it.

    Attributes:
        path: the real path.
        label: how dialogs name it ("this repository", "a private temp dir", the path itself).
    """

    path: Path
    label: str


@dataclass(frozen=True)
class Rules:
    """The limits of one command.

    Attributes:
        places: where writes are allowed (besides :data:`DEVICES`).
        network: whether TCP connect and bind (and, where the backend can, every
            other socket to another host) are allowed.
        network_enforced: whether the backend can forbid the network at all; when it
            cannot (Landlock before ABI 4, no bubblewrap), ``network`` is moot.
    """

    places: tuple[Place, ...]
    network: bool = False
    network_enforced: bool = True

    @property
    def paths(self) -> tuple[Path, ...]:
        """The writable paths."""
        return tuple(p.path for p in self.places)

    def with_network(self, network: bool) -> Rules:
        """The same rules with the network on or off."""
        return Rules(self.places, network, self.network_enforced)

    def allows_write(self, path: str | Path) -> bool:
        """Whether a write to ``path`` (absolute) falls inside a writable place or a device."""
        text = str(path)
        if text in DEVICES:
            return True
        target = Path(text)
        return any(target == p or p in target.parents for p in self.paths)

    def describe(self) -> str:
        """``writes: this repository, a private temp dir; network: off`` — what a dialog shows."""
        return f"writes: {', '.join(p.label for p in self.places)}; network: {self.network_word()}"

    def network_word(self) -> str:
        """``on``, ``off``, or ``not confined`` when the backend cannot forbid it."""
        if not self.network_enforced:
            return "not confined on this system"
        return "on" if self.network else "off"
