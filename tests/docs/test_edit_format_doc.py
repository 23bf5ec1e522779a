"""docs/edit-format.md stays true: every marked example does what its marker says, every error is documented.

Markers are HTML comments right before a fence (invisible when the Markdown is rendered):

* ``<!-- file: PATH [noeol] [mode=444] -->``: the fence body is a file of the example
  repository every example is checked against (``noeol``: without its final line break);
* ``<!-- example: ok -->``: the plan parses, validates against that repository and applies;
* ``<!-- result: PATH [noeol] -->``: after the ``ok`` example before it, PATH holds exactly this;
* ``<!-- example: error Kind [Kind …] -->``: parsing (or, when the plan parses, validating it)
  reports errors of exactly these kinds;
* ``<!-- example: labelled errors -->``: the same, where each ``(Kind, …)`` in a block's
  heading or prose names the errors reported on that block (before the first block: with no
  block number), and nothing else is reported.

The message of every error an example reports must match a shape its row in the Errors tables gives.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ljtui.core.edits import anchors, errors, paths, plan_fields, plan_format, secret_targets, validate
from ljtui.core.edits.apply import apply_plan
from ljtui.core.edits.plan_format import PlanParseError, parse_plan
from ljtui.core.edits.result import DONE
from ljtui.core.edits.validate import validate_plan
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import id_factory

DOC = Path(__file__).resolve().parents[2] / "docs" / "edit-format.md"
MIN_EXAMPLES = 30
"""Fewest checked cases: each ``ok`` or ``error`` example counts once, a labelled one once per label."""
MIN_OK_EXAMPLES = 5
RAISING_MODULES = (plan_format, plan_fields, validate, paths, secret_targets, anchors)
"""Where the errors of parsing and validating a plan are made."""
NO_EXAMPLE = {
    "ReadFailed": "needs a file that exists but cannot be read, which a doc example cannot set up",
    "SecretTarget": "only the planner's own check passes a secret-file policy; `ljtui apply` reads every file",
    "MalformedPatch": "the validator makes it only for a block no reader writes (an unknown action); the readers' "
                      "own cases are tested with them",
}
"""Errors of parsing and validating that are documented in the tables but have no example."""

_MARKER = re.compile(r"<!--\s*(example|file|result):\s*(.*?)\s*-->\s*", re.S)
_PLACEHOLDER = re.compile(r"<[^<>]+>|…")
_BLOCK_HEADING = re.compile(r"#{1,6}[ \t]+EDIT[ \t]+([0-9]+)\b")
_LABEL = re.compile(r"\(([A-Z][A-Za-z]+(?:, [A-Z][A-Za-z]+)*)\)")
_MD = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class Fixture:
    path: str
    data: bytes
    mode: int | None = None


@dataclass
class Example:
    line: int
    expect: tuple[str, ...]
    """Empty for ``ok``, else the error kinds."""
    plan: str
    results: list[Fixture] = field(default_factory=list)
    labels: set[tuple[int | None, str]] | None = None
    """For ``labelled errors``: the (block number, kind) pairs the plan's text names."""

    @property
    def id(self) -> str:
        if self.labels is not None:
            return f"line{self.line}-labelled"
        return f"line{self.line}-" + ("ok" if not self.expect else "-".join(self.expect))


@dataclass
class Doc:
    fixtures: list[Fixture] = field(default_factory=list)
    examples: list[Example] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    shapes: dict[str, list[str]] = field(default_factory=dict)
    """Error kind → the message shapes its row in the Errors tables gives."""


def error_classes() -> set[str]:
    return {name for name, cls in vars(errors).items()
            if isinstance(cls, type) and issubclass(cls, errors.EditError) and cls is not errors.EditError}


def _fixture(args: str, body: str, line: int, doc: Doc) -> Fixture:
    path, *flags = args.split()
    data, mode = body.encode("utf-8"), None
    for flag in flags:
        if flag == "noeol":
            data = data.removesuffix(b"\n")
        elif flag.startswith("mode="):
            mode = int(flag.removeprefix("mode="), 8)
        else:
            doc.problems.append(f"line {line}: unknown flag {flag!r}")
    return Fixture(path, data, mode)


