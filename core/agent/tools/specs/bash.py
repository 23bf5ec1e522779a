"""The specs of the tools for commands, as data: what the model is shown, loaded without the tools' code
(:mod:`ljtui.core.agent.tools.bash`, imported on a tool's first call)."""

from __future__ import annotations

from ljtui.core.agent.shell import HEAD_CHARS, TAIL_CHARS
from ljtui.core.config import AgentConfig
from ljtui.core.providers.base import ToolSpec

TIMEOUT_KEY = "agent.bash_timeout"

MIN_TIMEOUT_SECONDS = 1

BASH = ToolSpec(
    "bash",
    "Run a shell command with /bin/bash -c in the repository root and return its exit code, duration and "
    f"output (stdout and stderr merged; long output keeps the first {HEAD_CHARS:,} and last {TAIL_CHARS:,} "
    "characters). Stdin is empty, nothing can prompt, and the command is killed, with everything it started, "
    f"when its time is up (`timeout`, at most {TIMEOUT_KEY}, {AgentConfig().bash_timeout:.0f} s by default); "
    "background processes are stopped when it ends. "
    "It runs in a sandbox with no network unless the user grants it (set `network` to ask the user). "
    "Where the session has a layer (the system prompt says so), everything a command changes lands in a "
    "copy-on-write layer over the repository, seen at the repository's own path, which the user reviews hunk by "
    "hunk before it reaches their files: commands run without asking, .git and .agent are read-only (git add, "
    "commit, checkout and stash fail: ljtui commits the accepted change on apply when the user asks), and of the "
    "home folder only toolchains are visible. Without a layer a command may write only in the repository (or the "
    "staging tree while a gate stages the work) and in $TMPDIR, asks the user first, and dangerous commands "
    "(recursive deletes, force pushes, writes outside the repository, sudo, curl | sh) are asked every time; "
    "files it changes are NOT undone by /undo, so prefer write_file and edit_file for editing files there. "
    "A refusal by the sandbox is reported as such, and only the user can widen the sandbox.",
    {"type": "object", "properties": {
        "command": {"type": "string", "description": "the shell command, e.g. \"pytest -q tests/test_x.py\""},
        "timeout": {"type": "integer", "minimum": MIN_TIMEOUT_SECONDS,
                    "description": f"seconds before the command is killed; at most {TIMEOUT_KEY}"},
        "network": {"type": "boolean",
                    "description": "ask the user to let this command use the network (a dialog; default false)"}},
     "required": ["command"], "additionalProperties": False},
)
