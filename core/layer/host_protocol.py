"""What the layer's tool host and its client share: how the host starts, and the lines they exchange.

Standard library only: the client imports it without the tools' code.

The host is ``python -I -c BOOT CONFIG`` (:data:`BOOT`), run by ``bwrap``
inside the layer's mount namespace. ``CONFIG`` is one JSON object:

* ``repo``: the repository (the layer's view is at its path);
* ``path``: the interpreter's ``sys.path`` (ljtui and its dependencies);
* ``secret_patterns``, ``secret_allowed``: the session's secret-file policy;
* ``grep_engine``, ``grep_timeout``: as the planner's tools take them;
* ``handbook_dir``: a read-only handbook, or ``null``;
* ``outline_budget``: tokens of the system prompt's outline;
* ``cache_dir``: a folder the host may write (the outline cache), or ``null``.

Then JSON lines, bytes as base64:

* the host first writes :data:`READY` once it can serve;
* each request is ``{"id": N, "op": OP, "args": {...}}``;
* each answer is ``{"id": N, "ok": true, "result": {...}}``, or
  ``{"id": N, "ok": false, "error": "..."}`` when the request could not be
  served (not JSON, an unknown operation, a bad argument, any exception);
  a request whose id cannot be read is answered with ``"id": null``.

A tool's own refusal is no protocol error: it is a result holding the
:class:`~ljtui.core.tool_result.ToolResult` (``ok``, ``content``,
``summary``) the model gets, as the tool in ljtui's process would give it.
"""

from __future__ import annotations

import base64
from typing import Any

from ljtui.core.tool_result import ToolResult

BOOT = ("import json, sys\n"
        "config = json.loads(sys.argv[1])\n"
        "sys.path[:] = config['path']\n"
        "from ljtui.core.layer.host import main\n"
        "sys.exit(main(config))\n")
"""The host's program: its import path first (``-I`` leaves the current folder, the repository, off it)."""
READY = {"ready": True}
"""The host's first line."""
MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longest request or answer line read."""

OPS = ("ping", "list_dir", "read_file", "grep", "prompt_text", "outline", "find", "write_tool", "prepare", "commit")
"""The host's operations."""


def result_of(result: ToolResult) -> dict[str, Any]:
    """A tool result as a JSON object."""
    return {"ok": result.ok, "content": result.content, "summary": result.summary}


def tool_result(data: Any) -> ToolResult:
    """A tool result read back from a JSON object.

    Raises:
        ValueError: ``data`` is not one.
    """
    if not isinstance(data, dict):
        raise ValueError("the answer holds no tool result")
    ok, content, summary = data.get("ok"), data.get("content"), data.get("summary")
    if not isinstance(ok, bool) or not isinstance(content, str) or not isinstance(summary, str):
        raise ValueError("the answer's tool result is malformed")
    return ToolResult(ok, content, summary)


def encode_bytes(data: bytes | None) -> str | None:
    """Bytes as base64 text (``None`` stays ``None``)."""
    return None if data is None else base64.b64encode(data).decode("ascii")


def decode_bytes(text: Any) -> bytes | None:
    """Bytes from base64 text (``None`` stays ``None``).

    Raises:
        ValueError: ``text`` is neither.
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise ValueError("bytes must travel as base64 text")
    return base64.b64decode(text.encode("ascii"), validate=True)
