"""Loopback fakes of the model APIs, for tests that go through the real SDKs.

Use :class:`~tests.fakes.server.FakeSSEServer` as a context manager, or the
fixtures in :mod:`tests.fakes.fixtures` (import them into a ``conftest.py``).
"""

from tests.fakes.server import FakeSSEServer, RecordedRequest, Reply, SSE

__all__ = ["FakeSSEServer", "RecordedRequest", "Reply", "SSE"]
