"""Benchmark: the UI with big plans and a streaming reply, in a real pseudo-terminal.

(a) ``ljtui review plan.md`` on a generated 5,000-block plan over a
    generated repository: time from process start until the first screen
    of the plan is on the terminal (the block rows with the validation's
    progress, and block 1's diff), until every block is validated, and the
    child's peak RSS. References from the same run: a bare Textual
    app's first frame, and ``ljtui apply --dry-run`` of the same plan
    (headless: parse, validate, every diff).
(b) The same for a 5 MB single-block plan (a 2.5 MB file rewritten).
(c) While a scripted reply streams into the Conversation at 200 tokens/s
    (``chunk_delay: 0.005``), keys typed into the input: the time from
    writing a key to the terminal until the frame showing it arrives, as
    percentiles; reference: the same keys with nothing streaming.
(d) Which virtual list (headless, Textual's own test driver): mounting and
    updating 5,000 rows as the Line API ``BlockList``, Textual's
    ``OptionList`` and one ``Static`` per row (the Diff pane before).

    python bench/ui.py [--runs 3] [--samples 300] [--parts abcd]

Targets: (a) first screen within 1 s, peak RSS under 300 MiB; (c) p99
under 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import os
import random
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

COLUMNS, LINES = 120, 40
TIMEOUT_SECONDS = 60.0
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")
PLAN_FILES, BLOCKS_PER_FILE = 250, 20
BIG_FILE_LINES = 50_000
FIRST_SCREEN_TARGET_S, RSS_TARGET_MIB, KEY_P99_TARGET_MS = 1.0, 300, 50.0
DRY_RUN_TIMEOUT_S = 180.0
CHUNK_DELAY = 0.005
REPLY_WORDS = 6_000
TYPED = "ZQ"
"""Letters typed into the input: the streamed reply never contains them."""
CLEAR_EVERY = 24
KEY_GAP_S = (0.03, 0.08)
LIST_ROWS = 5_000
BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Static

class Bare(App):
    def compose(self):
        yield Static("bare-app-ready")
        yield Footer()

Bare().run()
"""


