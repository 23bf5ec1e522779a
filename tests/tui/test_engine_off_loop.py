"""The engine is built off the event loop after the first frame, and keys typed meanwhile are handled."""

from __future__ import annotations

import threading

from tests.tui.conftest import AppFactory, until


async def test_the_engine_is_built_in_a_thread_after_the_first_frame(make_app: AppFactory, monkeypatch) -> None:
    app = make_app()
    built_in: list[threading.Thread] = []
    build = app._new_engine

    def recorded():  # type: ignore[no-untyped-def]
        built_in.append(threading.current_thread())
        return build()

    monkeypatch.setattr(app, "_new_engine", recorded)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"typed early")
        await until(pilot, lambda: app.started, "the start-up work")
        assert len(built_in) == 1 and built_in[0] is not threading.main_thread()
        assert app.main_screen.prompt.value == "typed early"


async def test_the_engine_asked_for_while_the_thread_builds_it_is_the_one_it_builds(make_app: AppFactory,
                                                                                    monkeypatch) -> None:
    app = make_app()
    release = threading.Event()
    build = app._new_engine
    made = []

    def slow():  # type: ignore[no-untyped-def]
        release.wait(10)
        made.append(build())
        return made[-1]

    monkeypatch.setattr(app, "_new_engine", slow)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.engines.building is not None, "the thread to start")
        threading.Timer(0.2, release.set).start()
        engine = app.engine  # waits for the thread instead of building a second one
        await until(pilot, lambda: app.started, "the start-up work")
        assert made == [engine] and app.engine is engine