def _marked(doc: Doc, kind: str, args: str, fence: Token, line: int) -> None:
    if kind == "file":
        doc.fixtures.append(_fixture(args, fence.content, line, doc))
    elif kind == "result":
        if not doc.examples or doc.examples[-1].expect:
            doc.problems.append(f"line {line}: a result must follow an `ok` example")
        else:
            doc.examples[-1].results.append(_fixture(args, fence.content, line, doc))
    elif args == "ok":
        doc.examples.append(Example(line, (), fence.content))
    elif args == "labelled errors":
        labels = labels_of(fence.content)
        if not labels:
            doc.problems.append(f"line {line}: a `labelled errors` example names no error")
        doc.examples.append(Example(line, tuple(sorted({k for _, k in labels})), fence.content, labels=labels))
    elif args.startswith("error ") and len(args.split()) > 1:
        kinds = tuple(args.split()[1:])
        unknown = [k for k in kinds if k not in error_classes()]
        if unknown:
            doc.problems.append(f"line {line}: no such error class: {', '.join(unknown)}")
        doc.examples.append(Example(line, kinds, fence.content))
    else:
        doc.problems.append(f"line {line}: unknown example marker {args!r} (ok, or error Kind …)")


def labels_of(plan: str) -> set[tuple[int | None, str]]:
    """Every ``(Kind, …)`` of ``plan`` naming error classes, with the number of the block it is in."""
    pairs: set[tuple[int | None, str]] = set()
    block: int | None = None
    for line in plan.splitlines():
        heading = _BLOCK_HEADING.match(line)
        if heading:
            block = int(heading.group(1))
        for group in _LABEL.findall(line):
            pairs.update((block, kind) for kind in group.split(", ") if kind in error_classes())
    return pairs


def _table_rows(tokens: list[Token], start: int) -> list[list[Token]]:
    """The inline tokens of each body row of the table opening at ``start``."""
    rows: list[list[Token]] = []
    in_body = False
    for tok in tokens[start:]:
        if tok.type == "table_close":
            break
        if tok.type == "tbody_open":
            in_body = True
        elif tok.type == "tr_open" and in_body:
            rows.append([])
        elif tok.type == "inline" and in_body and rows:
            rows[-1].append(tok)
    return rows


def read_doc(text: str) -> Doc:
    """Every marked fence and the Errors tables of ``text``."""
    doc = Doc()
    tokens = _MD.parse(text)
    in_errors = False
    for i, tok in enumerate(tokens):
        line = (tok.map or [0])[0] + 1
        if tok.type == "heading_open" and tok.tag == "h2":
            in_errors = tokens[i + 1].content.strip() == "Errors"
        elif tok.type == "table_open" and in_errors:
            for cells in _table_rows(tokens, i):
                spans = [[c.content for c in cell.children or [] if c.type == "code_inline"] for cell in cells]
                if len(spans) < 2 or len(spans[0]) != 1:
                    doc.problems.append(f"line {line}: an Errors row must start with one `Kind` cell: {spans}")
                    continue
                doc.shapes.setdefault(spans[0][0], []).extend(spans[1])
        elif tok.type == "html_block" and "<!--" in tok.content:
            found = _MARKER.fullmatch(tok.content.strip() + "\n")
            if found is None:
                if re.search(r"<!--\s*(example|file|result)\b", tok.content):
                    doc.problems.append(f"line {line}: malformed marker {tok.content.strip()!r}")
                continue
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if following is None or following.type != "fence":
                doc.problems.append(f"line {line}: marker {tok.content.strip()!r} is not followed by a fence")
                continue
            _marked(doc, found.group(1), found.group(2), following, line)
    return doc


DOC_TEXT = DOC.read_text(encoding="utf-8")
PARSED = read_doc(DOC_TEXT)


def shape_pattern(shape: str) -> re.Pattern[str]:
    """``<value>`` and ``…`` of a documented message shape as wildcards, the rest literal."""
    parts: list[str] = []
    at = 0
    for m in _PLACEHOLDER.finditer(shape):
        parts += [re.escape(shape[at:m.start()]), ".+?" if m.group(0) != "…" else ".*?"]
        at = m.end()
    parts.append(re.escape(shape[at:]))
    return re.compile("".join(parts), re.S)


def make_repo(root: Path, fixtures: list[Fixture]) -> Path:
    root.mkdir()
    for fixture in fixtures:
        path = root / fixture.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(fixture.data)
        if fixture.mode is not None:
            path.chmod(fixture.mode)
    return root


def reported_errors(plan_text: str, root: Path) -> list[errors.EditError]:
    """What parsing reports, or when the plan parses, what validating it against ``root`` reports."""
    try:
        plan = parse_plan(plan_text)
    except PlanParseError as exc:
        return exc.errors
    return validate_plan(plan, root).errors


