"""The identity-keyed caches (match/identity_cache.py): an answer is given for the very object it
was computed for, never for an equal one, and an entry keeps its object alive."""

from __future__ import annotations

import gc

from hulldown.match.identity_cache import IdentityCache, LastOne


def test_last_one_answers_only_for_the_object_it_was_given() -> None:
    cache: LastOne[dict[str, int], str] = LastOne()
    first = {"a": 1}
    equal = {"a": 1}
    assert cache.get(first) is None
    assert cache.put(first, "one") == "one"
    assert cache.get(first) == "one"
    assert cache.get(equal) is None  # equal, but another object
    cache.put(equal, "two")
    assert cache.get(equal) == "two"
    assert cache.get(first) is None  # one entry: the newer object took its place


def test_last_one_keeps_its_object_alive_so_its_id_is_not_reused() -> None:
    cache: LastOne[dict[str, int], str] = LastOne()
    cache.put({"a": 1}, "kept")
    gc.collect()
    newcomers = [{"a": 1} for _ in range(1000)]  # would reuse a freed object's address
    assert all(cache.get(n) is None for n in newcomers)


def test_identity_cache_keeps_entries_in_use_across_generations() -> None:
    cache: IdentityCache[dict[str, int], int] = IdentityCache(2)
    kept = {"k": 0}
    cache.put(kept, 0)
    others = [{"o": i} for i in range(5)]
    for i, other in enumerate(others):
        cache.put(other, i)
        assert cache.get(kept) == 0  # a hit moves it back to the young generation
    assert len(cache) <= 4
    assert cache.get({"k": 0}) is None
