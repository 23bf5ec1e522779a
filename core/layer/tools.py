"""The file tools of a layered session: ljtui's tools, run in the layer by its tool host.

In a layered session the file tools must read and write exactly what
commands see: the layer, as the kernel shows it. :class:`LayerTools`
gives the tools what they take in place of the in-process services, each
call answered by the tool host (:mod:`.host`) inside the layer's mount
namespace:

* :attr:`LayerTools.reader`: ``list_dir``, ``read_file``, ``grep``, as
  :class:`~ljtui.core.planner.tools.ReadOnlyTools` answers them;
* :attr:`LayerTools.outline`: ``prompt_text``, ``outline``, ``find``, as
  :class:`~ljtui.core.outline.repo_outline.RepoOutline` answers them;
* :meth:`LayerTools.write_tool`: ``write_file``, ``edit_file``,
  ``create_directory``, the whole tool, written in the layer; or
  :meth:`~LayerTools.prepare_write` then :meth:`~LayerTools.commit_write`
  around a dialog.

The host's life (every method blocks: call from a thread, and never while
holding the layer, which a starting host waits for):

* it starts on the first call: the layer is taken
  (:meth:`~ljtui.core.layer.service.Layer.host_acquire`), the host spawned,
  and served once it said it is ready;
* it stops after ``idle_seconds`` without a call (the overlay is not left
  mounted across the user's own edits), when :meth:`LayerTools.stop` is
  called (which is what the layer calls when a command or the review needs
  it), and on :meth:`LayerTools.close`; stopping closes its input, kills it
  after a grace period, and gives the layer back;
* one request at a time: calls from several agents wait for each other;
* a host found ended is started again, once, for the call that found it;
  one that ended while answering or did not answer in time is stopped, the
  call answered with why, and the next call starts a new one.

The host is spawned from one long-lived thread of this object: ``bwrap``
ends it when the thread that started it ends (``--die-with-parent``), and
a caller's thread may be short-lived.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ljtui.core.layer.host_process import (
    STOP_GRACE_SECONDS, HostFailed, HostGone, HostProcess, host_argv, import_path,
)
from ljtui.core.layer.host_protocol import encode_bytes, tool_result
from ljtui.core.layer.tool_records import LayerOutlineView, LayerPrepared, LayerSymbolMatches, prepared_of
from ljtui.core.secret_files import SecretFiles
from ljtui.core.tool_result import ToolResult

if TYPE_CHECKING:
    from ljtui.core.layer.service import Layer

START_TIMEOUT_SECONDS = 30.0
"""How long a starting host may take to say it is ready."""
REQUEST_TIMEOUT_SECONDS = 300.0
"""How long one request may take (a cold outline of a large repository is the longest) before the host counts as
hung."""
GREP_MARGIN_SECONDS = 30.0
"""Added to the grep timeout for a grep request's deadline."""
CLOSED = "the layer's file tools are closed (the session is ending)"
NOT_STARTED = "the layer's tool host could not start: {why}"
NOT_RESTARTED = "the layer's tool host had ended and could not start again: {why}"
BROKEN = "the layer's tool host failed: {why}; it was stopped, and the next call starts a new one"
REFUSED = "the layer's tool host could not serve this call: {why}"


