"""Edits a model drives never touch a secret file: they are refused before it is read.

An edit tells a model what its target holds: a failed match quotes the
nearest lines, and even the bare answer (matched once, not found, found
twice) lets a model test guesses of the text one byte at a time. So every
edit path that answers a model (the planner's plan check and its repair
text, the agent's ``edit_file``) takes the session's
:class:`~ljtui.core.secret_files.SecretFiles` policy and refuses a target
the policy calls secret, by the path as written and by the file it resolves
to through symlinks, with a :class:`~ljtui.core.edits.errors.SecretTarget`
error, before the file is opened. Resolving a path only looks at the file
system's names (``realpath``, ``stat``), never at a file's bytes.

The user's own apply of a plan (``ljtui apply``, the Diff pane) gives no
policy, so it works on any file, secret or not.
"""

from __future__ import annotations

from pathlib import Path

from ljtui.core.edits import errors as E
from ljtui.core.edits.paths import Target, resolve_target
from ljtui.core.secret_files import SecretFiles

EDIT_NOTE = (
    "Edits to it are refused too, before it is read, because whether `old` matches would tell its text. "
    "Leave it out of the change, or ask the user to change it themselves."
)
"""Added to :meth:`SecretFiles.refusal` when an edit, not a read, is refused."""


def secret_rule(secrets: SecretFiles, asked: str, key: str | None = None) -> str | None:
    """The rule that makes a target secret, or ``None`` when a model may edit it.

    Args:
        secrets: the session's policy.
        asked: the path as the model wrote it.
        key: the repository-relative path it resolves to, when known.
    """
    for rel in (asked, key):
        rule = secrets.rule_for(rel) if rel is not None else None
        if rule is not None:
            return rule
    return None


def secret_rule_at(secrets: SecretFiles, root: Path, path: str) -> str | None:
    """:func:`secret_rule` for ``path`` as written and as it resolves under ``root`` (nothing is read)."""
    rule = secrets.rule_for(path)
    if rule is not None:
        return rule
    target = resolve_target(root, path, for_write=False)
    return secrets.rule_for(target.key) if isinstance(target, Target) else None


def edit_refusal(secrets: SecretFiles, shown: str, rule: str) -> str:
    """What a model is told when an edit of the secret file ``shown`` is refused."""
    return f"{secrets.refusal(shown, rule)} {EDIT_NOTE}"


def secret_target(secrets: SecretFiles, block: int | None, shown: str, rule: str) -> E.SecretTarget:
    """The named error of a refused edit of ``shown`` (block ``block``), matching ``rule``."""
    return E.SecretTarget(block, edit_refusal(secrets, shown, rule), file=shown)
