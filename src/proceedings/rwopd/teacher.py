"""Building and caching the teacher and the warm-started student (spec §5: built once, timed apart).

The teacher is the configured model (SmolLM2-135M-Instruct at small scale) fine-tuned on generated
NL/SVA pairs for at least one epoch. The student is the base model at full depth (or, with
`student_layers`, cut to its first layers) warm-started with a short SFT on the same pairs, so that
every arm starts from one student that can already write some correct SVA (the paper's setting: an
instruct coder improved on-policy). `student_init="teacher"` starts the student from the
fine-tuned teacher (DistilBERT-style layer initialisation), `"base"` from the base model.

Teacher and student are cached separately under `cache_root()/rwopd/` (`save_pretrained` + a
`build.json` with wall and CPU seconds), so a new student preset reuses an expensive teacher.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root, load_causal_lm, tiny_causal_lm
from proceedings.core.runtime import atomic_write_text, seed_everything
from proceedings.rwopd.distill import supervised_finetune
from proceedings.rwopd.grammar import generate_pairs
from proceedings.rwopd.policy import truncated_student

log = logging.getLogger(__name__)
STUDENT_INITS = ("teacher", "base")


def base_model(spec: str, seed: int):
    """A real model by alias/path/id, or `tiny:<hidden>x<layers>` for a random micro-Llama."""
    if spec.startswith("tiny:"):
        hidden, layers = (int(x) for x in spec[5:].split("x"))
        return tiny_causal_lm(seed=seed, hidden_size=hidden, num_layers=layers, num_heads=4, num_kv_heads=2,
                              intermediate_size=2 * hidden)
    return load_causal_lm(spec, device="auto")


def _model_key(cfg) -> str:
    return cfg.model.replace("/", "_").replace(":", "-")


def teacher_key(cfg, seed: int) -> str:
    """Cache folder name of the teacher: every setting its weights depend on, and nothing else."""
    return f"teacher-{_model_key(cfg)}-t{cfg.teacher_steps}x{cfg.teacher_batch}-lr{cfg.teacher_lr:g}-n{cfg.train_pairs}-seed{seed}"


def student_key(cfg, seed: int) -> str:
    """Cache folder name of the warm student: its own settings plus the weights it is cut from."""
    source = teacher_key(cfg, seed) if cfg.student_init == "teacher" else f"base-{_model_key(cfg)}"
    return (f"student-{cfg.student_layers or 'full'}L-w{cfg.student_warm_steps}x{cfg.teacher_batch}-lr{cfg.student_lr:g}"
            f"-n{cfg.train_pairs}-seed{seed}-of-{source}")


def prepared_models(cfg, seed: int = 0, progress: bool = False, rebuild: bool = False, device: str = "auto"):
    """(teacher, student, tokenizer, build_info) from the cache, building what is absent."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from proceedings.core.runtime import choose_device, choose_dtype

    if cfg.student_init not in STUDENT_INITS:
        raise ProceedingsError(f"unknown student_init '{cfg.student_init}'; choose one of: {', '.join(STUDENT_INITS)}")
    teacher_dir = cache_root() / "rwopd" / teacher_key(cfg, seed)
    student_dir = cache_root() / "rwopd" / student_key(cfg, seed)
    if rebuild:
        shutil.rmtree(teacher_dir, ignore_errors=True)
        shutil.rmtree(student_dir, ignore_errors=True)
    if not (teacher_dir / "build.json").exists():
        _build_teacher(cfg, seed, teacher_dir, progress)
    if not (student_dir / "build.json").exists():
        _build_student(cfg, seed, teacher_dir, student_dir, progress)
    teacher_info = json.loads((teacher_dir / "build.json").read_text())
    student_info = json.loads((student_dir / "build.json").read_text())
    tokenizer = AutoTokenizer.from_pretrained(teacher_dir)
    target = choose_device(device)
    dtype = choose_dtype("auto", target)  # float32 on CPU, bfloat16 on a GPU
    teacher = AutoModelForCausalLM.from_pretrained(teacher_dir, dtype=dtype).to(target).eval()
    student = AutoModelForCausalLM.from_pretrained(student_dir, dtype=dtype).to(target).eval()
    info = {"teacher_build_s": teacher_info["wall_s"], "teacher_build_cpu_s": teacher_info["cpu_s"],
            "teacher_final_loss": teacher_info["final_loss"], "student_warmup_s": student_info["wall_s"],
            "student_warmup_cpu_s": student_info["cpu_s"], "student_final_loss": student_info["final_loss"],
            "torch_threads": teacher_info["torch_threads"], "teacher_cached_at": str(teacher_dir),
            "student_cached_at": str(student_dir)}
    return teacher, student, tokenizer, info


def _train_pairs(cfg, seed: int):
    return generate_pairs(cfg.train_pairs, seed=seed + 1000, prefix="train")


def _build_teacher(cfg, seed: int, folder: Path, progress: bool) -> None:
    seed_everything(seed)
    began, cpu0 = time.perf_counter(), time.process_time()
    model, tokenizer = base_model(cfg.model, seed)
    losses = supervised_finetune(model, tokenizer, _train_pairs(cfg, seed), cfg.teacher_steps, cfg.teacher_batch,
                                 cfg.teacher_lr, seed, progress, desc="teacher")
    _save(folder, model, tokenizer, losses, began, cpu0)


def _build_student(cfg, seed: int, teacher_dir: Path, folder: Path, progress: bool) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    seed_everything(seed + 1)
    began, cpu0 = time.perf_counter(), time.process_time()
    if cfg.student_init == "teacher":
        source, tokenizer = AutoModelForCausalLM.from_pretrained(teacher_dir), AutoTokenizer.from_pretrained(teacher_dir)
    else:
        source, tokenizer = base_model(cfg.model, seed)
    student = source if cfg.student_layers is None else truncated_student(source, cfg.student_layers)
    losses = supervised_finetune(student, tokenizer, _train_pairs(cfg, seed), cfg.student_warm_steps,
                                 cfg.teacher_batch, cfg.student_lr, seed + 1, progress, desc="student warm-up")
    _save(folder, student, tokenizer, losses, began, cpu0)


def _save(folder: Path, model, tokenizer, losses: list[float], began: float, cpu0: float) -> None:
    """save_pretrained into a staging folder, then rename: a cache entry is whole or absent."""
    import torch

    info = {"wall_s": round(time.perf_counter() - began, 1), "cpu_s": round(time.process_time() - cpu0, 1),
            "final_loss": losses[-1] if losses else float("nan"), "losses": losses,
            "torch_threads": torch.get_num_threads()}
    staging = folder.with_name(folder.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    atomic_write_text(staging / "build.json", json.dumps(info, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)
    log.info("cached %s (%.1f s wall, %.1f CPU-s, final loss %.4f)", folder.name, info["wall_s"], info["cpu_s"],
             info["final_loss"])
