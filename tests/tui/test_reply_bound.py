"""A model's reply of any size is drawn within a bound (SAFE-6): its start as it streams, its size counted
live under it, its end once it has ended, the middle folded and drawn a piece at a time on demand; a
resumed conversation's long replies the same way.
"""

from __future__ import annotations

import random
from pathlib import Path

import yaml
from textual.widgets import Markdown

from ljtui.tui.widgets.conversation import RESUMED_REPLY_CHARS, RESUMED_TAIL_CHARS, Conversation
from ljtui.tui.widgets.reply_fold import REPLY_SHOWN_CHARS, REPLY_TAIL_CHARS, REPLY_UNFOLD_CHARS, ReplyFold
from tests.tui.conftest import AppFactory, settle, until

WIDE = (120, 40)
WORDS = ("alpha", "beta", "gamma", "delta", "omega")


def prose(chars: int, seed: int = 3) -> str:
    """Paragraphs of words, ``chars`` characters long or a little more."""
    rng = random.Random(seed)
    paragraphs, size = [], 0
    while size < chars:
        paragraph = " ".join(rng.choice(WORDS) for _ in range(60))
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(paragraphs)


def drawn_chars(conv: Conversation) -> int:
    """Characters of reply text the Conversation holds in Markdown widgets."""
    return sum(len(widget.source) for widget in conv.query(Markdown))


def sources(conv: Conversation) -> list[str]:
    return [widget.source for widget in conv.children if isinstance(widget, Markdown)]


async def started(pilot) -> Conversation:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: pilot.app.started, "the start-up work")
    return pilot.app.main_screen.conversation


async def test_a_ten_megabyte_reply_draws_its_start_its_size_and_its_end_only(make_app: AppFactory) -> None:
    reply = "START " + prose(10 * 1024 * 1024) + "\n\nZZEND"
    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        before = len(conv.children)
        pieces = [reply[n:n + 256 * 1024] for n in range(0, len(reply), 256 * 1024)]
        for piece in pieces[:3]:
            await conv.append_reply(piece)
        await settle(pilot)
        fold = conv.query_one(ReplyFold)
        assert "not drawn (still arriving)" in str(fold.render())
        assert drawn_chars(conv) <= REPLY_SHOWN_CHARS
        for piece in pieces[3:]:
            await conv.append_reply(piece)
        await conv.end_reply()
        await settle(pilot)
        head, tail = sources(conv)
        assert head.startswith("START ") and len(head) <= REPLY_SHOWN_CHARS
        assert tail.endswith("ZZEND") and len(tail) <= REPLY_TAIL_CHARS
        assert fold.hidden == len(reply) - len(head) - len(tail)
        assert f"{fold.hidden:,} more characters of this reply are folded" in str(fold.render())
        assert head + reply[len(head):len(reply) - len(tail)] + tail == reply
        assert len(conv.children) == before + 3  # the start, the fold, the end: no block of the middle exists


async def test_enter_on_the_fold_draws_the_next_piece_until_the_reply_is_whole(make_app: AppFactory) -> None:
    reply = prose(REPLY_SHOWN_CHARS + REPLY_UNFOLD_CHARS + REPLY_TAIL_CHARS + 5_000)
    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        await conv.append_reply(reply)
        await conv.end_reply()
        await settle(pilot)
        fold = conv.query_one(ReplyFold)
        hidden = fold.hidden
        fold.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert 0 < fold.hidden < hidden and hidden - fold.hidden <= REPLY_UNFOLD_CHARS
        assert len(sources(conv)) == 3
        drawn = conv.query(Markdown)[1]
        assert drawn.region.y == conv.content_region.y  # the piece drawn is read from its start
        assert fold.has_focus  # the next Enter draws the next piece
        fold.scroll_visible(animate=False)
        await settle(pilot)
        await pilot.click(ReplyFold)
        await settle(pilot)
        assert not conv.query(ReplyFold)  # all of it drawn: the fold is gone
        assert "".join(sources(conv)) == reply


async def test_the_fold_counts_while_the_reply_streams_and_cannot_unfold_before_it_ends(
        make_app: AppFactory) -> None:
    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        await conv.append_reply(prose(REPLY_SHOWN_CHARS + 1_000))
        await settle(pilot)
        fold = conv.query_one(ReplyFold)
        first = fold.hidden
        await conv.append_reply("more " * 1_000)
        await until(pilot, lambda: fold.hidden == first + 5_000, "the next piece to be counted")
        assert f"{fold.hidden:,} more characters" in str(fold.render())
        fold.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert fold.hidden == first + 5_000 and len(sources(conv)) == 1


