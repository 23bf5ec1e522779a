"""Ranking (most referenced first), the token budget, and byte-stable rendering."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from ljtui.core.outline import build_index, render_outline
from ljtui.core.outline.cache import CACHE_DIR, RENDER_FILE
from ljtui.core.outline.rank import ranked
from ljtui.core.planner.budget import CHARS_PER_TOKEN
from ljtui.core.statedir import AGENT_DIR
from tests.core.outline.conftest import write


def test_the_most_referenced_definitions_come_first(ranked_repo: Path) -> None:
    order = [symbol.qualname for _, symbol in ranked(build_index(ranked_repo, workers=1))]
    assert order.index("Engine") < order.index("helper") < order.index("unused")
    assert order.index("Engine") < order.index("Engine.run") < order.index("unused")
    assert order.index("Engine.__init__") < order.index("helper")


def test_members_never_outrank_what_encloses_them(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {
        "lib.py": "class Rare:\n    def get(self):\n        pass\n",
        **{f"use{i}.py": f"def use{i}(d):\n    return d.get('k')\n" for i in range(5)},
    })
    scores = {symbol.qualname: score for score, symbol in ranked(build_index(root, workers=1))}
    assert scores["Rare.get"] <= scores["Rare"] == 0


def test_the_full_outline_groups_by_file_and_indents_members(ranked_repo: Path) -> None:
    text = render_outline(build_index(ranked_repo, workers=1)).text
    assert text.splitlines()[:8] == [
        "app/cli.py:", "  3: def cli()", "app/main.py:", "  3: def main()", "app/web.py:", "  3: def web()",
        "core/engine.py:", "  1: class Engine",
    ]
    assert "    2: def run(self, request)" in text.splitlines()
    assert text.endswith("[outline: all 8 definitions in 4 files]")


def test_members_outside_their_types_file_name_it(langs: Path) -> None:
    text = render_outline(build_index(langs, workers=1)).text
    lines = text.splitlines()
    assert "  33: [Wrapper] fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result" in lines
    assert "    25: pub fn new(x: f64, y: f64) -> Self" in lines
    assert "    24: func (s *Server) Start(ctx context.Context, opts ...Option) (err error)" in lines


def test_the_budget_cuts_by_rank_and_says_what_was_left_out(ranked_repo: Path) -> None:
    index = build_index(ranked_repo, workers=1)
    budget = 60
    rendered = render_outline(index, budget)
    assert len(rendered.text) <= budget * CHARS_PER_TOKEN
    assert 0 < rendered.shown < rendered.total == 8
    assert "core/engine.py:\n  1: class Engine" in rendered.text
    assert "unused" not in rendered.text
    assert (f"[outline cut to {budget} tokens: {rendered.shown} of 8 definitions in {rendered.files_shown} of 4 "
            f"files, most referenced first; {8 - rendered.shown} left out") in rendered.text


def test_many_budgets_never_overflow(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {f"m{i}.py": "".join(f"def f{i}_{j}(a, b):\n    pass\n" for j in range(20))
                                  for i in range(10)})
    index = build_index(root, workers=1)
    for budget in (80, 100, 250, 500, 1000, 2000):
        text = render_outline(index, budget, remember=False).text
        assert len(text) <= budget * CHARS_PER_TOKEN, budget


def test_the_same_state_renders_the_same_bytes_cold_warm_and_cached(langs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(langs, copy)
    first = render_outline(build_index(langs, workers=1), 300).text
    again = render_outline(build_index(langs, workers=1), 300).text
    (langs / AGENT_DIR / CACHE_DIR / RENDER_FILE).unlink()
    warm = build_index(langs, workers=1)
    assert warm.render_cache is None
    counted = render_outline(replace(warm, mentions=None), 300, remember=False).text
    shutil.rmtree(langs / AGENT_DIR / CACHE_DIR)
    cold = render_outline(build_index(langs, workers=1, use_cache=False), 300, remember=False).text
    elsewhere = render_outline(build_index(copy, workers=2), 300).text
    assert first.encode() == again.encode() == counted.encode() == cold.encode() == elsewhere.encode()


def test_a_change_renders_anew(ranked_repo: Path) -> None:
    before = render_outline(build_index(ranked_repo, workers=1)).text
    engine = ranked_repo / "core/engine.py"
    engine.write_text(engine.read_text() + "\n\ndef later():\n    pass\n")
    after = render_outline(build_index(ranked_repo, workers=1)).text
    assert "def later()" in after and "def later()" not in before


def test_control_characters_in_names_and_signatures_are_not_shown(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "evil\x1b[31m\n.py").write_text('def wipe(x="\x1b[2J"):\n    pass\n')
    text = render_outline(build_index(root, workers=1)).text
    assert "\x1b" not in text and text.splitlines()[:2] == ["evil\ufffd[31m\ufffd.py:", '  1: def wipe(x="\ufffd[2J")']
