"""One run of the layer's tool host, from ljtui's side: started in the layer, asked, stopped.

The host (:mod:`.host`) is ``bwrap`` with the layer's mount options, the
cache folder bound writable, no network, the repository as current folder,
and the interpreter in isolated mode (``-I``: the repository is not on its
import path, no ``PYTHON*`` variable counts). Its environment is ljtui's
without keys or credentials (:func:`~ljtui.core.childenv.child_env`).

Every exchange has a deadline: a request is written and its answer read
through the pipes with ``select``, never by a blocking call that could
wait on a hung host forever. What the host wrote on standard error goes to
a temporary file, whose last line says why it could not start or ended.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from ljtui.core.childenv import child_env
from ljtui.core.layer.host_protocol import BOOT, MAX_LINE_BYTES, READY

STOP_GRACE_SECONDS = 2.0
"""How long a host whose input was closed may take to end before it is killed."""
READ_CHUNK = 1024 * 1024
STDERR_TAIL_BYTES = 4096


class HostFailed(RuntimeError):
    """The tool host could not start, ended, or did not answer in time (the message says which, for the model)."""


class HostGone(HostFailed):
    """The tool host had ended before it read the request (which may be sent again to a new one)."""


def import_path(path: Sequence[str] | None = None) -> list[str]:
    """The import path the host gets: ljtui's own (``path``, default ``sys.path``) but the current folder, and but
    relative entries only a path hook other than the file system's (an editable install's) claims."""
    kept = []
    for entry in sys.path if path is None else path:
        if not isinstance(entry, str) or not entry:
            continue
        if os.path.isabs(entry):
            kept.append(entry)
            continue
        finder = sys.path_importer_cache.get(entry)
        if finder is not None and not isinstance(finder, importlib.machinery.FileFinder):
            kept.append(entry)
    return kept


def host_argv(bwrap: str, mount_args: Sequence[str], repo: Path, cache_dir: Path | None,
              config: dict[str, Any]) -> list[str]:
    """The command line of a host in the layer whose options are ``mount_args``."""
    bound = ["--bind", str(cache_dir), str(cache_dir)] if cache_dir is not None else []
    return [bwrap, *mount_args, *bound, "--unshare-net", "--chdir", str(repo), "--", sys.executable, "-I", "-c",
            BOOT, json.dumps(config)]


class HostProcess:
    """A running tool host.

    Args:
        argv: its command line (:func:`host_argv`).
        env: its environment (default: ljtui's without keys or credentials).
    """

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        self._stderr = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self._stderr, env=child_env() if env is None else env,
                                            close_fds=True)
        except OSError as exc:
            self._stderr.close()
            raise HostFailed(f"{argv[0]} could not run: {exc.strerror or exc}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()
        os.set_blocking(self._in, False)
        self._buffer = bytearray()

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait_ready(self, timeout: float) -> None:
        """Wait until the host says it is ready.

        Raises:
            HostFailed: it ended first, said something else, or took longer than ``timeout`` seconds.
        """
        line = self._read_line(time.monotonic() + timeout, timeout, "say it was ready", " before it was ready")
        if _parsed(line) != READY:
            raise HostFailed(f"it said {line[:80]!r} instead of being ready")

    def ask(self, line: bytes, ident: int, timeout: float) -> dict[str, Any]:
        """Send the request ``line`` (whose id is ``ident``) and read its answer.

        Raises:
            HostGone: the host had ended before it read any of the request.
            HostFailed: it ended while answering, did not answer within ``timeout`` seconds, or answered out of turn.
        """
        deadline = time.monotonic() + timeout
        self._write(line, deadline, timeout)
        answer = _parsed(self._read_line(deadline, timeout))
        if not isinstance(answer, dict) or answer.get("id") != ident:
            raise HostFailed(f"it answered out of turn ({str(answer)[:80]})")
        return answer

    def _write(self, data: bytes, deadline: float, timeout: float) -> None:
        view = memoryview(data)
        sent = 0
        while sent < len(view):
            if not select.select([], [self._in], [], max(0.0, deadline - time.monotonic()))[1]:
                raise HostFailed(f"it did not read its request within {timeout:g} s")
            try:
                sent += os.write(self._in, view[sent:sent + READ_CHUNK])
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                if sent == 0:
                    raise HostGone(f"it had ended ({self.why()})") from None
                raise HostFailed(f"it ended while reading its request ({self.why()})") from None

    def _read_line(self, deadline: float, timeout: float, waiting: str = "answer", ended: str = "") -> bytes:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                return line
            if len(self._buffer) > MAX_LINE_BYTES:
                raise HostFailed(f"its answer is longer than {MAX_LINE_BYTES} bytes")
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise HostFailed(f"it did not {waiting} within {timeout:g} s")
            chunk = os.read(self._out, READ_CHUNK)
            if not chunk:
                self.process.wait()
                raise HostFailed(f"it ended ({self.why()}){ended}")
            self._buffer += chunk

    def why(self) -> str:
        """Why the host ended, as far as it said: its last line on standard error, or its exit status."""
        code = self.process.poll()
        try:
            self._stderr.seek(max(0, self._stderr.seek(0, os.SEEK_END) - STDERR_TAIL_BYTES))
            lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError):
            lines = []
        if lines:
            return lines[-1][:300]
        return "still running" if code is None else f"exit status {code}"

    def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """End the host: its input closed, then killed after ``grace`` seconds; always waited for."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()
            self._stderr.close()


def _parsed(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        raise HostFailed(f"it wrote {line[:80]!r}, not a JSON line") from None

