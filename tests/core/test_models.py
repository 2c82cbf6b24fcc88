import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from proceedings.core import models
from proceedings.core.errors import ProceedingsError
from proceedings.core.models import load_causal_lm, tiny_causal_lm


def test_smollm2_greedily_completes_the_capital_of_france_with_paris(smollm2):
    model, tokenizer = smollm2
    inputs = tokenizer("The capital of France is", return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=4, do_sample=False)
    completion = tokenizer.decode(out[0, inputs["input_ids"].shape[1]:])
    assert completion.strip().startswith("Paris"), completion


def test_second_load_reads_the_cache_and_never_the_gguf(smollm2, monkeypatch):
    def no_gguf(*_):
        raise AssertionError("the GGUF file was de-quantised again instead of read from the cache")

    monkeypatch.setattr(models, "_from_gguf", no_gguf)
    start = time.perf_counter()
    model, _ = load_causal_lm("smollm2-135m", device="cpu")
    assert time.perf_counter() - start < 30  # warm: ~2 s; a loaded 2-core machine needs the headroom
    first, _ = smollm2
    assert torch.equal(model.lm_head.weight, first.lm_head.weight)


def test_tiny_model_runs_forward_and_backward_and_is_seeded():
    model, tokenizer = tiny_causal_lm(seed=3)
    again, _ = tiny_causal_lm(seed=3)
    assert torch.equal(model.model.embed_tokens.weight, again.model.embed_tokens.weight)
    model.train()
    ids = tokenizer(["hello world", "a b c d"], return_tensors="pt", padding=True)["input_ids"]
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    assert torch.isfinite(loss)
    assert model.model.layers[0].mlp.up_proj.weight.grad.abs().sum() > 0


@pytest.mark.parametrize(
    "spec, message",
    [
        ("/no/such/model/dir", "does not exist"),
        ("./missing-model", "does not exist"),
        ("no-such-alias", "unknown model 'no-such-alias'"),
        ("/no/such/file.gguf", "GGUF file '/no/such/file.gguf' does not exist"),
    ],
)
def test_bad_model_specs_give_one_line_errors(spec, message):
    with pytest.raises(ProceedingsError, match=message) as caught:
        load_causal_lm(spec)
    assert "\n" not in str(caught.value)


def test_directory_without_config_is_named(tmp_path):
    with pytest.raises(ProceedingsError, match="has no config.json"):
        load_causal_lm(tmp_path)


def test_truncated_gguf_is_reported_as_corrupt(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "cache"))
    real = models._alias_gguf("smollm2-135m")
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(real.read_bytes()[:1_000_000])
    with pytest.raises(ProceedingsError, match="corrupt or truncated") as caught:
        load_causal_lm(broken)
    assert "\n" not in str(caught.value)
    assert not list((tmp_path / "cache" / "models").glob("broken*"))


def test_parallel_workers_on_a_cold_cache_build_the_model_once(tmp_path, monkeypatch):
    """Two workers that start together: one de-quantises, the other waits and reads its entry (a second
    build used to replace the entry under the first worker while it was loading it)."""
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "cache"))
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"not read: _from_gguf is replaced")
    builds = []

    class Saved:
        def save_pretrained(self, directory):
            (Path(directory) / f"{id(self)}.bin").write_bytes(b"w")

    def slow_build(path):
        builds.append(path)
        time.sleep(0.3)
        return Saved(), Saved()

    monkeypatch.setattr(models, "_from_gguf", slow_build)
    with ThreadPoolExecutor(2) as pool:
        entries = list(pool.map(lambda _: models.dequantized_gguf(gguf), range(2)))
    assert len(builds) == 1
    assert entries[0] == entries[1] and (entries[0] / models._COMPLETE).exists()


def test_truncated_safetensors_in_a_model_directory_is_reported(tmp_path):
    model, tokenizer = tiny_causal_lm(seed=0)
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:5000])
    with pytest.raises(ProceedingsError, match="corrupt or truncated"):
        load_causal_lm(tmp_path)


def test_uncached_hugging_face_id_fails_offline_with_one_line():
    with pytest.raises(ProceedingsError, match="cannot load model 'nobody/no-such-model'") as caught:
        load_causal_lm("nobody/no-such-model")
    assert "\n" not in str(caught.value)
