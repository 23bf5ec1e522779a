"""Which tool the agent edits part of a file with: the edit format the session's model was trained on.

OpenAI's models (``gpt-*``, the o-series, ``codex``) edit best with Codex
patches (``apply_patch``); Anthropic's and every other family (``claude-*``,
and local ones: qwen, llama, gemma …) with exact string replacement
(``edit_file``). ``agent.edit_tools`` chooses: ``replace``, ``patch``, or
``auto``, which goes by the model's name whatever the provider serving it.
``write_file`` and ``create_directory`` are offered in every case.
"""

from __future__ import annotations

from ljtui.core.config import EDIT_TOOLS_CHOICES

AUTO, REPLACE, PATCH = EDIT_TOOLS_CHOICES
EDIT_FILE, APPLY_PATCH = "edit_file", "apply_patch"
EDIT_TOOLS = frozenset({EDIT_FILE, APPLY_PATCH})
"""The tools that edit part of a file, of which the agent is offered one."""
OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "codex")
"""How the names of OpenAI's model families start."""
OPENAI_PARTS = ("codex", "gpt-oss")
"""Parts of a name that make a model OpenAI's wherever they are (``openai/gpt-oss-20b``, ``my-codex-mini``)."""


def patch_trained(model: str) -> bool:
    """True for a model of OpenAI's families (trained on Codex's ``apply_patch``), by its name, case aside; a
    router's namespace before the last ``/`` (``openai/gpt-4.1``) is not part of it."""
    name = model.strip().lower()
    return name.rpartition("/")[2].startswith(OPENAI_PREFIXES) or any(part in name for part in OPENAI_PARTS)


def edit_tool_names(setting: str, provider: str, model: str) -> frozenset[str]:
    """Which of ``edit_file`` and ``apply_patch`` the agent is offered.

    Args:
        setting: ``agent.edit_tools``: ``auto``, ``replace`` or ``patch``.
        provider: ``provider.name``; ``auto`` goes by the model alone (an OpenAI model behind any endpoint
            edits as it was trained to).
        model: ``provider.model``.

    Raises:
        ValueError: ``setting`` is none of :data:`~ljtui.core.config.EDIT_TOOLS_CHOICES`.
    """
    if setting == REPLACE:
        return frozenset({EDIT_FILE})
    if setting == PATCH:
        return frozenset({APPLY_PATCH})
    if setting == AUTO:
        return frozenset({APPLY_PATCH if patch_trained(model) else EDIT_FILE})
    raise ValueError(f"agent.edit_tools is {setting!r}, expected one of: {', '.join(EDIT_TOOLS_CHOICES)}")


def hidden_edit_tools(setting: str, provider: str, model: str) -> frozenset[str]:
    """Which of ``edit_file`` and ``apply_patch`` the agent is not offered (the other one of
    :func:`edit_tool_names`).

    Raises:
        ValueError: ``setting`` is none of :data:`~ljtui.core.config.EDIT_TOOLS_CHOICES`.
    """
    return EDIT_TOOLS - edit_tool_names(setting, provider, model)

