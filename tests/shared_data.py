"""Rows of the problem collections in ../shared/problems (skip cleanly when absent)."""
import random

import pytest

from conftest import SHARED_PROBLEMS


def rows(name, limit=None, seed=5):
    """The tab-separated rows of a shared .tsv file (header and blank lines skipped);
    a fixed-seed sample of `limit` rows when given."""
    path = SHARED_PROBLEMS / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    found = [line.rstrip("\n").split("\t") for line in path.open(encoding="utf-8")
             if line.strip() and not line.startswith("#")]
    if limit is not None and len(found) > limit:
        found = random.Random(seed).sample(found, limit)
    return found
