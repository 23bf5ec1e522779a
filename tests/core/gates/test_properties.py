"""Properties: any acceptable gate reads back from its file exactly; any text in a gate file is a gate or an error."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ljtui.core.gates.markdown import code_span, parse_gate
from ljtui.core.gates.model import CheckItem, Evidence, Factors, Gate, HistoryEntry, Stats
from ljtui.core.gates.records import GateInvalid, check_entry, check_items, check_title
from ljtui.core.gates.store import GateStore

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Backticks, colons, dashes and spaces often; any other character (any script, emoji, controls) sometimes.
tricky = st.sampled_from(list("``` :—-[]#*\\|'\"\t"))
any_char = st.characters(exclude_categories=("Cs",))
BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
one_line_char = st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp")).filter(lambda c: c not in BIDI)
texts = st.text(tricky | one_line_char | st.sampled_from(list("ab漢é😀")), min_size=1, max_size=60)
item_ids = st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
scores = st.floats(0, 1) | st.sampled_from([0, 1, 0.25, 0.5, 0.75])
factors = st.builds(Factors, scores, scores, scores, st.booleans(), st.booleans())
items = st.lists(st.builds(CheckItem, item_ids, texts, texts, st.booleans()), min_size=1, max_size=6,
                 unique_by=lambda i: i.id)
millis = st.integers(0, 4_102_444_800_000).map(lambda ms: ms / 1000)
evidence = st.builds(Evidence, item_ids, texts, st.none() | st.integers(-255, 255), st.integers(0, 10**9),
                     st.text(max_size=300), texts | st.just(""), texts | st.just(""), texts | st.just(""), millis)
entries = st.builds(HistoryEntry, texts, st.sampled_from(["pass", "fail", "exempt", "rework"]), millis,
                    st.lists(evidence, max_size=3).map(tuple))
stats = st.integers(0, 50).flatmap(lambda runs: st.integers(0, runs).flatmap(
    lambda passed: st.builds(Stats, st.just(runs), st.just(passed), st.just(runs - passed), st.integers(0, passed))))


def _valid(make):  # type: ignore[no-untyped-def]
    try:
        return make()
    except GateInvalid:
        assume(False)


@SETTINGS
@given(title=texts, items=items, factors=factors, stats=stats, history=st.lists(entries, max_size=4),
       created=millis, updated=millis)
def test_any_acceptable_gate_reads_back_exactly(title: str, items: list[CheckItem], factors: Factors,
                                                stats: Stats, history: list[HistoryEntry], created: float,
                                                updated: float) -> None:
    title = _valid(lambda: check_title(title))
    checked = _valid(lambda: check_items(items))
    kept = _valid(lambda: tuple(check_entry(e) for e in history))
    gate = Gate("round-trip", title, checked, factors, 0, False, stats, kept, created, updated)
    with tempfile.TemporaryDirectory() as root:
        store = GateStore(Path(root))
        written = store.save(gate)
        assert written.items == checked  # the commands, backticks and all, are exactly the ones given
        assert written.factors == factors and written.stats == stats and written.history == kept
        assert (written.title, written.created, written.updated) == (title, created, updated)
        assert GateStore(Path(root)).load(gate.id) == written


@SETTINGS
@given(command=texts)
def test_a_code_span_reads_back_exactly(command: str) -> None:
    command = command.strip()
    assume(command and "\n" not in command and "\r" not in command)
    line = f"- [required] `x` — Check: {code_span(command)}"
    text = "---\nid: g\ntitle: t\nfactors: {change_surface: 0, chain_length: 0, cognitive_density: 0, " \
           "objectively_verifiable: true, irreversible: false}\n---\n## Checklist\n" + line + "\n"
    try:
        gate = parse_gate(text, "g").gate
    except GateInvalid as exc:
        assert exc.field.startswith("checklist.x"), exc  # refused for its characters, never misread
        return
    assert gate.items[0].command == command


@SETTINGS
@given(body=st.lists(st.text(tricky | any_char, max_size=20)
                     | st.sampled_from(["\n", "## Checklist\n", "## History\n", "- [required] `a` — ", ": `x`"]),
                     max_size=30).map("".join))
def test_any_body_is_a_gate_or_a_named_error(body: str) -> None:
    text = "---\nid: g\ntitle: t\nfactors: {change_surface: 0, chain_length: 0, cognitive_density: 0, " \
           "objectively_verifiable: true, irreversible: false}\n---\n" + body
    try:
        parse_gate(text, "g")
    except GateInvalid as exc:
        assert exc.field and exc.problem
