"""The cyclic garbage collector as the root conftest leaves it for the tests: paused while collecting, then one
full collection, the collected heap frozen out of its sight, and the collector running again, with a full collection
after 100 collections of the middle generation (the site build's setting, docs/_ext/build_gc.py)."""

import gc


def test_the_collector_runs_during_the_tests_and_the_collected_heap_is_frozen():
    assert gc.isenabled()  # paused only while collecting: the tests' own garbage cycles are freed as usual
    # this test function was made while collecting: frozen, the collector (whose generations gc.get_objects lists)
    # no longer sees it, though it is an object the collector tracks
    me = test_the_collector_runs_during_the_tests_and_the_collected_heap_is_frozen
    assert gc.is_tracked(me) and not any(o is me for o in gc.get_objects())
    assert gc.get_freeze_count() > 0


def test_a_full_collection_comes_after_100_of_the_middle_generation():
    # Python's default thresholds are (700, 10, 10): the young two as they are, the third as the site build sets it
    assert gc.get_threshold() == (700, 10, 100)
