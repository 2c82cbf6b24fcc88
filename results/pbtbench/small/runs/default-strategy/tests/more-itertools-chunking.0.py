"""Property-based tests for more-itertools 11.2.1 (more-itertools-chunking)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from hypothesis import assume
from more_itertools import chunked_even, interleave_evenly


def prop_chunked_even(length: int, n: int) -> None:
    """Chunks cover the input in order, differ by at most one, are at most n long, and are as few as possible."""
    assume(not (not 0 <= length <= 5000 or not 1 <= n <= 200))
    chunks = list(chunked_even(iter(range(length)), n))
    assert [x for c in chunks for x in c] == list(range(length))
    assert len(chunks) == -(-length // n)
    if chunks:
        sizes = [len(c) for c in chunks]
        assert max(sizes) <= n and max(sizes) - min(sizes) <= 1, sizes


def prop_interleave_evenly(lengths: list[int]) -> None:
    """Every item appears once and each source keeps its order."""
    assume(not (not lengths or len(lengths) > 6 or any(not 0 < k <= 200 for k in lengths)))
    sources = [[(i, j) for j in range(k)] for i, k in enumerate(lengths)]
    out = list(interleave_evenly(sources))
    assert sorted(out) == sorted(x for s in sources for x in s)
    for i in range(len(sources)):
        assert [x for x in out if x[0] == i] == sources[i]



