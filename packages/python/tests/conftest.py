"""Shared fixtures. Integration tests (marked `integration`) run against a live server named by
MEDIA_API_BASE_URL and MEDIA_API_KEY, and are skipped when those are not set."""

import os
import sys
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PACKAGE_DIR))


def pytest_configure(config):
    config.addinivalue_line("markers", "integration: needs a running server (MEDIA_API_BASE_URL, MEDIA_API_KEY)")


@pytest.fixture(scope="session")
def server():
    base = os.environ.get("MEDIA_API_BASE_URL")
    key = os.environ.get("MEDIA_API_KEY")
    if not base or not key:
        pytest.skip("MEDIA_API_BASE_URL and MEDIA_API_KEY are not set: no server to test against")
    return {"base": base, "key": key}
