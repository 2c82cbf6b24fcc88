"""The benchmark harness measures what decoders really take, side by side."""

import time

import pytest

from proceedings.nvium.harness import DecodeTrace, run_benchmark


def sleeper(seconds_per_token: float):
    def decode(prompt, n, seed):
        times = []
        for _ in range(n):
            start = time.perf_counter()
            time.sleep(seconds_per_token)
            times.append(time.perf_counter() - start)
        return DecodeTrace(tokens=[seed] * n, token_seconds=times, total_seconds=sum(times), extras={"seed": seed})
    return decode


def test_harness_reports_speedup_and_latency_of_each_decoder(tmp_path):
    report = run_benchmark({"slow": sleeper(0.004), "fast": sleeper(0.002)}, [[1], [2], [3]], 5, seed=10)
    assert report.reference == "slow" and report.stats["fast"].tokens == 15
    assert report.speedup("fast") == pytest.approx(2.0, rel=0.3)
    assert report.latency_reduction("fast") == pytest.approx(0.5, abs=0.15)
    assert report.stats["slow"].latency_ms_p50 >= 4.0
    assert [t.extras["seed"] for t in report.stats["fast"].traces] == [10, 11, 12]  # one seed per prompt
    jsonl, md = report.write(tmp_path)
    assert jsonl.read_text().count("\n") == 2 and "| fast |" in md.read_text()
