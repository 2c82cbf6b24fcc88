"""Property-based tests for HeapDict 1.0.1 (heapdict-priorities)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from heapdict import heapdict


def prop_priority_changes_keep_pop_order(items: list[tuple[int, int]], changes: list[tuple[int, int]]) -> None:
    """After priorities of existing keys change (up or down), popitem() yields priorities in ascending order."""
    queue, model = heapdict(), {}
    for key, priority in dict(items).items():
        queue[key] = priority
        model[key] = priority
    for key, priority in changes:
        if key in model:
            queue[key] = priority
            model[key] = priority
    popped = [queue.popitem() for _ in range(len(queue))]
    assert [p for _, p in popped] == sorted(model.values()), popped
    assert dict(popped) == model



