"""COD sampling, the chain attention mask and sequence partitioning (spec §2.3, §8 checks 3-5)."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.peagle.drafter import DrafterConfig, Drafter, chain_mask
from proceedings.peagle.elements import Elements, attention_area, cod_sample, parallel_elements, partition
from proceedings.peagle.target import FeatureSequence
from proceedings.peagle.training import parallel_loss


def test_cod_counts_follow_the_geometric_schedule_with_a_floor_and_nested_chains():
    kept = cod_sample(torch.ones(1001, dtype=torch.bool), 8, 0.7, 0.2, torch.Generator().manual_seed(0))
    assert [len(k) for k in kept] == [1000, 699, 489, 341, 239, 199, 198, 198]
    for depth in range(1, 8):  # every depth-d element's whole chain exists
        assert set(kept[depth].tolist()) <= set(kept[depth - 1].tolist())
        assert int(kept[depth].max()) + 1 + depth <= 1000


def test_cod_takes_the_whole_pool_when_it_is_smaller_than_the_schedule():
    kept = cod_sample(torch.ones(6, dtype=torch.bool), 4, 1.0, 1.0, torch.Generator().manual_seed(0))
    assert [len(k) for k in kept] == [5, 4, 3, 2]
    with pytest.raises(ProceedingsError, match="COD sampling"):
        cod_sample(torch.ones(6, dtype=torch.bool), 0)


def test_the_mask_of_the_six_token_example_matches_the_rule_element_by_element():
    kept = [torch.arange(6), torch.tensor([0, 1, 3, 4]), torch.tensor([0, 3]), torch.tensor([0])]
    el = parallel_elements(kept, 7)  # anchors 0..5 at depth 0
    pairs = list(zip(el.anchors.tolist(), el.depths.tolist()))
    assert pairs == [(a, 0) for a in range(6)] + [(0, 1), (1, 1), (3, 1), (4, 1), (0, 2), (3, 2), (0, 3)]
    mask = el.mask()
    for i, (aq, dq) in enumerate(pairs):
        for j, (ak, dk) in enumerate(pairs):
            assert bool(mask[i, j]) == ((dk == 0 and ak <= aq) or (ak == aq and dk <= dq)), (pairs[i], pairs[j])
    sees = lambda q: {pairs[j] for j in range(len(pairs)) if mask[pairs.index(q), j]}  # noqa: E731
    assert sees((3, 2)) == {(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (3, 2)}
    assert sees((0, 3)) == {(0, 0), (0, 1), (0, 2), (0, 3)}
    assert sees((4, 0)) == {(a, 0) for a in range(5)}  # depth 0 never sees a mask position
    assert el.positions.tolist() == [0, 1, 2, 3, 4, 5, 1, 2, 4, 5, 2, 5, 3]


def random_sequence(length: int, hidden: int, vocab: int, seed: int) -> FeatureSequence:
    g = torch.Generator().manual_seed(seed)
    return FeatureSequence(torch.randint(0, vocab, (length,), generator=g), 1,
                           torch.randn(length, 3 * hidden, generator=g).half(), torch.randn(length, hidden, generator=g).half(),
                           torch.randint(0, vocab, (length,), generator=g))


def test_four_segments_give_the_one_segment_gradient_at_a_quarter_of_the_attention_area():
    hidden, vocab = 32, 40
    cfg = DrafterConfig("peagle", hidden, 4, 64, 2, (1, 2, 3), vocab, vocab, k_train=8)
    torch.manual_seed(0)
    drafter = Drafter(cfg, torch.randn(vocab, hidden), torch.randn(vocab, hidden), torch.arange(vocab))
    seq = random_sequence(160, hidden, vocab, 1)
    kept = cod_sample(torch.ones(160, dtype=torch.bool), 8, 0.7, 0.2, torch.Generator().manual_seed(2))
    elements = parallel_elements(kept, 160)
    grads, losses = [], []
    for segments in (1, 4):
        drafter.zero_grad()
        parts = partition(elements, segments)
        total = sum(parallel_loss(drafter, seq, part) for part in parts)
        for part in parts:
            parallel_loss(drafter, seq, part).backward()
        losses.append(float(total.detach()))
        grads.append(torch.cat([p.grad.flatten() for p in drafter.trainable_parameters()]))
    assert abs(losses[0] - losses[1]) < 1e-5
    assert float((grads[0] - grads[1]).abs().max()) < 1e-5
    assert attention_area(partition(elements, 4)) <= 0.5 * attention_area(partition(elements, 1))
    weights = sum(float(p.weights.sum()) for p in partition(elements, 4))
    assert abs(weights - 1.0) < 1e-6  # per-depth means averaged over depths: the weights sum to one


def test_partition_keeps_the_prefix_as_weightless_context():
    el = Elements(torch.tensor([0, 1, 2, 3, 1, 3]), torch.tensor([0, 0, 0, 0, 1, 1]), torch.ones(6))
    second = partition(el, 2)[1]
    assert list(zip(second.anchors.tolist(), second.depths.tolist(), second.weights.tolist())) == \
        [(0, 0, 0.0), (1, 0, 0.0), (2, 0, 1.0), (3, 0, 1.0), (3, 1, 1.0)]
    assert chain_mask(second.anchors, second.depths, second.anchors, second.depths).shape == (5, 5)
    with pytest.raises(ProceedingsError, match="at least 1"):
        partition(el, 0)