class LayerTools:
    """The file tools of one layered session, served by a tool host in the layer (see the module's text).

    Args:
        layer: the session's layer (layered).
        secrets: the session's secret-file policy.
        grep_engine, grep_timeout, handbook_dir: as :class:`~ljtui.core.planner.tools.ReadOnlyTools` takes them.
        outline_budget: tokens of the system prompt's outline.
        cache_dir: a folder the host may write, for the outline cache (one per repository; made when missing).
        idle_seconds: the host stops after this long without a call.
        start_timeout: how long a starting host may take.
        request_timeout: how long one request may take before the host counts as hung.
    """

    def __init__(self, layer: Layer, *, secrets: SecretFiles, grep_engine: str, grep_timeout: float,
                 handbook_dir: Path | None, outline_budget: int, cache_dir: Path, idle_seconds: float = 2.0,
                 start_timeout: float = START_TIMEOUT_SECONDS,
                 request_timeout: float = REQUEST_TIMEOUT_SECONDS) -> None:
        self.layer = layer
        self.secrets = secrets
        self.grep_engine = grep_engine
        self.grep_timeout = grep_timeout
        self.handbook_dir = handbook_dir
        self.outline_budget = outline_budget
        self.cache_dir = cache_dir
        self.idle_seconds = idle_seconds
        self.start_timeout = start_timeout
        self.request_timeout = request_timeout
        self.reader = LayerReader(self)
        self.outline = LayerOutline(self)
        self._lock = threading.Lock()
        """Held for each request, each start and each stop."""
        self._host: HostProcess | None = None
        self._timer: threading.Timer | None = None
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ljtui-layer-host")
        self._next_id = 0
        self._closed = False
        self.starts = 0
        """How many hosts were started (for diagnostics and the tests)."""

    @property
    def host_pid(self) -> int | None:
        """The running host's process id (``None``: none runs)."""
        host = self._host
        return host.pid if host is not None else None

    def request(self, op: str, args: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """The host's result of the operation ``op`` on ``args`` (:mod:`.host_protocol`).

        Raises:
            HostFailed: the host could not start, failed, or refused the request (the message says why).
        """
        with self._lock:
            if self._closed:
                raise HostFailed(CLOSED)
            self._cancel_timer()
            try:
                answer = self._ask(op, args, self.request_timeout if timeout is None else timeout)
            finally:
                if self._host is not None:
                    self._arm_timer()
        if not answer.get("ok"):
            raise HostFailed(REFUSED.format(why=str(answer.get("error"))[:500]))
        result = answer.get("result")
        if not isinstance(result, dict):
            raise HostFailed(REFUSED.format(why="its answer holds no result"))
        return result

    def _ask(self, op: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        self._next_id += 1
        try:
            line = (json.dumps({"id": self._next_id, "op": op, "args": args}) + "\n").encode("utf-8")
        except (TypeError, ValueError) as exc:
            raise HostFailed(REFUSED.format(why=f"its arguments are not JSON ({exc})")) from None
        found_ended = self._host is not None and not self._host.alive()
        if found_ended:
            self._end_host(grace=0.0)
        try:
            return self._send(line, timeout, again=found_ended)
        except HostGone as exc:
            if found_ended:
                raise HostFailed(NOT_RESTARTED.format(why=exc)) from None
        try:  # it had ended before it read the request: a new one gets it, once
            return self._send(line, timeout, again=True)
        except HostGone as exc:
            raise HostFailed(NOT_RESTARTED.format(why=exc)) from None

    def _send(self, line: bytes, timeout: float, *, again: bool) -> dict[str, Any]:
        """Send the request ``line`` to the host, started first when none runs (``again``: one had ended)."""
        if self._host is None:
            self._start(again)
        host = self._host
        assert host is not None
        try:
            return host.ask(line, self._next_id, timeout)
        except HostGone:
            self._end_host(grace=0.0)
            raise
        except HostFailed as exc:
            self._end_host(grace=0.0)
            raise HostFailed(BROKEN.format(why=exc)) from None

    def _start(self, again: bool) -> None:
        words = NOT_RESTARTED if again else NOT_STARTED
        try:
            self.layer.host_acquire(self.stop)
        except Exception as exc:  # noqa: BLE001 - the layer's lock or folders: the call says why
            raise HostFailed(words.format(why=exc)) from None
        try:
            self.cache_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            argv = host_argv(self.layer.status.bwrap or "bwrap", self.layer.mount_args(), self.layer.repo,
                             self.cache_dir, self._config())
            host = self._spawner.submit(HostProcess, argv).result()
            self.starts += 1
            try:
                host.wait_ready(self.start_timeout)
            except BaseException:
                host.stop(0.0)
                raise
        except Exception as exc:  # noqa: BLE001 - no layer here, no bwrap, a host that failed to start
            self.layer.host_release()
            raise HostFailed(words.format(why=exc)) from None
        except BaseException:
            self.layer.host_release()
            raise
        self._host = host

    def _config(self) -> dict[str, Any]:
        return {"repo": str(self.layer.repo), "path": import_path(), "secret_patterns": list(self.secrets.patterns),
                "secret_allowed": list(self.secrets.allowed), "grep_engine": self.grep_engine,
                "grep_timeout": self.grep_timeout,
                "handbook_dir": str(self.handbook_dir) if self.handbook_dir is not None else None,
                "outline_budget": self.outline_budget, "cache_dir": str(self.cache_dir)}

    def _end_host(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """Stop the host, if one runs (killed after ``grace`` seconds: at once when it failed), and give the layer
        back (hold the lock)."""
        host = self._host
        if host is None:
            return
        try:
            host.stop(grace)
        finally:
            self._host = None
            self.layer.host_release()

    def _arm_timer(self) -> None:
        timer = threading.Timer(self.idle_seconds, lambda: self._idle(timer))
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _cancel_timer(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _idle(self, timer: threading.Timer) -> None:
        with self._lock:
            if self._timer is not timer:  # a call came since: its own timer counts
                return
            self._timer = None
            self._end_host()

    def stop(self) -> None:
        """Stop the host now, if one runs, and give the layer back (the next call starts a new one); waits for a
        call under way to end."""
        with self._lock:
            self._cancel_timer()
            self._end_host()

    def close(self) -> None:
        """Stop the host for good: every later call is refused."""
        with self._lock:
            self._closed = True
            self._cancel_timer()
            self._end_host()
        self._spawner.shutdown(wait=True)

    def answer(self, op: str, args: dict[str, Any], timeout: float | None = None) -> ToolResult:
        """The tool result the host gives for ``op`` on ``args``; a failure of the host is a failed result saying
        why."""
        try:
            return tool_result(self.request(op, args, timeout))
        except (HostFailed, ValueError) as exc:
            return _failed(str(exc))

    def write_tool(self, name: str, args: dict[str, Any]) -> ToolResult:
        """The whole write tool ``name`` (``write_file``, ``edit_file``, ``create_directory``) on the model's
        ``args``, written in the layer, answered as the tool answers."""
        return self.answer("write_tool", {"tool": name, "args": args})

    def prepare_write(self, name: str, args: dict[str, Any]) -> ToolResult | LayerPrepared:
        """The write tool ``name`` on ``args`` worked out, not written: its answer when there is nothing to ask
        about (a refusal, no change), else what a dialog shows and :meth:`commit_write` writes."""
        try:
            result = self.request("prepare", {"tool": name, "args": args})
            if "result" in result:
                return tool_result(result["result"])
            return prepared_of(result.get("prepared"))
        except (HostFailed, KeyError, ValueError, TypeError) as exc:
            return _failed(str(exc))

    def commit_write(self, prepared: LayerPrepared) -> ToolResult:
        """Write what :meth:`prepare_write` worked out; refused (``StalePlan``) when the file changed since."""
        return self.answer("commit", {"prepared": {
            "tool": prepared.tool, "path": prepared.path, "asked": prepared.asked,
            "before_hash": prepared.before_hash, "after": encode_bytes(prepared.after),
            "notes": list(prepared.notes)}})


class LayerReader:
    """``list_dir``, ``read_file`` and ``grep`` in the layer, answered as
    :class:`~ljtui.core.planner.tools.ReadOnlyTools` answers them (every method blocks: call from a thread)."""

    def __init__(self, tools: LayerTools) -> None:
        self._tools = tools

    def list_dir(self, path: Any) -> ToolResult:
        return self._tools.answer("list_dir", {"path": path})

    def read_file(self, path: Any, start_line: Any = None, end_line: Any = None, *,
                  list_tool: str = "list_dir") -> ToolResult:
        return self._tools.answer("read_file", {"path": path, "start_line": start_line,
                                                      "end_line": end_line, "list_tool": list_tool})

    def grep(self, pattern: Any, path: Any) -> ToolResult:
        timeout = max(self._tools.request_timeout, self._tools.grep_timeout + GREP_MARGIN_SECONDS)
        return self._tools.answer("grep", {"pattern": pattern, "path": path}, timeout)


class LayerOutline:
    """The repository outline in the layer, answered as :class:`~ljtui.core.outline.repo_outline.RepoOutline`
    answers (every method blocks: call from a thread)."""

    def __init__(self, tools: LayerTools) -> None:
        self._tools = tools

    def prompt_text(self) -> str:
        """The ranked outline for the system prompt.

        Raises:
            HostFailed: the host could not build it.
        """
        text = self._tools.request("prompt_text", {}).get("text")
        if not isinstance(text, str):
            raise HostFailed(REFUSED.format(why="its answer holds no outline"))
        return text

    def outline(self, path: Any) -> LayerOutlineView:
        try:
            data = self._tools.request("outline", {"path": path})
            return LayerOutlineView(str(data["text"]), str(data["error"]), tuple(map(str, data["symbols"])))
        except (HostFailed, KeyError, TypeError) as exc:
            return LayerOutlineView("", str(exc))

    def find(self, name: Any) -> LayerSymbolMatches:
        try:
            data = self._tools.request("find", {"name": name})
            return LayerSymbolMatches(str(data["text"]), str(data["error"]), tuple(map(str, data["matches"])))
        except (HostFailed, KeyError, TypeError) as exc:
            return LayerSymbolMatches("", str(exc))


def _failed(message: str) -> ToolResult:
    return ToolResult(False, f"error: {message}", message.splitlines()[0][:160] if message else "error")
