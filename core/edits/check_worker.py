"""The child process that syntax-checks files, one JSON line per file.

Run as ``python -I check_worker.py`` by :mod:`ljtui.core.edits.checks`;
it imports nothing from ljtui, so it runs the same whether ljtui is
installed or not, and ``-I`` keeps the repository (the working directory)
off ``sys.path``. It reads one JSON request on stdin::

    {"memory_bytes": int, "recursion_limit": int,
     "files": [{"file": "a.json", "path": "/abs/a.json", "checker": "json"}, ...]}

lowers its own limits (address space, recursion depth, no core files),
prints ``{"ready": true}``, then one ``{"file", "ok", "message"}`` line per
file, in order, flushed as each file is done. A checker that raises is a
failed check, never a crash of the worker; a crash of the interpreter
itself (a signal, running out of memory outside a check) is seen by the
parent as a missing line.
"""

from __future__ import annotations

import json
import resource
import sys
from typing import Any, Callable

READY = {"ready": True}
"""The first line: limits are set and files follow."""
MIB = 1 << 20


def _python(name: str, data: bytes) -> str | None:
    # Same check as py_compile, without writing a .pyc into the repository.
    try:
        compile(data, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except ValueError as exc:
        return str(exc)
    return None


def _json(name: str, data: bytes) -> str | None:
    try:
        json.loads(data)
    except ValueError as exc:
        return str(exc)
    return None


def _yaml(name: str, data: bytes) -> str | None:
    import yaml

    try:
        list(yaml.safe_load_all(data))
    except yaml.YAMLError as exc:
        return str(exc).replace("\n", " ")
    return None


def _toml(name: str, data: bytes) -> str | None:
    import tomllib

    try:
        tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return str(exc)
    return None


CHECKERS: dict[str, Callable[[str, bytes], "str | None"]] = {
    "python": _python, "json": _json, "yaml": _yaml, "toml": _toml,
}
"""Checker functions by name; each returns the problem, or ``None`` when the file parses."""


def set_limits(memory_bytes: int, recursion_limit: int) -> None:
    """Bound this process: address space, Python recursion depth, no core dumps."""
    _lower(resource.RLIMIT_AS, memory_bytes)
    _lower(resource.RLIMIT_CORE, 0)
    sys.setrecursionlimit(recursion_limit)


def _lower(which: int, value: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def check_one(checker: str, name: str, path: str, memory_bytes: int) -> str | None:
    """The problem with one file, or ``None``; a checker that fails is a problem too."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except MemoryError:
        return f"not checked: the file does not fit in the checker's memory limit ({memory_bytes // MIB} MiB)"
    except OSError as exc:
        return f"not checked: cannot read the file: {exc.strerror or exc}"
    try:
        return CHECKERS[checker](name, data)
    except RecursionError:
        return (f"not checked: nested too deeply for the {checker} checker "
                f"(its recursion limit is {sys.getrecursionlimit()})")
    except MemoryError:
        # CPython's own parser also reports nesting deeper than its stack as MemoryError.
        deep = ", or the nesting is too deep for its parser" if checker == "python" else ""
        return f"not checked: the {checker} checker ran out of memory (limit {memory_bytes // MIB} MiB){deep}"
    except Exception as exc:  # noqa: BLE001 - any failure of a checker is reported, never raised
        return f"not checked: the {checker} checker failed: {type(exc).__name__}: {exc}"


def _emit(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def main() -> int:
    """Read the request, set the limits, check every file, one line each."""
    request = json.load(sys.stdin)
    memory_bytes = int(request["memory_bytes"])
    set_limits(memory_bytes, int(request["recursion_limit"]))
    _emit(READY)
    for item in request["files"]:
        problem = check_one(item["checker"], item["file"], item["path"], memory_bytes)
        _emit({"file": item["file"], "ok": problem is None, "message": problem or ""})
    return 0


if __name__ == "__main__":
    sys.exit(main())
