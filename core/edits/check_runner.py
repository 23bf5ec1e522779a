"""Running syntax checks in a bounded child process (see ``check_worker``).

The checks of one apply share one child: it starts once, sets its own
memory and recursion limits, and reports each file on its own line. The
parent gives each file a time bound. When the child overruns a file, or
dies on one (a signal, an interpreter abort), that file gets a failed
verdict naming what happened, the child is replaced, and the files after
it are checked by the new child: per-file results are kept. Nothing here
raises; every way a check can fail is a verdict.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Sequence

from ljtui.core.childenv import child_env

WORKER_SCRIPT = Path(__file__).with_name("check_worker.py")
CHECK_TIMEOUT = 10.0
"""Seconds one file's check may take."""
WORKER_START_TIMEOUT = 30.0
"""Seconds the child may take to start and set its limits."""
CHECK_MEMORY_BYTES = 1 << 30
"""Address space the child may use (1 GiB)."""
CHECK_RECURSION_LIMIT = 1_000
"""Python recursion depth in the child: the depth bound of every parser."""
EXIT_GRACE = 5.0
"""Seconds the child may take to exit once its output has ended."""
READ_CHUNK = 65_536
STDERR_TAIL_CHARS = 200
"""How much of the child's last error output a crash message quotes."""
NEUTRAL_CWD = os.sep
"""The child's working directory: never the repository."""


@dataclass(frozen=True)
class CheckLimits:
    """Bounds of one run of checks; the defaults suit every apply."""

    timeout: float = CHECK_TIMEOUT
    start_timeout: float = WORKER_START_TIMEOUT
    memory_bytes: int = CHECK_MEMORY_BYTES
    recursion_limit: int = CHECK_RECURSION_LIMIT


@dataclass(frozen=True)
class WorkerJob:
    """One file for the child: repo-relative name, absolute path, checker name."""

    file: str
    path: Path
    checker: str


@dataclass(frozen=True)
class Verdict:
    """What the check of one file found (``message`` is empty when ``ok``)."""

    ok: bool
    message: str = ""


class _Timeout:
    """The deadline passed before a full line arrived."""


TIMED_OUT = _Timeout()


class _Lines:
    """Lines from a pipe, each awaited with its own deadline."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.fd = stream.fileno()
        self.buffer = bytearray()
        self.eof = False
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)

    def next(self, timeout: float) -> bytes | None | _Timeout:
        """The next line; ``None`` at end of output; ``TIMED_OUT`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            end = self.buffer.find(b"\n")
            if end != -1:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return line
            if self.eof:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.selector.select(remaining):
                return TIMED_OUT
            chunk = os.read(self.fd, READ_CHUNK)
            if chunk:
                self.buffer += chunk
            else:
                self.eof = True

    def close(self) -> None:
        self.selector.close()


def run_checks(jobs: Sequence[WorkerJob], limits: CheckLimits = CheckLimits()) -> list[Verdict]:
    """A verdict for every job, in order, whatever happens to the child.

    Args:
        jobs: Files to check, each with the name of a ``check_worker`` checker.
        limits: Time, memory and depth bounds.
    """
    verdicts: list[Verdict] = []
    remaining = list(jobs)
    while remaining:
        done, failure, started = _one_child(remaining, limits)
        verdicts += done
        if failure is None:
            break
        if not started:
            return verdicts + [Verdict(False, failure)] * len(remaining)
        verdicts.append(Verdict(False, failure))
        remaining = remaining[len(done) + 1:]
    return verdicts


def _one_child(jobs: list[WorkerJob], limits: CheckLimits) -> tuple[list[Verdict], str | None, bool]:
    """Run one child over ``jobs``: its verdicts, why it stopped early (or ``None``), whether it started."""
    request = {"memory_bytes": limits.memory_bytes, "recursion_limit": limits.recursion_limit,
               "files": [{"file": j.file, "path": str(j.path), "checker": j.checker} for j in jobs]}
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
        stdin.write(json.dumps(request).encode("utf-8", "surrogateescape"))
        stdin.seek(0)
        try:
            proc = subprocess.Popen([sys.executable, "-I", str(WORKER_SCRIPT)], stdin=stdin, stdout=subprocess.PIPE,
                                    stderr=stderr, env=child_env(), cwd=NEUTRAL_CWD)
        except OSError as exc:
            return [], f"not checked: the checker could not start: {exc.strerror or exc}", False
        assert proc.stdout is not None
        lines = _Lines(proc.stdout)
        try:
            return _collect(proc, lines, jobs, limits, stderr)
        finally:
            lines.close()
            _stop(proc)


def _collect(proc: subprocess.Popen[bytes], lines: _Lines, jobs: list[WorkerJob], limits: CheckLimits,
             stderr: IO[bytes]) -> tuple[list[Verdict], str | None, bool]:
    ready = lines.next(limits.start_timeout)
    if ready is TIMED_OUT:
        return [], f"not checked: the checker did not start within {limits.start_timeout:g}s", False
    if not isinstance(ready, bytes) or _decode(ready) != {"ready": True}:
        return [], f"not checked: the checker {_ended(proc, stderr)} before checking any file", False
    verdicts: list[Verdict] = []
    for job in jobs:
        line = lines.next(limits.timeout)
        if line is TIMED_OUT:
            return verdicts, f"not checked: the {job.checker} check took longer than {limits.timeout:g}s", True
        if not isinstance(line, bytes):
            return verdicts, f"not checked: the {job.checker} checker {_ended(proc, stderr)}", True
        verdict = _verdict(_decode(line), job)
        if verdict is None:
            return verdicts, f"not checked: the {job.checker} checker sent an unreadable reply", True
        verdicts.append(verdict)
    return verdicts, None, True


def _decode(line: bytes) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _verdict(reply: object, job: WorkerJob) -> Verdict | None:
    if not isinstance(reply, dict) or reply.get("file") != job.file:
        return None
    ok, message = reply.get("ok"), reply.get("message")
    if not isinstance(ok, bool) or not isinstance(message, str):
        return None
    return Verdict(ok, message)


def _ended(proc: subprocess.Popen[bytes], stderr: IO[bytes]) -> str:
    """How the child ended, e.g. ``crashed (SIGSEGV)`` or ``stopped with exit code 1: MemoryError``."""
    try:
        code = proc.wait(timeout=EXIT_GRACE)
    except subprocess.TimeoutExpired:
        return "stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"crashed ({name})"
    stderr.seek(0)
    tail = stderr.read().decode("utf-8", "replace").strip().splitlines()
    last = f": {tail[-1][-STDERR_TAIL_CHARS:]}" if tail else ""
    return f"stopped with exit code {code}{last}"


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