async def test_a_retried_reply_drops_its_fold_too(make_app: AppFactory) -> None:
    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        before = len(conv.children)
        await conv.append_reply(prose(REPLY_SHOWN_CHARS * 2))
        await settle(pilot)
        await conv.discard_reply()
        await settle(pilot)
        assert len(conv.children) == before and not conv.query(ReplyFold)
        await conv.append_reply("again")
        await conv.end_reply()
        await settle(pilot)
        assert sources(conv) == ["again"]


async def test_a_resumed_long_reply_is_folded(make_app: AppFactory) -> None:
    long = "FIRST " + prose(2 * 1024 * 1024) + "\n\nLAST"
    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        await conv.show_transcript([("user", "q"), ("assistant", long), ("assistant", "short")], "Resumed.")
        await settle(pilot)
        head, tail, short = sources(conv)
        assert head.startswith("FIRST ") and len(head) <= RESUMED_REPLY_CHARS
        assert tail.endswith("LAST") and len(tail) <= RESUMED_TAIL_CHARS
        assert short == "short"
        assert conv.query_one(ReplyFold).hidden == len(long) - len(head) - len(tail)


def big_reply_script(tmp_path: Path, chars: int) -> str:
    """A scripted model's one reply of ``chars`` characters in a few long words (a few stream pieces)."""
    word = "x" * 20_000
    text = " ".join([word] * (chars // len(word))) + " ZZEND"
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump({"turns": [{"text": text}]}), encoding="utf-8")
    return str(path)


async def test_a_model_s_long_reply_in_the_app_is_bounded_and_the_input_answers(make_app: AppFactory,
                                                                                 tmp_path: Path) -> None:
    app = make_app(big_reply_script(tmp_path, 600_000))
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        await pilot.press(*"/chat go", "enter")
        await until(pilot, lambda: conv.query(ReplyFold) and "folded" in str(conv.query_one(ReplyFold).render()),
                    "the reply to end, folded")
        await settle(pilot)
        assert drawn_chars(conv) <= REPLY_SHOWN_CHARS + REPLY_TAIL_CHARS
        assert sources(conv)[-1].endswith("ZZEND")
        await until(pilot, lambda: not app.bridge.busy, "the turn to end")
        await pilot.press("q")
        await settle(pilot)
        assert app.main_screen.prompt.value == "q"


async def test_text_streamed_faster_than_the_ui_draws_waits_as_one_message(make_app: AppFactory) -> None:
    from ljtui.core.events import Notice, TokenDelta
    from ljtui.tui.widgets.conversation import NoticeLine

    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        await settle(pilot)
        queued = app._message_queue.qsize()
        words = [f"w{n} " for n in range(12_000)]  # under the bound drawn live
        for word in words[:6_000]:  # no await: the UI cannot take any of it meanwhile
            app.bridge.emit(TokenDelta(1, word))
        app.bridge.emit(Notice("between"))
        for word in words[6_000:]:
            app.bridge.emit(TokenDelta(1, word))
        assert app._message_queue.qsize() - queued == 3  # the text, the notice, the text after it
        whole = "".join(words).strip()
        await until(pilot, lambda: [text.strip() for text in sources(conv)] == [whole], "every piece, in order")
        assert any(isinstance(w, NoticeLine) and "between" in str(w.render()) for w in conv.children)


async def test_tool_arguments_nested_a_hundred_thousand_deep_fail_the_call_not_the_turn(
        make_app: AppFactory, tmp_path: Path) -> None:
    import json

    from ljtui.tui.widgets.conversation import ToolCallLine

    script = tmp_path / "deep.json"
    text = json.dumps({"turns": [{"tool_calls": [{"name": "read_file", "input": {"path": "DEEP"}}]},
                                 {"text": "Those arguments were refused."}]})
    script.write_text(text.replace('"DEEP"', "[" * 100_000 + "]" * 100_000), encoding="utf-8")
    app = make_app(None, **{"provider.name": "scripted", "provider.script": str(script), "agent.routing": "chat"})
    async with app.run_test(size=WIDE) as pilot:
        conv = await started(pilot)
        await pilot.press(*"read it", "enter")
        await until(pilot, lambda: any("Those arguments were refused." in text for text in sources(conv)),
                    "the model's answer after the refused call")
        await until(pilot, lambda: not app.bridge.busy, "the turn to end")
        [line] = conv.query(ToolCallLine)
        assert line.has_class("-failed") and "✗" in line.text
        assert "working" not in str(app.main_screen.status.render())
