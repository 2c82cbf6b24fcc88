"""Writing and reading released model directories: standard Hugging Face layout, never a key.

Every directory this system writes (a trained model, an attacked copy) is `save_pretrained`
safetensors + tokenizer + `manifest.json` saying how it was made.  Writing is staged in a sibling
temporary folder and moved into place, so an interrupted write never leaves half a model.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from proceedings.core.errors import ProceedingsError

MANIFEST = "manifest.json"


def save_model_dir(model, tokenizer, directory: Path | str, manifest: dict) -> Path:
    """Write a released model directory atomically; refuse a target that holds a watermark key."""
    directory = Path(directory)
    if (directory / "key").exists() or (directory / "key.json").exists():
        raise ProceedingsError(f"'{directory}' contains a watermark key; a released model must never carry "
                               "its key. Choose another output directory")
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}."))
    try:
        model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, default=str) + "\n")
        shutil.rmtree(directory, ignore_errors=True)
        os.replace(staging, directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return directory


def load_model_dir(spec: str | Path, device: str = "cpu"):
    """(model, tokenizer) from a model directory, an alias or a Hugging Face id (core loader)."""
    from proceedings.core.models import load_causal_lm

    return load_causal_lm(spec, device=device, dtype="float32")


def weights_digest(directory: Path | str) -> str:
    """sha256 over a model directory's weight files: proves an attack left its input untouched."""
    digest = hashlib.sha256()
    for path in sorted(Path(directory).glob("*.safetensors")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
