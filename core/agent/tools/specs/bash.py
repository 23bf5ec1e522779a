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
    "It runs in a sandbox: it may write only in the repository (or the staging tree while a gate stages the "
    "work) and in $TMPDIR, and has no network unless the user grants it; a refusal is reported as such, and only "
    "the user can widen the sandbox. "
    "Asks the user first; dangerous commands (recursive deletes, force pushes, writes outside the repository, "
    "sudo, curl | sh) are asked every time. Files a command changes are NOT undone by /undo: only write_file "
    "and edit_file go through the undoable transaction, so prefer them for editing files.",
    {"type": "object", "properties": {
        "command": {"type": "string", "description": "the shell command, e.g. \"pytest -q tests/test_x.py\""},
        "timeout": {"type": "integer", "minimum": MIN_TIMEOUT_SECONDS,
                    "description": f"seconds before the command is killed; at most {TIMEOUT_KEY}"}},
     "required": ["command"], "additionalProperties": False},
)
