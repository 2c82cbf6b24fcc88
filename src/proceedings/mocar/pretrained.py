"""save_pretrained / from_pretrained for the learned arms: safetensors weights + config.json in a folder."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.mocar.backbone import BackboneConfig
from proceedings.mocar.model import MoCAR, MoCARConfig
from proceedings.mocar.qcnet_lite import QCNetLite
from proceedings.mocar.smart_lite import SmartLite, Vocabulary


def describe(model: torch.nn.Module) -> dict:
    if isinstance(model, MoCAR):
        return {"arm": "mocar", "mocar": model.cfg.to_dict()}
    if isinstance(model, SmartLite):
        return {"arm": "smart_lite", "backbone": asdict(model.backbone.cfg), "vocabulary_size": len(model.vocabulary),
                "segment": int(model.vocabulary.points.shape[1])}
    if isinstance(model, QCNetLite):
        return {"arm": "qcnet_lite", "backbone": asdict(model.backbone.cfg), "modes": model.modes, "future": model.future,
                "head_hidden": model.head[0].out_features}
    raise ProceedingsError(f"cannot save a {type(model).__name__}")


def save_pretrained(model: torch.nn.Module, path: Path | str) -> Path:
    from safetensors.torch import save_file

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, str(path / "model.safetensors"))
    atomic_write_text(path / "config.json", json.dumps(describe(model), indent=1))
    return path


def from_pretrained(path: Path | str) -> torch.nn.Module:
    from safetensors.torch import load_file

    path = Path(path)
    if not (path / "config.json").exists() or not (path / "model.safetensors").exists():
        raise ProceedingsError(f"'{path}' is not a saved model (needs config.json and model.safetensors); "
                               "train one with `proceedings mocar train`")
    cfg = json.loads((path / "config.json").read_text())
    if cfg["arm"] == "mocar":
        raw = cfg["mocar"]
        model = MoCAR(MoCARConfig(**{**raw, "backbone": BackboneConfig(**raw["backbone"])}))
    elif cfg["arm"] == "smart_lite":
        v, s = cfg["vocabulary_size"], cfg["segment"]
        model = SmartLite(Vocabulary(torch.zeros(v, s, 2), torch.zeros(v, 3)), BackboneConfig(**cfg["backbone"]))
    elif cfg["arm"] == "qcnet_lite":
        model = QCNetLite(BackboneConfig(**cfg["backbone"]), cfg["modes"], cfg["future"], cfg["head_hidden"])
    else:
        raise ProceedingsError(f"'{path}/config.json' names an unknown arm '{cfg['arm']}'")
    model.load_state_dict(load_file(str(path / "model.safetensors")))
    return model.eval()
