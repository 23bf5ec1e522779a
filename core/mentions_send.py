"""The context the user brings to a message: ``@`` mentions and the output of their own ``!`` commands.

:class:`UserContext` is the engine's one door for them. The prompt asks it
for ``@`` candidates (:meth:`UserContext.candidates`, from a worker) and,
before a message leaves, whether an image in it can go to the model in use
(:meth:`UserContext.image_refusal`: the message is then not sent). When the
message is sent, :meth:`UserContext.expand` reads what it mentions off the
event loop, says in the conversation what was attached and what was not,
and returns the text the model gets: the output of the ``!`` commands run
since the last message, the user's text, then the attached files and
listings; images go beside it as image blocks.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from ljtui.core.childenv import child_env
from ljtui.core.events import Notice
from ljtui.core.mentions import Candidates, list_candidates, rank
from ljtui.core.mentions_attach import attach, image_mentions, mentions
from ljtui.core.mentions_images import pasted_image, refusal, takes_images
from ljtui.core.providers.base import ImageBlock
from ljtui.core.secret_files import SecretFiles
from ljtui.core.user_shell import USAGE, UserCommands, UserRun, command_of

if TYPE_CHECKING:
    from ljtui.core.agent.chat import Conversation
    from ljtui.core.ports import EventSink
    from ljtui.core.session_state import SessionSettings


class UserContext:
    """``@`` mentions and ``!`` commands of one session in ``root``."""

    def __init__(self, root: Path, settings: SessionSettings, sink: EventSink) -> None:
        self._root = root
        self._settings = settings
        self._sink = sink
        self.commands = UserCommands(root, env=lambda: child_env(secrets=settings.secrets,
                                                                 pass_env=settings.config.agent.pass_env))
        """The user's ``!`` commands; their output goes with the next message."""

    def secrets(self) -> SecretFiles:
        """The secret-file rule in force (the user's ``security.allow_secret_files`` included)."""
        return SecretFiles.allowing(self._settings.config.security.allow_secret_files)

    def candidates(self) -> Candidates:
        """What ``@`` offers now (runs git: call from a worker)."""
        return list_candidates(self._root, self.secrets())

    @staticmethod
    def rank(query: str, candidates: Candidates) -> list[str]:
        """The candidates for what was typed after ``@``, best first (:func:`~ljtui.core.mentions.rank`)."""
        return rank(query, candidates.paths)

    @staticmethod
    def pasted_image(text: str) -> str | None:
        """The image path a paste is, to put in the prompt as a mention, or ``None``."""
        return pasted_image(text)

    @staticmethod
    def own_command(text: str) -> str | None:
        """The user's own command in prompt text ``!COMMAND`` (``""`` for ``!`` alone), or ``None``."""
        return command_of(text)

    own_usage = USAGE
    """What ``!`` alone answers."""

    async def run_own(self, command: str) -> UserRun:
        """Run the user's own ``command`` (:class:`~ljtui.core.user_shell.UserCommands`); its output goes with the
        next message.

        Raises:
            OSError: bash could not start.
        """
        return await self.commands.run(command)

    def takes_images(self) -> bool:
        """Whether the configured model takes images (``provider.images``, else its family)."""
        provider = self._settings.config.provider
        return takes_images(provider.name, provider.model, provider.images)

    def image_refusal(self, text: str) -> str | None:
        """Why ``text`` cannot be sent as it is (it names an image the model cannot take), or ``None``."""
        if not image_mentions(text) or self.takes_images():
            return None
        provider = self._settings.config.provider
        return refusal(provider.name, provider.model)

    async def expand(self, text: str) -> tuple[str, tuple[ImageBlock, ...]]:
        """The text the model gets for the user's ``text``, and the images it carries (notices say what was
        attached and refused)."""
        told = self.commands.told()
        attached = None
        if mentions(text):
            attached = await asyncio.to_thread(attach, text, self._root, self.secrets(), None,
                                               images=self.takes_images())
            if attached.shown:
                self._sink.emit(Notice("Attached: " + ", ".join(attached.shown)))
            for problem in attached.problems:
                self._sink.emit(Notice(problem, "warning"))
        context = attached.context() if attached is not None else ""
        full = "\n\n".join(part for part in (told, text, context) if part)
        return full, tuple(attached.images) if attached is not None else ()

    async def prepared(self, text: str, chat: Conversation) -> tuple[str, bool]:
        """:meth:`expand` ``text``, its images handed to ``chat`` for its next message; whether there were any
        (a message with images goes to the conversation, not to a task plan)."""
        full, images = await self.expand(text)
        chat.attach(images)
        return full, bool(images)