class Terminal:
    """A child process in a pseudo-terminal; every output chunk is kept with the time it was read."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none"}
        for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LJTUI_CONFIG", "PYTHONDONTWRITEBYTECODE"):
            env.pop(var, None)
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                                     start_new_session=True)
        os.close(slave)
        self.chunks: list[tuple[float, bytes]] = []
        self.changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                if self.proc.poll() is not None:
                    return
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.changed:
                self.chunks.append((time.perf_counter(), data))
                self.changed.notify_all()

    def mark(self) -> int:
        """Where the output read so far ends."""
        with self.changed:
            return len(self.chunks)

    def wait_for(self, markers: list[bytes], since: int = 0, timeout: float = TIMEOUT_SECONDS) -> float:
        """Time (perf_counter) of the chunk after which every marker has appeared in the output since ``since``."""
        deadline = time.perf_counter() + timeout
        seen, index = b"", since
        while True:
            with self.changed:
                while index >= len(self.chunks):
                    left = deadline - time.perf_counter()
                    if left <= 0:
                        raise SystemExit(f"timed out waiting for {markers!r}")
                    self.changed.wait(left)
                stamp, data = self.chunks[index]
            index += 1
            seen += data
            text = ANSI.sub(b"", seen)
            if all(m in text for m in markers):
                return stamp

    def send(self, data: bytes) -> float:
        sent = time.perf_counter()
        os.write(self.master, data)
        return sent

    def close(self) -> float:
        """Stop the child; its peak RSS in MiB."""
        self.proc.send_signal(signal.SIGTERM)
        _, _, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = 0
        os.close(self.master)
        return usage.ru_maxrss / 1024


def ljtui(*args: str) -> list[str]:
    return [sys.executable, "-m", "ljtui.cli.main", *args]


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    return path


def many_blocks(repo: Path) -> Path:
    """250 modules of 20 functions; one block per function (5,000 blocks, chained 20 to a file)."""
    blocks = []
    for f in range(PLAN_FILES):
        module = repo / "pkg" / f"part{f // 50}" / f"mod{f}.py"
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text("".join(f'def func_{f}_{i}(x):\n    """Step {i}."""\n    y = x * {i}\n    return y + {f}\n\n\n'
                                  for i in range(BLOCKS_PER_FILE)), encoding="utf-8")
        for i in range(BLOCKS_PER_FILE):
            blocks.append(f"### EDIT {len(blocks) + 1}\n\n- file: `{module.relative_to(repo).as_posix()}`\n"
                          f"- where: `func_{f}_{i} (~{i * 6 + 3})`\n\n```old\n    y = x * {i}\n```\n\n"
                          f"```new\n    y = x * {i} + 1\n```\n")
    plan = repo / "plan.md"
    plan.write_text("\n".join(blocks), encoding="utf-8")
    return plan


def one_big_block(repo: Path) -> Path:
    """A 2.5 MB file and one block rewriting all of it, every tenth line changed (a 5 MB plan)."""
    old = "".join(f"line {i} of a big generated data file, kept as it is\n" for i in range(BIG_FILE_LINES))
    new = "".join((f"line {i} CHANGED by the plan\n" if i % 10 == 0 else
                   f"line {i} of a big generated data file, kept as it is\n") for i in range(BIG_FILE_LINES))
    (repo / "big.txt").write_text(old, encoding="utf-8")
    plan = repo / "big-plan.md"
    plan.write_text(f"### EDIT 1\n\n- file: `big.txt`\n\n```old\n{old}```\n\n```new\n{new}```\n", encoding="utf-8")
    return plan


def first_screen(repo: Path, plan: Path, markers: list[bytes], done: list[bytes]) -> tuple[float, float, float, float]:
    """Seconds to the first frame, to the plan's first screen (``markers``) and until every block is
    validated (``done``), and peak RSS (MiB)."""
    term = Terminal(ljtui("review", plan.name), repo)
    try:
        frame = term.wait_for([b"Conversation"]) - term.start
        screen = term.wait_for(markers) - term.start
        checked = term.wait_for(done) - term.start
    finally:
        rss = term.close()
    return frame, screen, checked, rss


def bare_first_frame(cwd: Path) -> float:
    term = Terminal([sys.executable, "-c", BARE_APP], cwd)
    try:
        return term.wait_for([b"bare-app-ready"]) - term.start
    finally:
        term.close()


def dry_run(repo: Path, plan: Path) -> float:
    """Seconds ``ljtui apply --dry-run`` takes (at most :data:`DRY_RUN_TIMEOUT_S`: then that, as a floor)."""
    start = time.perf_counter()
    try:
        subprocess.run(ljtui("apply", plan.name, "--dry-run"), cwd=repo, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL,
                       timeout=DRY_RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return DRY_RUN_TIMEOUT_S
    return time.perf_counter() - start


def plan_benchmark(name: str, repo: Path, plan: Path, markers: list[bytes], done: list[bytes], runs: int) -> None:
    bare_first_frame(repo)  # warm the file cache and the bytecode
    first_screen(repo, plan, markers, done)
    headless = dry_run(repo, plan)  # once: for a huge diff it takes minutes
    rows = [(bare_first_frame(repo), *first_screen(repo, plan, markers, done)) for _ in range(runs)]
    bare, frame, screen, checked = (statistics.median(r[i] for r in rows) for i in range(4))
    rss = max(r[4] for r in rows)
    capped = ">" if headless >= DRY_RUN_TIMEOUT_S else " "
    print(f"{name}: {plan.stat().st_size / 1e6:.1f} MB plan, median of {runs}")
    print(f"  bare Textual app, first frame     {bare * 1000:7.0f} ms")
    print(f"  ljtui apply --dry-run (headless) {capped}{headless * 1000:7.0f} ms")
    print(f"  ljtui review: first frame         {frame * 1000:7.0f} ms")
    print(f"  ljtui review: plan's first screen {screen * 1000:7.0f} ms   target {FIRST_SCREEN_TARGET_S * 1000:.0f} ms "
          f"{'met' if screen <= FIRST_SCREEN_TARGET_S else 'NOT met'}")
    print(f"  ljtui review: every block validated {checked * 1000:5.0f} ms")
    print(f"  peak RSS                          {rss:7.0f} MiB  target {RSS_TARGET_MIB} MiB "
          f"{'met' if rss < RSS_TARGET_MIB else 'NOT met'}")
    print(f"  first screen / dry-run ratio: {screen / headless:.2f}; first screen / bare first frame: "
          f"{screen / bare:.1f}; plan's screen after ljtui's first frame: {(screen - frame) * 1000:.0f} ms")


def reply_script(path: Path) -> Path:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "theta", "kappa", "lambda", "omega", "sigma"]
    rng = random.Random(7)
    paragraphs = []
    for _ in range(REPLY_WORDS // 60):
        paragraphs.append(" ".join(rng.choice(words) for _ in range(60)))
    text = "alpha beta " + "\n\n".join(paragraphs)
    path.write_text(f"chunk_delay: {CHUNK_DELAY}\nturns:\n  - text: \"{text}\"\n", encoding="utf-8")
    return path


def key_latencies(term: Terminal, samples: int, stream_ends_after: float | None) -> list[float]:
    """Milliseconds from writing each key to the frame that shows the input with it."""
    rng = random.Random(11)
    out: list[float] = []
    typed = ""
    while len(out) < samples:
        if stream_ends_after is not None and time.perf_counter() > stream_ends_after:
            break
        if len(typed) >= CLEAR_EVERY:
            since = term.mark()
            term.send(b"\x15")  # ctrl+u: clear the input
            term.wait_for([b"Ask for a change"], since)
            typed = ""
        typed += TYPED[len(typed) % len(TYPED)]
        since = term.mark()
        sent = term.send(typed[-1].encode())
        shown = term.wait_for([typed.encode()], since, timeout=5.0)
        out.append((shown - sent) * 1000)
        time.sleep(rng.uniform(*KEY_GAP_S))
    return out


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return f"p50 {at(0.5):5.1f}  p95 {at(0.95):5.1f}  p99 {at(0.99):5.1f}  max {ordered[-1]:5.1f} ms (n={len(values)})"


def streaming_benchmark(base: Path, samples: int) -> None:
    repo = git_repo(base / "stream")
    script = reply_script(base / "reply.yaml")
    term = Terminal(ljtui("--provider", "scripted", "--script", str(script)), repo)
    try:
        term.wait_for([b"Conversation"])
        idle = key_latencies(term, samples // 2, None)
        since = term.mark()
        term.send(b"\x15")
        term.wait_for([b"Ask for a change"], since)
        since = term.mark()
        term.send(b"/chat go")
        term.wait_for([b"/chat go"], since)
        since = term.mark()
        term.send(b"\r")
        term.wait_for([b"alpha beta"], since)
        ends = time.perf_counter() + REPLY_WORDS * CHUNK_DELAY * 0.9
        streaming = key_latencies(term, samples, ends)
    finally:
        term.close()
    p99 = sorted(streaming)[min(len(streaming) - 1, int(0.99 * len(streaming)))]
    print(f"key press to frame, {1 / CHUNK_DELAY:.0f} tokens/s streaming into the Conversation")
    print(f"  idle app (reference):  {percentiles(idle)}")
    print(f"  while streaming:       {percentiles(streaming)}   target p99 {KEY_P99_TARGET_MS:.0f} ms "
          f"{'met' if p99 < KEY_P99_TARGET_MS else 'NOT met'}")
    print(f"  p99 ratio streaming / idle: {p99 / sorted(idle)[min(len(idle) - 1, int(0.99 * len(idle)))]:.2f}")


async def _list_timings() -> dict[str, tuple[float, float]]:
    """Seconds to mount (and paint) 5,000 rows, and to show a new picture of them, per list kind."""
    from textual.app import App
    from textual.containers import VerticalScroll
    from textual.widgets import OptionList, Static

    from ljtui.core.review.views import BlockView
    from ljtui.tui.widgets.block_list import BlockList, row_text

    views = tuple(BlockView(n, f"pkg/mod{n % 250}.py", f"func (~{n})", "accepted", None) for n in range(1, LIST_ROWS + 1))
    again = tuple(BlockView(v.number, v.file, v.where, "rejected", None) for v in views)

    async def mount_line_api(app: App) -> object:
        widget = BlockList()
        await app.screen.mount(widget)
        widget.show(views, 0)
        return lambda: widget.show(again, 0)

    async def mount_option_list(app: App) -> object:
        widget = OptionList(*(row_text(v) for v in views))
        await app.screen.mount(widget)
        return lambda: widget.set_options(row_text(v) for v in again)

    async def mount_statics(app: App) -> object:
        widget = VerticalScroll()
        await app.screen.mount(widget)
        await widget.mount_all(Static(row_text(v)) for v in views)

        async def update() -> None:
            await widget.remove_children()
            await widget.mount_all(Static(row_text(v)) for v in again)
        return update

    class ListApp(App):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return {"diff-added": "green"}

    out = {}
    for name, mount in (("Line API BlockList", mount_line_api), ("OptionList", mount_option_list),
                        ("one Static per row", mount_statics)):
        app = ListApp()
        async with app.run_test(size=(COLUMNS, LINES)) as pilot:
            start = time.perf_counter()
            update = await mount(app)
            await pilot.pause()
            mounted = time.perf_counter() - start
            start = time.perf_counter()
            result = update()
            if asyncio.iscoroutine(result):
                await result
            await pilot.pause()
            out[name] = (mounted, time.perf_counter() - start)
    return out


def list_benchmark() -> None:
    timings = asyncio.run(_list_timings())
    reference = timings["Line API BlockList"]
    print(f"virtual list, {LIST_ROWS:,} rows (headless: mount + first layout, then a new picture of every row)")
    for name, (mounted, updated) in timings.items():
        print(f"  {name:<20} mount {mounted * 1000:7.0f} ms  update {updated * 1000:7.0f} ms  "
              f"(x{mounted / reference[0]:.1f}, x{updated / reference[1]:.1f} the Line API list)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="measured runs per plan (after one warm-up)")
    parser.add_argument("--samples", type=int, default=300, help="keys typed while the reply streams")
    parser.add_argument("--parts", default="abcd", help="which parts to run (letters of the list above)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["XDG_CONFIG_HOME"] = str(base / "config")
        if "a" in args.parts:
            repo = git_repo(base / "many")
            plan_benchmark("(a) 5,000-block plan", repo, many_blocks(repo), [b"/5,000", b"x * 0 + 1"],
                           [b"5,000/5,000 accepted"], args.runs)
        if "b" in args.parts:
            big = git_repo(base / "big")
            plan_benchmark("(b) 5 MB single-block plan", big, one_big_block(big),
                           [b"1/1 accepted", "lines 1–500 of".encode()], [b"1/1 accepted"], args.runs)
        if "c" in args.parts:
            streaming_benchmark(base, args.samples)
    if "d" in args.parts:
        list_benchmark()
    return 0


if __name__ == "__main__":
    sys.exit(main())
