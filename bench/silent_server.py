"""Benchmark: how long a plain message takes to fail against a server that never answers.

A local server accepts every connection and request and never sends a byte.
``ljtui run`` (the real CLI, the Anthropic provider pointed at that server)
sends one plain message twice, measured in the same run:

* ``--chat``, the reference: one chat call, which waits ``provider.timeout``,
  retries the silence once and fails;
* routed (no flag): the routing call first. A failed routing call ends the
  message, so it should fail in the time of that one call, not that plus a
  chat call's;
* ``--plan``: the decomposition call of a task plan, also one call.

The provider's timeout and retry settings are the defaults multiplied by
``--scale`` (1: the real defaults, ``provider.timeout`` 60 s, so each figure
is about two minutes); ``provider.max_retries`` is a count and is not scaled.

    python bench/silent_server.py [--scale 1]

Prints each figure, the requests each made, and routed / chat and plan / chat.
Target: both ratios within 1.1 (every route fails once, not twice).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ui import git_repo, ljtui  # noqa: E402

from ljtui.core.config import ProviderConfig  # noqa: E402

SCALED = ("timeout", "call_timeout", "retry_delay", "retry_max_delay")
"""Provider settings in seconds, multiplied by ``--scale``."""
RATIO_TARGET = 1.1
REQUEST = "what does greet do?"
SLACK_S = 60.0
"""Seconds past the longest expected wait before a run is called stuck."""


class SilentServer:
    """Accepts connections on 127.0.0.1, reads what is sent, never answers; counts the HTTP requests."""

    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self.requests = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self._held.append(conn)
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        seen = b""
        while not self._stop.is_set():
            try:
                chunk = conn.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            seen += chunk
            while b"\r\n\r\n" in seen:  # a request's head; its body is read and ignored like the rest
                with self._lock:
                    self.requests += 1
                seen = seen.split(b"\r\n\r\n", 1)[1]
                seen = b"" if not seen.startswith((b"POST", b"GET")) else seen

    def close(self) -> None:
        self._stop.set()
        self._sock.close()
        for conn in self._held:
            try:
                conn.close()
            except OSError:
                pass


def provider_settings(scale: float) -> dict[str, float | int]:
    """The default provider timeouts and retry pauses times ``scale``, and the default retry count."""
    defaults = ProviderConfig()
    settings: dict[str, float | int] = {key: getattr(defaults, key) * scale for key in SCALED}
    settings["max_retries"] = defaults.max_retries
    return settings


def fail_once(repo: Path, env: dict[str, str], *flags: str, limit: float) -> tuple[float, int, int, str]:
    """Seconds ``ljtui run`` took to fail the message, its exit status, requests made, its last stderr line."""
    server = SilentServer()
    try:
        start = time.perf_counter()
        proc = subprocess.run(
            ljtui("run", "--provider", "anthropic", "--base-url", server.url, *flags, REQUEST),
            cwd=repo, env=env, capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL)
        took = time.perf_counter() - start
        requests = server.requests
    finally:
        server.close()
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return took, proc.returncode, requests, last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the default provider timeouts and retry pauses by this (default 1)")
    args = parser.parse_args()
    settings = provider_settings(args.scale)
    one_call = 2 * settings["timeout"] + settings["retry_delay"]
    with tempfile.TemporaryDirectory(prefix="ljtui-bench-silent-") as scratch:
        base = Path(scratch)
        repo = git_repo(base / "repo")
        config = base / "config.yaml"
        config.write_text(json.dumps({"provider": settings}), encoding="utf-8")  # JSON is YAML
        env = {**os.environ, "LJTUI_CONFIG": str(config), "XDG_CONFIG_HOME": str(base / "xdg"),
               "XDG_STATE_HOME": str(base / "state"), "ANTHROPIC_API_KEY": "sk-ant-bench-not-a-key"}
        env.pop("OPENAI_API_KEY", None)
        print(f"provider: {', '.join(f'{k} {v:g}' for k, v in settings.items())} (defaults x {args.scale:g})")
        chat = fail_once(repo, env, "--chat", limit=2 * one_call + SLACK_S)
        print(f"--chat  {chat[0]:8.1f} s  exit {chat[1]}  {chat[2]} request(s)  {chat[3]}")
        routed = fail_once(repo, env, limit=3 * one_call + SLACK_S)
        print(f"routed  {routed[0]:8.1f} s  exit {routed[1]}  {routed[2]} request(s)  {routed[3]}")
        plan = fail_once(repo, env, "--plan", "--yes", limit=3 * one_call + SLACK_S)
        print(f"--plan  {plan[0]:8.1f} s  exit {plan[1]}  {plan[2]} request(s)  {plan[3]}")
    ratios = {"routed": routed[0] / chat[0], "plan": plan[0] / chat[0]}
    for name, ratio in ratios.items():
        print(f"{name} / chat: {ratio:.2f} (target <= {RATIO_TARGET})")
    return 0 if max(ratios.values()) <= RATIO_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
