"""The shared decoding benchmark measures what decoders take, side by side, and checks exactness."""

import time

import pytest

from proceedings.core.bench import DecodeTrace, decoder, measure_forward_costs, run_benchmark
from proceedings.core.errors import ProceedingsError


def sleeper(name: str, seconds_per_token: float, calls: list | None = None, reference: str | None = None,
            clock=None):
    """A decoder that takes a known time per token (on `clock` when given, else really sleeping) and
    emits tokens derived from the prompt."""
    def decode(prompt, n, seed):
        if calls is not None:
            calls.append(name)
        times = []
        for _ in range(n):
            if clock is None:
                start = time.perf_counter()
                time.sleep(seconds_per_token)
                times.append(time.perf_counter() - start)
            else:
                clock.now += seconds_per_token
                times.append(seconds_per_token)
        return DecodeTrace(tokens=[prompt[0]] * n, token_seconds=times, total_seconds=sum(times), extras={"seed": seed})
    return decoder(name, decode, reference)


def test_speedup_latency_and_seeds_of_each_decoder(tmp_path, monkeypatch):
    from proceedings.core import bench

    fake = _Clock()  # a busy host cannot blur a 2x speed-up measured on this clock
    monkeypatch.setattr(bench.time, "perf_counter", fake)
    report = run_benchmark([sleeper("slow", 0.004, clock=fake), sleeper("fast", 0.002, clock=fake)],
                           [[1], [2], [3]], 5, seed=10)
    assert report.reference == "slow" and report.arms["fast"].tokens == 15
    for clock in ("median", "min"):
        assert report.speedup("fast", clock) == pytest.approx(2.0)
    assert report.latency_reduction("fast") == pytest.approx(0.5)
    assert report.arms["slow"].latency_ms_p50 >= 4.0
    assert [t.extras["seed"] for t in report.arms["fast"].traces] == [10, 11, 12]  # one seed per prompt
    json_path, md = report.write(tmp_path)
    assert '"speedup"' in json_path.read_text() and "| fast |" in md.read_text()


def test_arms_take_turns_in_rotated_order_and_repeats_keep_the_fastest_and_median():
    calls = []
    arms = [sleeper(name, 0.0005, calls) for name in ("a", "b", "c")]
    report = run_benchmark(arms, [[1], [2], [3]], 2, repeats=2, warmup=False)
    assert calls[:9] == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert len(calls) == 18 and report.repeats == 2
    a = report.arms["a"]
    assert a.wall_min_s <= a.wall_median_s and a.cpu_s >= 0 and a.tokens == 6  # tokens of one repeat


def test_a_stopped_benchmark_resumes_from_its_checkpoint_after_the_last_whole_prompt(tmp_path):
    calls, path = [], tmp_path / "bench.pt"
    crashing = sleeper("b", 0.0, calls)

    def stop_at_the_ninth_call(prompt, n, seed):  # b on the third prompt
        if len(calls) == 8:
            raise KeyboardInterrupt
        return crashing.decode(prompt, n, seed)

    arms = [sleeper("a", 0.0, calls), decoder("b", stop_at_the_ninth_call), sleeper("c", 0.0, calls)]
    with pytest.raises(KeyboardInterrupt):
        run_benchmark(arms, [[1], [2], [3]], 2, repeats=2, warmup=False, checkpoint=path)
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a"]  # prompts 1 and 2 of repeat 1 saved
    calls.clear()
    report = run_benchmark([sleeper(name, 0.0, calls) for name in "abc"], [[1], [2], [3]], 2, repeats=2,
                           warmup=False, checkpoint=path)
    assert calls == ["c", "a", "b", "a", "b", "c", "b", "c", "a", "c", "a", "b"]  # the rotation goes on
    assert report.resumed_at == 2 and report.arms["a"].tokens == 6 and report.arms["c"].exact_prompts == 3
    with pytest.raises(ProceedingsError, match="belongs to another benchmark"):
        run_benchmark([sleeper(name, 0.0) for name in "ab"], [[1], [2], [3]], 2, repeats=2, warmup=False,
                      checkpoint=path)


def test_exact_match_is_counted_against_the_reference_decoder():
    def shifted(prompt, n, seed):  # right on the first prompt only
        return DecodeTrace([prompt[0] + (prompt[0] > 1)] * n, [0.001] * n, 0.001 * n)

    report = run_benchmark([sleeper("ref", 0.0), decoder("other", shifted), sleeper("own", 0.0, reference="other")],
                           [[1], [2], [3]], 4, warmup=False)
    assert report.arms["ref"].exact and report.arms["ref"].exact_prompts == 3
    assert report.arms["other"].exact_prompts == 1 and not report.arms["other"].exact
    assert report.arms["own"].reference == "other" and report.arms["own"].exact_prompts == 1
    assert "1/3 (ref)" in report.markdown()


def test_extra_columns_come_from_each_arms_traces():
    report = run_benchmark([sleeper("x", 0.0)], [[5]], 3, warmup=False)
    table = report.markdown({"first token": lambda arm: str(arm.traces[0].tokens[0])})
    assert "first token" in table.splitlines()[0] and table.splitlines()[2].endswith("| 5 |")


def test_bad_requests_are_one_line_errors():
    with pytest.raises(ProceedingsError, match="at least one prompt"):
        run_benchmark([sleeper("x", 0.0)], [], 3)
    with pytest.raises(ProceedingsError, match="distinct"):
        run_benchmark([sleeper("x", 0.0), sleeper("x", 0.0)], [[1]], 3)
    with pytest.raises(ProceedingsError, match="not in this benchmark"):
        run_benchmark([sleeper("x", 0.0, reference="y")], [[1]], 3)


class _Clock:
    """A fake perf_counter that only the stand-in model advances: timing without a noisy host."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class _CostlyForward:
    """A stand-in causal LM whose forward over k new tokens takes 1 + k units of the fake clock."""

    class config:
        vocab_size = 100

    def __init__(self, clock):
        import torch

        self.clock, self.weight = clock, torch.zeros(1)

    def parameters(self):
        return iter([self.weight])

    def __call__(self, ids, cache, use_cache):
        self.clock.now += 1 + ids.shape[1]


def test_forward_costs_time_k_new_tokens_relative_to_one(monkeypatch):
    from proceedings.core import bench

    clock = _Clock()
    monkeypatch.setattr(bench.time, "perf_counter", clock)
    costs = measure_forward_costs(_CostlyForward(clock), ks=(4, 8), context=16, repeats=3)
    assert costs.seconds == {1: 2, 4: 5, 8: 9} and costs.context == 16
    assert costs.ratios() == {1: 1.0, 4: 2.5, 8: 4.5}


def test_forward_costs_on_a_real_model_start_every_forward_from_the_same_cache():
    from transformers import LlamaConfig, LlamaForCausalLM

    model = LlamaForCausalLM(LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                         num_attention_heads=4, num_key_value_heads=2)).eval()
    seen = []
    model.register_forward_pre_hook(lambda m, args, kwargs: seen.append(kwargs["cache"].get_seq_length()),
                                    with_kwargs=True)
    costs = measure_forward_costs(model, ks=(1, 2, 4), context=12, repeats=2)
    assert sorted(costs.ratios()) == [1, 2, 4] and all(s > 0 for s in costs.seconds.values())
    assert seen[0] == 0 and set(seen[1:]) == {12}  # prefill, then every timed forward on exactly the context
