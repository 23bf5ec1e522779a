"""A gated run end to end through the engine: scripted models, real git, real checks, real delivery."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.gates import events as G
from tests.conftest import git
from tests.core.gates.scripted import (
    FRIENDLY, GATE, L2_FACTORS, L3_FACTORS, ORIGINAL, TESTS_ITEM, call, gate_events, make_engine, propose,
    tool_results, with_tests,
)

EDIT = call("edit_file", path="app.py", old="    return 'hello ' + name\n", new="    return f'hello, {name}!'\n")
START = [propose(), call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE)]
USER_SAYS_YES = {"gate_confirm": ["yes"], "gate_start": ["yes"], "apply": ["yes"]}


async def test_the_work_is_staged_checked_refused_then_delivered_atomically(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, approver = make_engine(repo, [
        *START,
        call("gate_deliver"),
        EDIT,
        call("bash", command="python3 -c \"open('from_bash.txt', 'w').write('made-by-bash\\n')\""),
        call("gate_check", item="tests"),
        call("gate_finish", outcome="pass"),
        {"text": "Delivered."},
    ], {**USER_SAYS_YES, "playbook_offer": ["yes"]})
    assert await engine.run_turn("make greet friendlier") is not None
    kinds = [e.kind for e in gate_events(sink)]
    assert kinds[:3] == ["gate_proposed", "gate_confirmed", "gate_started"]
    [refused] = tool_results(sink, "gate_deliver")
    assert not refused.ok and GATE in refused.output and "tests" in refused.output
    [blocked] = [e for e in gate_events(sink) if isinstance(e, G.DeliveryBlocked)]
    assert blocked.missing == ("tests",) and blocked.bounces == 1
    [checked] = [e for e in gate_events(sink) if isinstance(e, G.GateCheckRecorded)]
    assert checked.item == "tests" and checked.exit_code == 0 and checked.agent == "chat"
    assert [e.outcome for e in gate_events(sink) if isinstance(e, G.GateFinished)] == ["pass"]
    [delivered] = [e for e in gate_events(sink) if isinstance(e, G.GateDelivered)]
    assert delivered.applied and set(delivered.files) == {"app.py", "from_bash.txt"}
    assert (repo / "app.py").read_text() == FRIENDLY
    assert (repo / "from_bash.txt").read_text() == "made-by-bash\n"
    assert [r.kind for r in approver.asked] == ["gate_confirm", "gate_start", "apply", "playbook_offer"]
    draft = (repo / ".agent" / "playbooks" / "friendlier-greet.md").read_text(encoding="utf-8")
    assert 'status: "draft"' in draft and "python3 -m unittest -q" in draft
    assert engine.gates.run is None and not list((repo / ".agent" / "workspace").glob("*/tree"))
    assert "?? from_bash.txt" in git(repo, "status", "--porcelain")


async def test_until_delivery_the_users_tree_is_byte_identical(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, [*START, EDIT, call("bash", command="echo x > app.py.bak; echo y >> app.py"),
                                         {"text": "Stopped before the checks."}],
                                  {**USER_SAYS_YES, "permission": ["once"]})  # redirections: asked every time
    before = {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    await engine.run_turn("make greet friendlier")
    assert {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()} == before
    tree = engine.gates.staging_root()
    assert tree is not None and (tree / "app.py").read_text() == FRIENDLY + "y\n"
    assert (tree / "app.py.bak").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        f"?? .agent/gates/{GATE}.md"]


async def test_a_model_cannot_confirm_or_start_its_own_gate_headless(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, approver = make_engine(repo, [*START, EDIT, {"text": "I tried."}])
    await engine.run_turn("make greet friendlier")
    [confirm] = tool_results(sink, "gate_confirm")
    [start] = tool_results(sink, "gate_start")
    assert not confirm.ok and "did not confirm" in confirm.output
    assert not start.ok and "not confirmed by the user" in start.output
    assert engine.gates.run is None and (repo / "app.py").read_text() == FRIENDLY
    assert [r.kind for r in approver.asked] == ["gate_confirm"]


async def test_a_pass_with_a_failed_required_item_is_refused(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, [*START, call("gate_check", item="tests"),
                                         call("gate_finish", outcome="pass"), {"text": "?"}], USER_SAYS_YES)
    await engine.run_turn("make greet friendlier")
    [check] = tool_results(sink, "gate_check")
    assert not check.ok and "FAILED" in check.output
    [finish] = tool_results(sink, "gate_finish")
    assert not finish.ok and "failed: tests" in finish.output
    assert (repo / "app.py").read_text() == ORIGINAL


async def test_evidence_made_stale_by_a_later_edit_does_not_pass(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    later = call("write_file", path="notes.txt", content="later\n")
    engine, sink, _ = make_engine(repo, [*START, EDIT, call("gate_check", item="tests"), later,
                                         call("gate_finish", outcome="pass"), {"text": "?"}], USER_SAYS_YES)
    await engine.run_turn("make greet friendlier")
    [finish] = tool_results(sink, "gate_finish")
    assert not finish.ok and "stale" in finish.output and "tests" in finish.output
    view = await engine.gate_view()
    assert view is not None and [i.status for i in view.items] == ["stale"]
    assert (repo / "app.py").read_text() == ORIGINAL


async def test_an_l3_gate_needs_the_verifier_and_records_its_id(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    turns = [propose(L3_FACTORS), call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE), EDIT,
             call("gate_check", item="tests"), call("gate_finish", outcome="pass"), call("gate_verify"),
             call("gate_finish", outcome="pass"), {"text": "done"}]
    verifier = [call("gate_check", item="tests"), {"text": "tests pass"}]
    engine, sink, _ = make_engine(repo, turns, USER_SAYS_YES, agents={"verifier": verifier})
    await engine.run_turn("make greet friendlier")
    first, second = tool_results(sink, "gate_finish")
    assert not first.ok and "independent verifier" in first.output
    assert second.ok, second.output
    checks = [e for e in gate_events(sink) if isinstance(e, G.GateCheckRecorded)]
    assert checks[0].verifier == "" and checks[1].verifier.startswith("verifier-")
    assert checks[1].agent == checks[1].verifier != "chat"
    assert (repo / "app.py").read_text() == FRIENDLY
    gate = engine.gates.gate(GATE)
    assert gate.history[-1].outcome == "pass"
    assert any(e.verifier for e in gate.history[-1].evidence)


async def test_only_the_starter_may_finish(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    turns = [propose(L3_FACTORS), call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE),
             call("gate_verify"), {"text": "done"}]
    verifier = [call("gate_finish", outcome="fail"), {"text": "tried"}]
    engine, sink, _ = make_engine(repo, turns, USER_SAYS_YES, agents={"verifier": verifier})
    await engine.run_turn("x")
    [tried] = tool_results(sink, "gate_finish")  # the verifier has no such tool
    assert not tried.ok and tried.agent.startswith("verifier-") and "unknown tool 'gate_finish'" in tried.output
    assert engine.gates.run is not None and engine.gates.run.outcome == ""


async def test_two_refused_deliveries_open_the_breaker_and_the_user_decides(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, approver = make_engine(repo, [*START, EDIT, call("gate_deliver"), call("gate_deliver"),
                                                {"text": "blocked"}], {**USER_SAYS_YES, "gate_breaker": ["yes"]})
    await engine.run_turn("x")
    first, second = tool_results(sink, "gate_deliver")
    assert not first.ok and second.ok
    [opened] = [e for e in gate_events(sink) if isinstance(e, G.GateBreakerOpened)]
    assert (opened.bounces, opened.decision) == (2, "deliver")
    assert "gate_breaker" in [r.kind for r in approver.asked]
    assert (repo / "app.py").read_text() == FRIENDLY


async def test_a_guard_failure_warns_and_is_not_a_pass(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, approver = make_engine(repo, [*START, EDIT, {"text": "ok"}], USER_SAYS_YES)
    await engine.run_turn("x")
    (repo / ".agent" / "gates" / f"{GATE}.md").write_text("---\nid: [broken\n")
    delivery = await engine.deliver_gate()
    assert not delivery.delivered and "guard failed" in delivery.message
    assert any(getattr(e, "level", "") == "warning" and "guard failed" in getattr(e, "message", "")
               for e in sink.events)
    assert approver.asked[-1].kind == "gate_failsafe"
    assert (repo / "app.py").read_text() == ORIGINAL
    assert engine.gates.run is not None and engine.gates.run.error


def test_l2_factors_give_l2_and_l3_factors_give_l3() -> None:
    from ljtui.core.gates.model import Factors, Stats, risk

    assert risk(Factors(**L2_FACTORS), Stats()).level == 2
    assert risk(Factors(**L3_FACTORS), Stats()).level == 3
    assert TESTS_ITEM["command"].startswith("python3")


async def test_a_permission_asked_while_staged_says_it_is_for_the_staging_tree(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, approver = make_engine(repo, [*START, EDIT, {"text": "ok"}],
                                         {**USER_SAYS_YES, "permission": ["once"]})
    engine.config.agent.allow_tools = []
    assert engine.services.permissions is not None
    engine.services.permissions.policy = type(engine.services.permissions.policy)()
    await engine.run_turn("x")
    [asked] = [r for r in approver.asked if r.kind == "permission"]
    assert asked.title == "Edit app.py in the staging tree?"
    assert (repo / "app.py").read_text() == ORIGINAL and (engine.gates.staging_root() / "app.py").read_text() == FRIENDLY


async def test_exempt_is_the_users_word_delivers_with_a_warning_and_is_not_counted(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    turns = [*START, EDIT, call("gate_finish", outcome="exempt"), {"text": "ok"}]
    engine, sink, approver = make_engine(repo, turns, {**USER_SAYS_YES, "gate_exempt": ["yes"]})
    await engine.run_turn("x")
    assert "gate_exempt" in [r.kind for r in approver.asked]
    [finish] = tool_results(sink, "gate_finish")
    assert finish.ok and "delivered 1 file(s)" in finish.output and "exempted by the user" in finish.output
    assert any(getattr(e, "level", "") == "warning" and "exempted" in getattr(e, "message", "") for e in sink.events)
    assert (repo / "app.py").read_text() == FRIENDLY
    gate = engine.gates.gate(GATE)
    assert gate.stats.runs == 0 and [h.outcome for h in gate.history] == ["exempt"]


async def test_a_model_asking_for_exempt_without_the_user_gets_nothing(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, [*START, EDIT, call("gate_finish", outcome="exempt"), {"text": "ok"}],
                                  USER_SAYS_YES)
    await engine.run_turn("x")
    [finish] = tool_results(sink, "gate_finish")
    assert not finish.ok and "not exempt" in finish.output
    assert engine.gates.run is not None and engine.gates.run.outcome == ""
    assert (repo / "app.py").read_text() == ORIGINAL


async def test_an_unknown_gate_id_tells_the_model_the_gates_there_are_and_no_users_command(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    turns = [call("gate_status", gate_id="nosuch"), propose(), call("gate_confirm", gate_id="nosuch"),
             call("gate_start", gate_id="not a gate id"), {"text": "done"}]
    engine, sink, approver = make_engine(repo, turns, USER_SAYS_YES)
    await engine.run_turn("make greet friendlier")
    [status] = tool_results(sink, "gate_status")
    [confirm] = tool_results(sink, "gate_confirm")
    [start] = tool_results(sink, "gate_start")
    assert not status.ok and "there is no gate 'nosuch': this repository has no gates yet" in status.output
    assert not confirm.ok and f"there is no gate 'nosuch' (the gates here: {GATE})" in confirm.output
    assert not start.ok and "is not a gate id (give the id gate_propose returned)" in start.output
    for said in (status.output, confirm.output, start.output):
        assert "lists them" not in said and "ljtui gates" not in said  # neither the app's nor the CLI's command
    assert approver.asked == []
