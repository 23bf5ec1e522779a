"""The sandbox backends by name, and :class:`SandboxStatus`: the one in use and why."""

from __future__ import annotations

from dataclasses import dataclass

AUTO, LANDLOCK, BUBBLEWRAP, NONE = "auto", "landlock", "bubblewrap", "none"
BACKEND_CHOICES: tuple[str, ...] = (AUTO, LANDLOCK, BUBBLEWRAP, NONE)
"""Values of ``agent.sandbox.backend``."""
UNSANDBOXED = "unsandboxed"
"""What the status bar and every command dialog say when no sandbox confines commands."""


@dataclass(frozen=True)
class SandboxStatus:
    """The sandbox in use.

    Attributes:
        backend: :data:`LANDLOCK`, :data:`BUBBLEWRAP` or :data:`NONE`.
        why: one sentence: why this backend (and not a better one).
        abi: the kernel's Landlock ABI (0: none).
        bwrap: the ``bwrap`` program used, when it is the backend.
        network_enforced: whether the backend can forbid the network.
    """

    backend: str
    why: str
    abi: int = 0
    bwrap: str | None = None
    network_enforced: bool = True

    @property
    def confined(self) -> bool:
        """Whether commands run in a sandbox at all."""
        return self.backend != NONE

    @property
    def label(self) -> str:
        """``landlock``, ``bubblewrap`` or ``unsandboxed``."""
        return self.backend if self.confined else UNSANDBOXED
