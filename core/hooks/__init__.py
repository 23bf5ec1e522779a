"""Hooks: the user's own commands run on the agent's events, in Claude Code's format (SPEC §11, HOOK-1/2).

:mod:`~ljtui.core.hooks.spec` reads hook definitions (the user's config, a trusted repository's
``.agent/hooks.json`` and ``.claude/settings.json``), :mod:`~ljtui.core.hooks.runner` runs one event's hooks
side by side in the session's sandbox (and layer), :mod:`~ljtui.core.hooks.verdict` reads what they answered,
and :class:`~ljtui.core.hooks.service.SessionHooks` is the one door the engine's services fire events through.
"""
