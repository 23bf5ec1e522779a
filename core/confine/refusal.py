"""Telling a failure the sandbox caused from any other, and saying how the user can grant it.

The kernel does not tell a process *why* a write or a connect was refused:
a command just sees ``EACCES``, ``EPERM``, ``EROFS`` (bubblewrap's read-only
binds) or ``ENETUNREACH`` (bubblewrap's empty network), and prints its own
words for them. :func:`refusal_note` reads a failed command's output for
those errors and:

* names the path when a refused path on such a line lies outside the
  writable places (and would otherwise be writable): certainly the sandbox;
* says the network is off when the error reads like a refused connection;
* otherwise says it *may* be the sandbox, with what it allows.

It never claims the sandbox for a path inside the writable places (that
is an ordinary permission problem), and says nothing for a success.
"""

from __future__ import annotations

import os
import re

from ljtui.core.confine.spawn import Confinement

DENIED_WORDS: tuple[str, ...] = ("Permission denied", "Operation not permitted", "Read-only file system",
                                 "EACCES", "EPERM", "EROFS", "Device or resource busy")
"""How programs print a refused file operation (or, under Landlock, a refused connect)."""
NETWORK_WORDS: tuple[str, ...] = ("Network is unreachable", "ENETUNREACH", "connect", "Connection", "socket",
                                  "resolve", "Name or service not known", "getaddrinfo", "urlopen", "HTTP")
"""Words that make a refusal read like a network one (anywhere in the output)."""
SCAN_CHARS = 64_000
"""Characters of output (from the end) that are read."""
PATH = re.compile(r"(?<![\w.~-])(/[^\s'\"`:;,()\[\]{}<>|]+)")
READ_ONLY_GIT = ("layer: .git (and .agent) are read-only in the layer, so a git command that writes (add, commit, "
                 "checkout, stash, branch, a hook) fails here: that is by design, not an error to get around. Change "
                 "the files instead; the user reviews this turn's change and ljtui commits it on apply when asked.")
"""What the model is told when a command in the layer tried to write git's own files."""
HIDDEN_SECRET = ("layer: {path} is a secret file (a .env file, a key, credentials): commands in the layer can "
                 "neither read, change nor remove it, as the file tools cannot. Do not try to get around it: if the task needs it, ask the user "
                 "(they can allow it with security.allow_secret_files in their own config).")
"""What the model is told when a command in the layer was refused a secret file."""
GRANT_HINT = ("Only the user can widen the sandbox: in this command's dialog (n: with network, u: once without "
              "the sandbox) or in their own config (agent.sandbox.write_paths, agent.sandbox.network). Do not try to "
              "get around it; ask the user, or work inside the repository (temp files go in $TMPDIR).")


def refusal_note(output: str, exit_code: int | None, confinement: Confinement) -> str | None:
    """A note for the model and the user when the sandbox likely refused something the command did."""
    if not confinement.confined or exit_code == 0:
        return None
    rules = confinement.rules
    tail = output[-SCAN_CHARS:]
    lines = [line for line in tail.splitlines()
             if any(w in line for w in (*DENIED_WORDS, "Network is unreachable", "ENETUNREACH"))]
    if not lines:
        return None
    if confinement.layered and any(_names_read_only(line) for line in lines):
        return READ_ONLY_GIT
    secret = _named_secret(lines, confinement)
    if secret is not None:
        return HIDDEN_SECRET.format(path=secret)
    allowed = ", ".join(p.label for p in rules.places)
    outside = _refused_paths(lines, confinement)
    if outside:
        return (f"sandbox: the write to {outside[0]} was refused (this command may write only in: {allowed}). "
                + GRANT_HINT)
    if not rules.network and rules.network_enforced and any(w in tail for w in NETWORK_WORDS):
        return f"sandbox: the network is off for this command, so a connection was refused. {GRANT_HINT}"
    if any(path is not None and _inside(path, confinement) for path in map(_named_path, lines)):
        return None
    network = "" if rules.network or not rules.network_enforced else " or to reach the network (it is off)"
    return (f"sandbox: this may be the sandbox refusing a write outside {allowed}{network}. {GRANT_HINT}")


def _named_secret(lines: list[str], confinement: Confinement) -> str | None:
    """The hidden secret file a refusal line names, if one does."""
    if not confinement.hidden:
        return None
    for line in lines:
        if "Permission denied" not in line and "busy" not in line:
            continue
        for rel in sorted(confinement.hidden, key=len, reverse=True):
            if re.search(rf"(?<![\w.~/-]){re.escape(rel)}(?![\w.~/-])", line):
                return rel
    return None


def _names_read_only(line: str) -> bool:
    """Whether a refusal line is about ``.git`` or ``.agent`` (read-only in the layer)."""
    return any(f"{name}/" in line or line.rstrip().endswith(name) or f"{name}:" in line or f"{name}'" in line
               for name in (".git", ".agent")) or "index.lock" in line


def _refused_paths(lines: list[str], confinement: Confinement) -> list[str]:
    """The refused path of each refusal line (see :func:`_named_path`) that the rules do not let the command
    write."""
    found = []
    for line in lines:
        path = _named_path(line)
        if path is not None and not _inside(path, confinement) and path not in found:
            found.append(path)
    return found


def _named_path(line: str) -> str | None:
    """The path a refusal line is about: the last one before the error words (``bash: line 1: /x: Permission
    denied``), else the first after them (``PermissionError: … Permission denied: '/x'``)."""
    cut = min((line.find(w) for w in (*DENIED_WORDS, "Network is unreachable") if w in line), default=len(line))
    before, after = PATH.findall(line[:cut]), PATH.findall(line[cut:])
    return before[-1] if before else after[0] if after else None


def _inside(path: str, confinement: Confinement) -> bool:
    real = os.path.realpath(path)
    return confinement.rules.allows_write(real) or real.startswith("/proc/") or real == "/dev/stdout"
