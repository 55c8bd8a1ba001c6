"""The driver's layout of a stretch's records (per_trace_pool._layout), which visits only the odd keys (crossing
a stretch's edge, or whose record failed), against the plain rule written out key by key (issue 11)."""

from __future__ import annotations

import random
from array import array

import pytest

from toolscore_export import per_trace_pool as pool


def _reference(keys, lengths, low, high, crossing, bounds):
    """The rule a key at a time: a crossing trace ending after the stretch is skipped; a whole trace with a
    record is its bytes; the rest (crossing traces ending here, failed records) are the job's, in order."""
    ending, pieces, wanted, at = [], [], [], 0
    for key, length in zip(keys, lengths, strict=True):
        if key in crossing and not low <= bounds[key] & 0xFFFFFFFF < high:
            pass
        elif length and key not in crossing:
            ending.append(key)
            pieces.append(("built", at, at + length))
        else:
            ending.append(key)
            pieces.append(("job", key))
            wanted.append(key)
        at += length
    return ending, pieces, wanted


def _resolved(places, wanted, data):
    """The bytes the layout's places take, each job's record marked by its key in its place."""
    jobs = iter(wanted)
    return b"".join(b"|" + next(jobs).encode() if place is None else data[place[0]:place[1]] for place in places)


def _case(rng: random.Random):
    count = rng.randint(0, 40)
    keys = [f"k{i}" for i in range(count)]
    lengths = array("Q", [0 if rng.random() < rng.choice([0, 0.1, 0.5]) else rng.randint(1, 9) for _ in keys])
    low, high = 10, 20
    crossing, bounds = set(), {}
    for key in keys:
        if rng.random() < rng.choice([0, 0.05, 0.3, 1]):
            crossing.add(key)
        bounds[key] = rng.randint(0, 5) << 32 | rng.choice([rng.randint(low, high - 1), rng.randint(high, 30)])
    crossing.add("elsewhere")  # a crossing trace of other stretches
    bounds["elsewhere"] = 1 << 32 | 2
    return keys, lengths, low, high, crossing, bounds


@pytest.mark.parametrize("seed", range(400))
def test_the_layout_is_the_key_by_key_rule(seed):
    rng = random.Random(seed)
    keys, lengths, low, high, crossing, bounds = _case(rng)
    lines = pool._Lines(bounds=bounds, crossing=crossing)
    data = bytes(rng.randrange(256) for _ in range(sum(lengths)))
    ending, pieces, wanted = _reference(keys, lengths, low, high, crossing, bounds)
    layout = pool._layout(keys, lengths, low, high, lines)
    if layout is None:  # only when every trace of the stretch is whole and built
        assert ending == keys and not wanted and all(piece[0] == "built" for piece in pieces)
        return
    expected = b"".join(data[p[1]:p[2]] if p[0] == "built" else b"|" + p[1].encode() for p in pieces)
    assert layout[0] == ending
    assert layout[2] == wanted
    assert _resolved(layout[1], layout[2], data) == expected
    assert all(place is None or place[0] < place[1] for place in layout[1])  # no empty slice
    built = [piece for piece in pieces if piece[0] == "built"]
    counts = [place[2] for place in layout[1] if place is not None]
    assert sum(counts) == len(built)  # each slice's count is its records'
    assert [sum(p[2] - p[1] for p in built[sum(counts[:i]):sum(counts[:i + 1])]) for i in range(len(counts))] == [
        place[1] - place[0] for place in layout[1] if place is not None]


def test_the_cases_take_every_way():
    """Not vacuous: crossing keys that end here and later, failed records, and both on one key."""
    both = skipped = failed = 0
    for seed in range(400):
        keys, lengths, low, high, crossing, bounds = _case(random.Random(seed))
        for key, length in zip(keys, lengths, strict=True):
            later = key in crossing and not low <= bounds[key] & 0xFFFFFFFF < high
            both += key in crossing and not length and not later
            skipped += later
            failed += not length and key not in crossing
    assert both > 20 and skipped > 100 and failed > 100