def raised_kinds() -> set[str]:
    """Names of the error classes the parser and the validator construct."""
    made = {m.group(1) for module in RAISING_MODULES
            for m in re.finditer(r"\bE\.([A-Z][A-Za-z]+)\(", inspect.getsource(module))}
    return made & error_classes()


def test_every_marker_is_understood_and_precedes_a_fence():
    assert PARSED.problems == []
    assert {f.path for f in PARSED.fixtures} >= {"src/greet.py", "VERSION"}


def test_the_doc_has_enough_examples():
    ok = [e for e in PARSED.examples if not e.expect]
    cases = sum(len(e.labels) if e.labels is not None else 1 for e in PARSED.examples)
    assert cases >= MIN_EXAMPLES, [e.id for e in PARSED.examples]
    assert len(ok) >= MIN_OK_EXAMPLES and any(e.results for e in ok)


def error_problems(example: Example, root: Path, shapes: dict[str, list[str]]) -> list[str]:
    """How what the plan of an error ``example`` reports differs from what the doc says (empty: it agrees)."""
    found = reported_errors(example.plan, root)
    shown = [str(e) for e in found]
    problems = []
    if sorted({e.kind for e in found}) != sorted(set(example.expect)):
        problems.append(f"expected {sorted(set(example.expect))}, got {shown}")
    if example.labels is not None and {(e.block, e.kind) for e in found} != example.labels:
        problems.append(f"labels name {sorted(example.labels, key=str)}, got {shown}")
    for err in found:
        if not any(shape_pattern(s).fullmatch(err.message) for s in shapes.get(err.kind, [])):
            problems.append(f"{err.kind} message {err.message!r} matches no documented shape {shapes.get(err.kind)}")
    return problems


@pytest.mark.parametrize("example", PARSED.examples, ids=lambda e: e.id)
def test_example_does_what_its_marker_says(example: Example, tmp_path: Path):
    root = make_repo(tmp_path / "repo", PARSED.fixtures)
    if example.expect:
        assert error_problems(example, root, PARSED.shapes) == []
        return
    plan = parse_plan(example.plan)
    report = validate_plan(plan, root)
    assert report.ok, [str(e) for e in report.errors]
    applied = apply_plan(plan, root, run_checks=False, clock=FixedClock(), new_id=id_factory())
    assert applied.result.status == DONE, applied.result.to_dict()
    assert set(applied.result.files) == set(report.changes)
    for result in example.results:
        assert (root / result.path).read_bytes() == result.data, result.path


def test_every_error_the_parser_and_validator_raise_has_an_example():
    raised = raised_kinds()
    assert {"NoBlocks", "MalformedField", "AnchorNotFound", "PathEscape"} <= raised  # the scan works
    assert set(NO_EXAMPLE) <= raised, "an exemption names an error that is no longer raised"
    shown = {kind for e in PARSED.examples for kind in e.expect}
    assert sorted(raised - set(NO_EXAMPLE) - shown) == []


def test_every_error_class_is_in_the_errors_section_with_a_message_shape():
    documented = set(PARSED.shapes)
    assert sorted(error_classes() - documented) == [], "errors without a row in the doc's Errors section"
    assert sorted(documented - error_classes()) == [], "rows naming no error class"
    assert [k for k, shapes in PARSED.shapes.items() if not shapes] == []


def test_the_checker_fails_a_broken_example(tmp_path: Path):
    """A self-check: a wrong label, kind or shape, a broken plan and a broken marker are all caught."""
    root = make_repo(tmp_path / "repo", PARSED.fixtures)
    labelled = next(e for e in PARSED.examples if e.labels and (5, "MissingNew") in e.labels)
    assert error_problems(labelled, root, PARSED.shapes) == []
    relabelled = labelled.plan.replace("(MissingNew)", "(MissingOld)")
    wrong = Example(0, labelled.expect, relabelled, labels=labels_of(relabelled))
    assert error_problems(wrong, root, PARSED.shapes)
    block_5 = "### EDIT 5: no new fence (MissingNew)\n- file: VERSION\n```old\n1.0\n```\n"
    assert block_5 in labelled.plan
    fixed = labelled.plan.replace(block_5, block_5 + "```new\n1.1\n```\n")  # the label stays, the error goes
    assert error_problems(Example(0, labelled.expect, fixed, labels=labels_of(fixed)), root, PARSED.shapes)
    wrong_shape = {**PARSED.shapes, "MissingNew": ["no ```old fence"]}
    assert error_problems(labelled, root, wrong_shape)
    broken = read_doc("<!-- example: eror X -->\n```markdown\n### EDIT 1\n```\n\n<!-- example: ok -->\ntext\n")
    assert len(broken.problems) == 2
