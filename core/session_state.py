"""State one session's services share, each owned here and handed to them: the configuration in force, the
turn counter and the session's event sink.

The engine owns these objects and passes them to the services it builds; a
service reads them when it acts, so ``/model`` or trusting the repository
changes what the next model call uses without rebuilding anything.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from ljtui.core.config import Config
from ljtui.core.events import Event
from ljtui.core.ports import EventSink
from ljtui.core.secrets import known_secrets, redact_event


class SessionSettings:
    """The configuration in force and the secrets it names (never shown, never sent back to the model)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.secrets: tuple[str, ...] = known_secrets(config.provider)

    def use(self, config: Config) -> None:
        """Use ``config`` from now on."""
        self.config = config
        self.secrets = known_secrets(config.provider)


class TurnCounter:
    """Numbers the session's turns: chat messages, task plans, planner runs and ``/compact`` each take one."""

    def __init__(self) -> None:
        self.value = 0

    def next(self) -> int:
        """Start a new turn; its number."""
        self.value += 1
        return self.value


class SessionSink:
    """The session's sink: every event is redacted of the configured secrets, passed to the front end's sink,
    then shown to the taps (a task plan watches which files its tasks write)."""

    def __init__(self, inner: EventSink, settings: SessionSettings) -> None:
        self.inner = inner
        self._settings = settings
        self._taps: list[Callable[[Event], None]] = []

    def emit(self, event: Event) -> None:
        secrets = self._settings.secrets
        self.inner.emit(redact_event(event, secrets) if secrets else event)
        for see in tuple(self._taps):
            see(event)

    @contextmanager
    def tapped(self, see: Callable[[Event], None]) -> Iterator[None]:
        """Show every event to ``see`` (which must not raise) while the block runs."""
        self._taps.append(see)
        try:
            yield
        finally:
            self._taps.remove(see)
