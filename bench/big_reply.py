"""Benchmark: a 10 MB model reply in the full-screen app, in a real pseudo-terminal.

A scripted model answers one message with one reply of ``--megabytes``
MB (paragraphs of words, streamed in big chunks). Measured in the same run:

* keys typed into the input on the idle app before the reply (the
  reference), and after the reply has ended: the time from writing a key
  to the frame showing it, as percentiles, and their p99 ratio;
* the app's resident memory (VmRSS) before the message and after the reply,
  and its peak;
* resuming that session in a fresh app (``--continue``): the time until
  the input echoes a key.

    python bench/big_reply.py [--megabytes 10] [--samples 60]

Targets: key p99 after the reply within 2x the idle reference; RSS growth
under 200 MiB; resume interactive within 3 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ui import CLEAR_EVERY, TYPED, Terminal, git_repo, ljtui, percentiles  # noqa: E402

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "theta", "kappa", "lambda", "omega", "sigma"]
PARAGRAPH_WORDS = 80
KEY_RATIO_TARGET, RSS_GROWTH_TARGET_MIB, RESUME_TARGET_S = 2.0, 200, 3.0
REPLY_TIMEOUT_S = 600.0
SETTLE_S = 3.0


def reply_script(path: Path, megabytes: float) -> Path:
    """A scripted model whose one reply is ``megabytes`` MB of prose, ending in a marker."""
    rng = random.Random(5)
    target = int(megabytes * 1024 * 1024)
    paragraphs, size = [], 0
    while size < target:
        paragraph = " ".join(rng.choice(WORDS) for _ in range(PARAGRAPH_WORDS))
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    text = "bigreply " + "\\n\\n".join(paragraphs) + "\\n\\nZZEND"
    path.write_text(f'turns:\n  - text: "{text}"\n  - text: "after"\n', encoding="utf-8")
    return path


KEY_TIMEOUT_S = 120.0
"""Longest wait for one key to show (after a huge reply a key can take many seconds)."""
KEY_GAP_S = 0.05


def key_latencies(term: Terminal, samples: int) -> list[float]:
    """Milliseconds from writing each key to the frame that shows the input with it."""
    out: list[float] = []
    typed = ""
    while len(out) < samples:
        if len(typed) >= CLEAR_EVERY:
            since = term.mark()
            term.send(b"\x15")  # ctrl+u: clear the input
            term.wait_for([b"Ask for a change"], since, timeout=KEY_TIMEOUT_S)
            typed = ""
        typed += TYPED[len(typed) % len(TYPED)]
        since = term.mark()
        sent = term.send(typed[-1].encode())
        shown = term.wait_for([typed.encode()], since, timeout=KEY_TIMEOUT_S)
        out.append((shown - sent) * 1000)
        time.sleep(KEY_GAP_S)
    return out


def rss_mib(pid: int) -> float:
    """The process's resident memory now."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--samples", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ljtui-bench-reply-") as scratch:
        base = Path(scratch)
        repo = git_repo(base / "repo")
        script = reply_script(base / "reply.yaml", args.megabytes)
        term = Terminal(ljtui("--provider", "scripted", "--script", str(script)), repo)
        try:
            term.wait_for([b"Conversation"])
            time.sleep(SETTLE_S)  # the start-up work after the first frame is not what is measured
            idle = key_latencies(term, args.samples)
            before = rss_mib(term.proc.pid)
            since = term.mark()
            term.send(b"\x15")
            term.wait_for([b"Ask for a change"], since)
            started = time.perf_counter()
            term.send(b"/chat go\r")
            term.wait_for([b"ZZEND"], since, timeout=REPLY_TIMEOUT_S)
            took = time.perf_counter() - started
            time.sleep(SETTLE_S)
            after_reply = key_latencies(term, args.samples)
            after = rss_mib(term.proc.pid)
        finally:
            peak = term.close()
        after_script = base / "after.yaml"  # the resumed app need not read the big script again
        after_script.write_text('turns:\n  - text: "after"\n', encoding="utf-8")
        resume = Terminal(ljtui("--provider", "scripted", "--script", str(after_script), "--continue"), repo)
        try:
            opened = resume.wait_for([b"Resumed session"], timeout=REPLY_TIMEOUT_S)
            since = resume.mark()
            sent = resume.send(b"Q")
            echoed = resume.wait_for([b"Q"], since, timeout=REPLY_TIMEOUT_S)
        finally:
            resume_peak = resume.close()
    p99 = lambda values: sorted(values)[min(len(values) - 1, int(0.99 * len(values)))]  # noqa: E731
    ratio = p99(after_reply) / p99(idle)
    print(f"a {args.megabytes:g} MB reply, shown in {took:.1f} s")
    print(f"  keys, idle app (reference): {percentiles(idle)}")
    print(f"  keys, after the reply:      {percentiles(after_reply)}   p99 ratio {ratio:.2f} "
          f"(target {KEY_RATIO_TARGET:g}: {'met' if ratio <= KEY_RATIO_TARGET else 'NOT met'})")
    growth = after - before
    print(f"  RSS {before:.0f} MiB before, {after:.0f} MiB after (+{growth:.0f}), peak {peak:.0f} MiB "
          f"(target +{RSS_GROWTH_TARGET_MIB}: {'met' if growth <= RSS_GROWTH_TARGET_MIB else 'NOT met'})")
    wait = echoed - sent
    print(f"  resumed: the transcript after {opened - resume.start:.1f} s, a key echoed {wait:.2f} s later, "
          f"peak RSS {resume_peak:.0f} MiB (target {RESUME_TARGET_S:g} s: "
          f"{'met' if wait <= RESUME_TARGET_S else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
