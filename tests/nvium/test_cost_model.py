"""The cost model: the chunk schedule worked by hand, and the price of a schedule."""

import pytest

from proceedings.nvium.cost_model import ChunkCosts, predict_seconds, simulate_chunks

EXITS, LAYERS = (1, 2, 3, 4), 4


def test_two_early_exits_are_caught_up_in_one_chunk_by_a_deep_token():
    # tokens 1 and 2 stop after layer 1; token 3 climbs to layer 4 carrying both of them along
    assert simulate_chunks([0, 0, 3], EXITS, LAYERS, max_pending=16) == {1: 3, 3: 3}


def test_the_final_flush_completes_every_layer():
    # one token stopping at layer 1: layer 1 runs it, the flush runs layers 2-4 on it
    assert simulate_chunks([0], EXITS, LAYERS, max_pending=16) == {1: 4}


def test_a_full_pending_chunk_is_flushed_at_once():
    calls = simulate_chunks([0] * 5, EXITS, LAYERS, max_pending=2)
    assert sum(n * c for n, c in calls.items()) == 5 * LAYERS  # every position through every layer once
    assert max(calls) == 3  # flushed as soon as a chunk exceeded 2


def test_prediction_prices_layers_gates_heads_and_embeddings():
    costs = ChunkCosts(layer_s={1: 1.0, 2: 1.5, 3: 2.0}, gate_s=0.1, head_s=0.2, embed_s=0.05, bulk_s=0.25)
    full_depth = predict_seconds([3, 3], EXITS, LAYERS, 16, costs)
    assert full_depth == pytest.approx(2 * (4 * 1.0 + 3 * 0.1 + 0.2 + 0.05))
    deferred = predict_seconds([0, 0, 3], EXITS, LAYERS, 16, costs)
    assert deferred == pytest.approx(3 * 1.0 + 3 * 2.0 + (1 + 1 + 3) * 0.1 + 3 * (0.2 + 0.05))
    assert costs.layer(5) == pytest.approx(3.0)  # linear beyond the measured sizes
    assert costs.overhead_share == pytest.approx(0.75)  # a quarter of a one-position call is arithmetic
