"""The layer's tool host: ljtui's file tools, run inside the layer's mount namespace.

ljtui's own process cannot enter a mount namespace, and the file tools must
read and write exactly what commands see: the layer, as the kernel shows
it, never an emulation of its rules. So this module runs in a child
process that ``bwrap`` starts inside the layer's mount namespace (the
client is :mod:`.tools`), where the repository's path is the merged view:
reading it reads the layer, writing it writes into the upper folder, and
the user's tree cannot be written. It runs the very same tool code with the
repository as root:

* :class:`~ljtui.core.planner.tools.ReadOnlyTools`: ``list_dir``, ``read_file``, ``grep``;
* :class:`~ljtui.core.outline.repo_outline.RepoOutline`: the prompt's outline, ``outline``, ``find``;
* the write tools (:mod:`.host_writes`): ``write_file``, ``edit_file``, ``create_directory``.

It answers requests on its standard input, one JSON line each, on its
standard output (:mod:`.host_protocol`); nothing else ever reaches that
output (whatever else is printed goes to standard error). Every request is
answered, whatever it holds: a line that is not a request, an unknown
operation or any exception becomes an error answer, and the host goes on.
It ends when its standard input closes.

It says it is ready before the tools' code is loaded, then loads it in a
thread while it serves: a request for a tool not loaded yet loads it (or
waits for the thread that does), so a host that is often started again
answers its first call sooner.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable

from ljtui.core.layer.host_protocol import MAX_LINE_BYTES, READY, result_of
from ljtui.core.secret_files import SecretFiles
from ljtui.core.tool_result import ToolError, ToolResult

if TYPE_CHECKING:
    from ljtui.core.layer.host_writes import LayerWriter
    from ljtui.core.outline.repo_outline import RepoOutline
    from ljtui.core.planner.tools import ReadOnlyTools

TOO_LONG = b"\0"
"""What :func:`_read_request` gives for a line over the bound (never JSON)."""
OUTLINE_CACHE = "outline"
"""The outline cache's folder below the host's cache folder."""
Op = Callable[[dict[str, Any]], dict[str, Any]]


class Host:
    """The tools of one repository's layer, answering requests.

    Args:
        config: the host's configuration (:mod:`.host_protocol`).
    """

    def __init__(self, config: dict[str, Any]) -> None:
        self.root = Path(config["repo"])
        self.config = config
        self._reader: ReadOnlyTools | None = None
        self._outline: RepoOutline | None = None
        self._writer: LayerWriter | None = None
        self._making = {name: threading.Lock() for name in ("reader", "outline", "writer")}
        """Held while a tool is made: by the request that needs it, or by the warm-up."""
        self.ops: dict[str, Op] = {
            "ping": lambda args: {"pong": True},
            "list_dir": lambda args: result_of(self.reader().list_dir(args.get("path"))),
            "read_file": self._read_file,
            "grep": lambda args: result_of(self.reader().grep(args.get("pattern"), args.get("path"))),
            "prompt_text": lambda args: {"text": self.outline().prompt_text()},
            "outline": self._outline_of,
            "find": self._find,
            "write_tool": self._write_tool,
            "prepare": self._prepare,
            "commit": self._commit,
        }

    def secrets(self) -> SecretFiles:
        """The session's secret-file policy."""
        return SecretFiles(tuple(self.config["secret_patterns"]), tuple(self.config["secret_allowed"]))

    def reader(self) -> ReadOnlyTools:
        """The planner's reading tools on the view (made, and their code imported, on first use)."""
        with self._making["reader"]:
            if self._reader is None:
                from ljtui.core.planner.tools import ReadOnlyTools

                self._reader = ReadOnlyTools(self.root, self.config.get("handbook_dir"),
                                             grep_engine=self.config["grep_engine"], secrets=self.secrets(),
                                             grep_timeout=float(self.config["grep_timeout"]))
            return self._reader

    def outline(self) -> RepoOutline:
        """The view's outline, cached in the host's cache folder (made on first use)."""
        with self._making["outline"]:
            if self._outline is None:
                from ljtui.core.outline.cache_place import pin_folder
                from ljtui.core.outline.repo_outline import RepoOutline

                if self.config.get("cache_dir"):  # .agent is read-only here: the cache goes to the folder bound
                    pin_folder(Path(self.config["cache_dir"]) / OUTLINE_CACHE)
                self._outline = RepoOutline(self.root, self.secrets(), int(self.config["outline_budget"]))
            return self._outline

    def writer(self) -> LayerWriter:
        """The writer in the view (made on first use)."""
        with self._making["writer"]:
            if self._writer is None:
                from ljtui.core.clock import SystemClock
                from ljtui.core.layer.host_writes import LayerWriter

                self._writer = LayerWriter(self.root, SystemClock(), self.secrets())
            return self._writer

    def warm_up(self) -> None:
        """Make every tool now, so the first call of each kind does not wait for its code (run in a thread once
        the host said it is ready; a failure here is the first call's to report)."""
        for make in (self.reader, self.writer, self.outline):
            try:
                make()
            except Exception:  # noqa: BLE001 - the call that needs it makes it again and answers why not
                pass

    def answer(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line, whatever it holds."""
        try:
            request = json.loads(line)
        except (ValueError, RecursionError) as exc:
            return _error(None, f"the request is not JSON: {exc}")
        if not isinstance(request, dict):
            return _error(None, "the request is not a JSON object")
        ident = request.get("id")
        if isinstance(ident, bool) or not isinstance(ident, int):
            return _error(None, "the request has no whole-number id")
        op, args = request.get("op"), request.get("args", {})
        handler = self.ops.get(op) if isinstance(op, str) else None
        if handler is None:
            return _error(ident, f"unknown operation {op!r:.80}")
        if not isinstance(args, dict):
            return _error(ident, "the request's args are not a JSON object")
        try:
            return {"id": ident, "ok": True, "result": handler(args)}
        except Exception as exc:  # noqa: BLE001 - any failure is an answer, never the host's end
            return _error(ident, f"{type(exc).__name__}: {exc}")

    def _read_file(self, args: dict[str, Any]) -> dict[str, Any]:
        list_tool = args.get("list_tool")
        return result_of(self.reader().read_file(args.get("path"), args.get("start_line"), args.get("end_line"),
                                               list_tool=list_tool if isinstance(list_tool, str) else "list_dir"))

    def _outline_of(self, args: dict[str, Any]) -> dict[str, Any]:
        view = self.outline().outline(args.get("path"))
        return {"error": view.error, "text": view.text,
                "symbols": [f"{s.path}:{s.line} {s.qualname}" for s in view.symbols]}

    def _find(self, args: dict[str, Any]) -> dict[str, Any]:
        found = self.outline().find(args.get("name"))
        return {"error": found.error, "text": found.text,
                "matches": [f"{m.symbol.path}:{m.symbol.line} {m.symbol.qualname}" for m in found.matches]}

    def _write_tool(self, args: dict[str, Any]) -> dict[str, Any]:
        name, tool_args = _tool_call(args)
        try:
            from ljtui.core.layer.host_writes import run_tool

            return result_of(run_tool(self.writer(), name, tool_args))
        except ToolError as exc:
            return result_of(_refused(name, exc))

    def _prepare(self, args: dict[str, Any]) -> dict[str, Any]:
        name, tool_args = _tool_call(args)
        try:
            from ljtui.core.layer.host_writes import prepare

            prepared = prepare(self.writer(), name, tool_args)
        except ToolError as exc:
            prepared = _refused(name, exc)
        return {"result": result_of(prepared)} if isinstance(prepared, ToolResult) else {"prepared": prepared}

    def _commit(self, args: dict[str, Any]) -> dict[str, Any]:
        prepared = args.get("prepared")
        if not isinstance(prepared, dict):
            raise TypeError("commit takes the prepared write the host gave")
        try:
            from ljtui.core.layer.host_writes import commit

            return result_of(commit(self.writer(), prepared))
        except ToolError as exc:
            return result_of(_refused(str(prepared.get("tool")), exc))


def _tool_call(args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name, tool_args = args.get("tool"), args.get("args")
    if not isinstance(name, str) or not isinstance(tool_args, dict):
        raise TypeError("a tool call names its tool and gives its arguments as a JSON object")
    return name, tool_args


def _refused(name: str, exc: ToolError) -> ToolResult:
    """A tool's refusal of its arguments, in the words the tool registry uses."""
    return ToolResult(False, f"error: {exc}", f"{name}: {exc}")


def _error(ident: int | None, message: str) -> dict[str, Any]:
    return {"id": ident, "ok": False, "error": message}


def _read_request(stream: IO[bytes]) -> bytes | None:
    """The next request line (``None``: the input ended); a line over :data:`MAX_LINE_BYTES` is read to its end and
    given as :data:`TOO_LONG`."""
    line = stream.readline(MAX_LINE_BYTES)
    if not line:
        return None
    if not line.endswith(b"\n") and len(line) >= MAX_LINE_BYTES:
        while True:
            rest = stream.readline(MAX_LINE_BYTES)
            if not rest or rest.endswith(b"\n"):
                return TOO_LONG
    return line


def _send(channel: IO[bytes], message: dict[str, Any]) -> None:
    try:
        data = json.dumps(message)
    except (TypeError, ValueError) as exc:
        data = json.dumps(_error(message.get("id"), f"the answer could not be written: {exc}"))
    channel.write(data.encode("utf-8") + b"\n")
    channel.flush()


def main(config: dict[str, Any]) -> int:
    """Serve requests until standard input ends (the host's program: :data:`~.host_protocol.BOOT`)."""
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else writes to standard output (a stray print, a child) cannot break the protocol
    sys.stdout = sys.stderr
    try:
        host = Host(config)
    except Exception:  # noqa: BLE001 - the client reads why from standard error
        traceback.print_exc()
        return 2
    _send(channel, READY)
    threading.Thread(target=host.warm_up, name="warm-up", daemon=True).start()
    while True:
        line = _read_request(sys.stdin.buffer)
        if line is None:
            return 0
        if line is TOO_LONG:
            _send(channel, _error(None, f"the request is longer than {MAX_LINE_BYTES} bytes"))
        else:
            _send(channel, host.answer(line))
