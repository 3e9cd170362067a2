"""Shared fixtures: the problem collection in ../shared/problems (next to the repo).

Tests that need it skip cleanly when it is absent."""
from pathlib import Path

import pytest

SHARED_PROBLEMS = Path(__file__).resolve().parents[1].parent / "shared" / "problems"


def shared_files(pattern):
    """Sorted files under shared/problems matching a glob; [] when the directory is absent
    (pytest then skips a test parametrized over them)."""
    return sorted(SHARED_PROBLEMS.glob(pattern)) if SHARED_PROBLEMS.is_dir() else []


@pytest.fixture(scope="session")
def shared_problems():
    if not SHARED_PROBLEMS.is_dir():
        pytest.skip(f"{SHARED_PROBLEMS} not found")
    return SHARED_PROBLEMS
