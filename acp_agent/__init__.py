"""``ljtui acp``: ljtui as an Agent Client Protocol agent, a front end beside the TUI and the CLI.

An editor (Zed, a JetBrains IDE, Neovim, Emacs, Toad …) starts ``ljtui acp`` and speaks JSON-RPC to it over
stdio through the ``agent-client-protocol`` SDK. Each ACP session is one :class:`~ljtui.core.engine.Engine` in
the repository holding the session's ``cwd``; its events become ``session/update`` notifications
(:mod:`.updates`) and every question it asks a human becomes ``session/request_permission``
(:mod:`.approver`). Files are read and written by ljtui itself, through its transaction and journal, and
commands run in its sandbox: the client's ``fs`` and ``terminal`` methods are not used (:mod:`.agent` says why).
"""
