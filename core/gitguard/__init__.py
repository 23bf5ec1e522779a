"""git's executable settings, watched around every process ljtui starts for a model (SAFE-1, SAFE-5).

A sandboxed command may write the repository, and the repository holds
``.git``: a hook, a ``core.fsmonitor`` or a filter driver it writes there
does nothing at once, but runs outside any sandbox the next time the user
runs ``git commit``. :class:`~ljtui.core.gitguard.guard.GitSettingsGuard`
takes a snapshot of everything in the repository that names a program git
would run (:mod:`~ljtui.core.gitguard.places`) before a command, a check or
an MCP server call, compares it after, shows a change as an exact diff and
reverts it unless the user keeps it.
"""
