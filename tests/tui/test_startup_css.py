"""Each CSS source is parsed once at start, and again for each theme change."""

from __future__ import annotations

from collections import Counter

import pytest
import textual.css.stylesheet as stylesheet_module

from tests.tui.conftest import AppFactory, until

MAIN_TCSS = "main.tcss"


async def test_start_parses_each_css_source_once_and_a_theme_change_parses_them_again(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: Counter[tuple[str, ...]] = Counter()
    parse = stylesheet_module.parse

    def counted(scope, css, read_from, **kwargs):  # type: ignore[no-untyped-def]
        parsed[(*read_from, scope, str(kwargs.get("is_default_rules")), str(kwargs.get("tie_breaker")))] += 1
        return parse(scope, css, read_from, **kwargs)

    monkeypatch.setattr(stylesheet_module, "parse", counted)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main_tcss = [source for source in parsed if source[0].endswith(MAIN_TCSS)]
        assert len(main_tcss) == 1, parsed
        assert parsed[main_tcss[0]] == 1
        twice = {source: n for source, n in parsed.items() if n > 1}
        assert not twice, f"parsed more than once on the way to the first frame: {twice}"

        before = app.main_screen.styles.background
        app.choose_theme("light")
        await until(pilot, lambda: app.main_screen.styles.background != before, "the light theme")
        assert parsed[main_tcss[0]] == 2
