"""Time to first painted frame, and to the first key handled: ljtui against a bare Textual app.

Each app runs in a real pseudo-terminal; the clock stops when the frame's
text appears on the terminal, so interpreter start, imports, config, themes
and the first layout are all counted. A key is typed the moment the frame
is there, then nine more, each once the one before is echoed: the longest
wait for an echo is how interactive the app is while the work it starts
after its first frame runs. Peak memory (max RSS) is read from the child's resource
usage.

    python bench/startup.py [--runs 7] [--folder /tmp]

Prints medians for both apps, ``startup ratio: X`` and ``interactive ratio: X`` (ljtui / bare). With
``--folder``, ljtui is also started in that folder (one that is not a repository and holds many files)
and ``folder ratio: X`` compares it with ljtui in the empty repository.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

COLUMNS, LINES = 120, 40
TIMEOUT_SECONDS = 30.0
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")

BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Input, Static

class Bare(App):
    def compose(self):
        yield Static("bare-app-ready")
        yield Input()
        yield Footer()

Bare().run()
"""


KEY = b"Z"
"""The key typed once the first frame is on screen (no other text either app draws holds it)."""
KEYS = 10
"""Keys typed from the first frame on, each once the one before is echoed (after :data:`KEY_GAP_SECONDS`)."""
KEY_GAP_SECONDS = 0.05


def first_paint(argv: list[str], marker: bytes, cwd: Path) -> tuple[float, float, float]:
    """Seconds until ``marker`` is on screen, the longest wait for the echo of one of :data:`KEYS` keys typed
    from then on, and peak RSS in MiB."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none"}
    # PYTHONDONTWRITEBYTECODE would make an editable checkout recompile every
    # module on each start, which no installed copy does: both apps run with
    # cached bytecode, as after `pip install`.
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LJTUI_CONFIG", "PYTHONDONTWRITEBYTECODE"):
        env.pop(var, None)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                            start_new_session=True)
    os.close(slave)
    seen = b""
    elapsed = echoed = None
    try:
        while time.perf_counter() - start < TIMEOUT_SECONDS:
            ready, _, _ = select.select([master], [], [], 0.01)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
                if elapsed is None and marker in ANSI.sub(b"", seen):
                    elapsed = time.perf_counter() - start
                    seen, typed, sent = b"", 1, time.perf_counter()
                    os.write(master, KEY)
                elif elapsed is not None and KEY * typed in ANSI.sub(b"", seen):
                    echoed = max(echoed or 0.0, time.perf_counter() - sent)
                    if typed == KEYS:
                        break
                    time.sleep(KEY_GAP_SECONDS)
                    seen, typed, sent = b"", typed + 1, time.perf_counter()
                    os.write(master, KEY)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
        os.close(master)
    if elapsed is None or echoed is None:
        raise SystemExit(f"{argv[0]}: no {'first frame' if elapsed is None else 'echo'} within {TIMEOUT_SECONDS:.0f}s")
    return elapsed, echoed, usage.ru_maxrss / 1024


def measure(apps: list[tuple[list[str], bytes, Path]], runs: int) -> list[tuple[float, float, float]]:
    """Median first-frame time, median time from it to a key's echo, and peak RSS of each app.

    The apps take turns within every round, so a busy moment on the machine
    falls on all of them alike.
    """
    for argv, marker, cwd in apps:
        first_paint(argv, marker, cwd)  # warm the file cache
    rounds = [[first_paint(argv, marker, cwd) for argv, marker, cwd in apps] for _ in range(runs)]
    return [(statistics.median(r[i][0] for r in rounds), statistics.median(r[i][1] for r in rounds),
             max(r[i][2] for r in rounds)) for i in range(len(apps))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="measured runs per app (after one warm-up)")
    parser.add_argument("--folder", type=Path, help="also start ljtui here: a folder with many files")
    args = parser.parse_args()
    ljtui = [sys.executable, "-m", "ljtui.cli.main"]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
        env_home = repo / "config"
        os.environ["XDG_CONFIG_HOME"] = str(env_home)
        apps = [([sys.executable, "-c", BARE_APP], b"bare-app-ready", repo), (ljtui, b"Conversation", repo)]
        if args.folder is not None:
            apps.append((ljtui, b"Conversation", args.folder.resolve()))
        (bare_t, bare_key, bare_mem), (ljtui_t, ljtui_key, ljtui_mem), *folder = measure(apps, args.runs)
    print(f"bare textual app: first frame {bare_t * 1000:.0f} ms, slowest key echo after it {bare_key * 1000:.0f} ms "
          f"(medians of {args.runs}), peak {bare_mem:.0f} MiB")
    print(f"ljtui:            first frame {ljtui_t * 1000:.0f} ms, slowest key echo after it {ljtui_key * 1000:.0f} ms "
          f"(medians of {args.runs}), peak {ljtui_mem:.0f} MiB")
    print(f"memory ratio: {ljtui_mem / bare_mem:.2f}")
    print(f"startup ratio: {ljtui_t / bare_t:.2f}")
    print(f"interactive ratio: {(ljtui_t + ljtui_key) / (bare_t + bare_key):.2f} (first frame and the slowest echo)")
    if folder:
        (folder_t, folder_key, _), = folder
        print(f"ljtui in {args.folder}: first frame {folder_t * 1000:.0f} ms, slowest key echo after it "
              f"{folder_key * 1000:.0f} ms")
        print(f"folder ratio: {(folder_t + folder_key) / (ljtui_t + ljtui_key):.2f} (against the empty repository)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
