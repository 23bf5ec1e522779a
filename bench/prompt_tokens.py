"""The agent's fixed prompt, in tokens: the system prompt, and the tool schemas by family (MODEL-3).

Every request starts with the same prefix: the system prompt, then every
tool offered, as the OpenAI-compatible wire sends them. On a CPU server that
prefix is what the first call of a session spends its time reading. This
prints its size per tool family, for everything there is (the reference) and
for what a fresh session offers (no gate in focus, no playbook yet; the edit
tool of the model's family, :mod:`ljtui.core.agent.offer`), and the ratio.

Tokens are estimated as characters / 4 (what compression uses), or counted
by a real tokenizer: ``--tokenize http://127.0.0.1:8080`` asks a llama.cpp
server's ``/tokenize`` for the model it runs.

    python bench/prompt_tokens.py [--repo PATH] [--model NAME] [--tokenize URL]
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ljtui.core.agent.offer import Offer  # noqa: E402
from ljtui.core.agent.tools import TOOLS  # noqa: E402
from ljtui.core.config import Config  # noqa: E402
from ljtui.core.providers.openai_wire import tool_to_wire  # noqa: E402


def estimated(text: str) -> int:
    return -(-len(text) // 4)


def tokenizer(url: str) -> Callable[[str], int]:
    """Counts tokens with a llama.cpp server's ``/tokenize``."""
    def count(text: str) -> int:
        body = json.dumps({"content": text}).encode()
        request = urllib.request.Request(url.rstrip("/") + "/tokenize", body, {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as reply:
            return len(json.load(reply)["tokens"])
    return count


def system_prompt(repo: Path) -> str:
    """The system prompt a session in ``repo`` sends."""
    from ljtui.core.engine import Engine
    from ljtui.core.ports import ListSink

    return Engine(Config(), ListSink(), repo_root=repo).context.build()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--model", default="claude-sonnet-4-5", help="decides the edit tool offered")
    parser.add_argument("--tokenize", help="a llama.cpp server's root URL, to count real tokens")
    args = parser.parse_args()
    count = tokenizer(args.tokenize) if args.tokenize else estimated
    config = Config()
    config.provider.model = args.model
    specs = [spec for spec, _ in TOOLS]
    family = {spec.name: target.split(":")[0] for spec, target in TOOLS}
    offered = {spec.name for spec in Offer(gate=False, playbooks=False).specs(tuple(specs), config)}
    every: dict[str, int] = defaultdict(int)
    fresh: dict[str, int] = defaultdict(int)
    tools: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for spec in specs:
        tokens = count(json.dumps(tool_to_wire(spec), ensure_ascii=False))
        every[family[spec.name]] += tokens
        tools[family[spec.name]][0] += 1
        if spec.name in offered:
            fresh[family[spec.name]] += tokens
            tools[family[spec.name]][1] += 1
    system = count(system_prompt(Path(args.repo)))
    unit = "tokens" if args.tokenize else "tokens (estimated: chars / 4)"
    print(f"fixed prompt of {args.repo}, model {args.model}, in {unit}")
    print(f"{'part':<12}{'every tool':>12}{'offered':>10}   tools")
    print(f"{'system':<12}{system:>12}{system:>10}")
    for name in sorted(every, key=lambda n: -every[n]):
        print(f"{name:<12}{every[name]:>12}{fresh[name]:>10}   {tools[name][1]}/{tools[name][0]}")
    total_every, total_fresh = system + sum(every.values()), system + sum(fresh.values())
    print(f"{'total':<12}{total_every:>12}{total_fresh:>10}   {len(offered)}/{len(specs)}")
    print(f"a fresh session's fixed prompt: {total_fresh / total_every:.2f}x of offering every tool")


if __name__ == "__main__":
    main()
