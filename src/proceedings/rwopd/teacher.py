"""Building and caching the teacher and the warm-started student (spec §5: built once, timed apart).

The teacher is the configured model (SmolLM2-135M-Instruct at small scale) fine-tuned on generated
NL/SVA pairs; the student is the base model cut to its first layers and warm-started with a short
SFT. Both are saved with `save_pretrained` under `cache_root()/rwopd/<key>` and reused; the build
time is written beside them so the experiment can report it separately from the arms.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path

from proceedings.core.models import cache_root, load_causal_lm, tiny_causal_lm
from proceedings.core.runtime import atomic_write_text, seed_everything
from proceedings.rwopd.distill import supervised_finetune
from proceedings.rwopd.grammar import generate_pairs
from proceedings.rwopd.policy import truncated_student

log = logging.getLogger(__name__)


def base_model(spec: str, seed: int):
    """A real model by alias/path/id, or `tiny:<hidden>x<layers>` for a random micro-Llama."""
    if spec.startswith("tiny:"):
        hidden, layers = (int(x) for x in spec[5:].split("x"))
        return tiny_causal_lm(seed=seed, hidden_size=hidden, num_layers=layers, num_heads=4, num_kv_heads=2,
                              intermediate_size=2 * hidden)
    return load_causal_lm(spec, device="auto")


def prepared_models(cfg, seed: int = 0, progress: bool = False, rebuild: bool = False, device: str = "auto"):
    """(teacher, student, tokenizer, build_info) from the cache, building them when absent."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from proceedings.core.runtime import choose_device, choose_dtype

    key = f"{cfg.model.replace('/', '_').replace(':', '-')}-t{cfg.teacher_steps}x{cfg.teacher_batch}" \
          f"-s{cfg.student_layers}L{cfg.student_warm_steps}-n{cfg.train_pairs}-seed{seed}"
    folder = cache_root() / "rwopd" / key
    if rebuild:
        shutil.rmtree(folder, ignore_errors=True)
    if not (folder / "build.json").exists():
        _build(cfg, seed, folder, progress)
    info = json.loads((folder / "build.json").read_text())
    tokenizer = AutoTokenizer.from_pretrained(folder / "teacher")
    target = choose_device(device)
    dtype = choose_dtype("auto", target)  # float32 on CPU, bfloat16 on a GPU
    teacher = AutoModelForCausalLM.from_pretrained(folder / "teacher", dtype=dtype).to(target).eval()
    student = AutoModelForCausalLM.from_pretrained(folder / "student", dtype=dtype).to(target).eval()
    info["cached_at"] = str(folder)
    return teacher, student, tokenizer, info


def _build(cfg, seed: int, folder: Path, progress: bool) -> None:
    import torch

    seed_everything(seed)
    pairs = generate_pairs(cfg.train_pairs, seed=seed + 1000, prefix="train")
    began, cpu0 = time.perf_counter(), time.process_time()
    model, tokenizer = base_model(cfg.model, seed)
    student = truncated_student(model, cfg.student_layers)  # cut from the base model, before fine-tuning
    teacher_losses = supervised_finetune(model, tokenizer, pairs, cfg.teacher_steps, cfg.teacher_batch,
                                         cfg.teacher_lr, seed, progress, desc="teacher")
    teacher_s = time.perf_counter() - began
    student_losses = supervised_finetune(student, tokenizer, pairs, cfg.student_warm_steps, cfg.teacher_batch,
                                         cfg.student_lr, seed + 1, progress, desc="student warm-up")
    staging = folder.with_name(folder.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    for name, net in (("teacher", model), ("student", student)):
        net.save_pretrained(staging / name)
        tokenizer.save_pretrained(staging / name)
    info = {"teacher_build_s": round(teacher_s, 1), "student_warmup_s": round(time.perf_counter() - began - teacher_s, 1),
            "build_cpu_s": round(time.process_time() - cpu0, 1), "teacher_final_loss": teacher_losses[-1],
            "student_final_loss": student_losses[-1], "torch_threads": torch.get_num_threads()}
    atomic_write_text(staging / "build.json", json.dumps(info, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)
    log.info("teacher and student cached in %s (%s)", folder, info)
