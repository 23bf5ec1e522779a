"""The conversation agent: its tools, the permissions they ask for, and the one path every write takes.

* ``permissions`` — who may write or run a command: the user's answers
  (once, for the session, deny), allow-lists, and dangerous commands that
  can only ever be allowed once.
* ``writer`` — the single write path: every byte an agent writes goes
  through the patcher's transaction, grouped per user message so undo
  reverts a message's writes exactly as it reverts an applied plan.
* ``tools`` — the agent's tools (AGENT-2), one module per family.
"""
