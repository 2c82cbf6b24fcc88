"""Interactive use (spec §6): keep a world on screen and apply typed operations, segment by segment.

Operations are programs (JSON) or free text. A text-conditioned model reads the text as is; a
structured model needs a program, so text is matched against the taxonomy's templates for the objects
in the scene (an unmatched text is refused with the nearest operators). The schema is tracked beside the
frames (apply, then the segment's motion), frames stream to disk chunk by chunk with one log line per
segment, and `rollout_state.pt` lets a crashed or stopped rollout resume.
"""

from __future__ import annotations

import difflib
import itertools
import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from proceedings.core.runtime import atomic_write_bytes, load_checkpoint, save_checkpoint
from proceedings.oopsworld.data import implicit_prompt
from proceedings.oopsworld.taxonomy import OPERATORS, VOCABULARY, Op, Program, ProgramError, objects
from proceedings.oopsworld.world import advance, render

PLACES = (20.0, 32.0, 44.0)  # the coordinates a text prompt can name ("the top left" ...)


def _normal(text: str) -> str:
    return " ".join(text.lower().replace(",", " ").split())


def _candidates(scene: dict):
    """Every single-op program for this scene with every template's text."""
    objs = objects(scene)
    for name, spec in OPERATORS.items():
        targets = list(objs) if spec.target == "object" else [None]
        for target in targets:
            choices = []
            for arg, kind in spec.args.items():
                if kind == "coord":
                    choices.append([(arg, v) for v in PLACES])
                elif kind == "object":
                    choices.append([(arg, o) for o in objs if o != target])
                else:
                    choices.append([(arg, v) for v in VOCABULARY[kind]])
            for combo in itertools.product(*choices):
                op = Op(name, target, dict(combo))
                for template in spec.templates:
                    program = Program((op,))
                    yield program, _normal(implicit_prompt(program, scene, _Fixed(template)))


class _Fixed:
    """A stand-in rng whose choice is always the given template (or each operator's first)."""

    def __init__(self, template: str | None = None):
        self.template = template

    def choice(self, templates):
        return templates[0] if self.template is None else self.template


def parse_operation(text: str, scene: dict) -> Program:
    """The program a free-text operation names ("turn the blue box red and pan left")."""
    wanted = _normal(text)
    table = {}
    for program, phrase in _candidates(scene):
        table.setdefault(phrase, program)
    if wanted in table:
        return table[wanted]
    words = wanted.split(" and ")
    for cut in range(1, len(words)):
        left, right = " and ".join(words[:cut]), " and ".join(words[cut:])
        if left in table:
            try:
                rest = parse_operation(right, scene)
            except ProgramError:
                continue
            program = Program(table[left].ops + rest.ops)
            program.validate(scene)
            return program
    near = difflib.get_close_matches(wanted, list(table), n=3, cutoff=0.3)
    names = list(dict.fromkeys(table[p].ops[0].op for p in near))
    raise ProgramError(f"text '{text}' names no operation on this scene; nearest operators: "
                       f"{', '.join(names) or 'none'} (e.g. '{near[0] if near else 'pan left'}')")


def read_operations(path: Path) -> list[str | dict]:
    """ops.jsonl: one operation per line, a JSON program or plain text."""
    ops = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{") or line.startswith("["):
            try:
                ops.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise ProgramError(f"{path}:{n}: not valid JSON ({err.msg})") from None
        else:
            ops.append(line)
    return ops


def stream_rollout(model, scene: dict, operations: list[str | dict], out: Path, resume: bool = False,
                   seed: int = 0, log=print) -> Path:
    """Generate one segment per operation from the model's own history, writing frames as they come."""
    import torch

    from proceedings.oopsworld.encoders import minilm, op_words, structured_bank, text_bank

    out = Path(out)
    frames_dir = out / "frames"
    frames_dir.mkdir(parents=True, exist_ok=True)
    state_path = out / "rollout_state.pt"
    state = load_checkpoint(state_path) if resume else None
    if state is None:
        history = np.stack([render(scene, 0, seed), render(scene, 1, seed)])
        state = {"segment": 0, "history": history, "scene": scene, "frame": 0}
        for k, frame in enumerate(history):
            _save_png(frames_dir / f"{k:06d}.png", frame)
        state["frame"] = 2
        (out / "segments.jsonl").write_text("")
    k = model.config.frames
    for index in range(state["segment"], len(operations)):
        operation, scene = operations[index], state["scene"]
        program = Program.parse(operation) if isinstance(operation, (dict, list)) else (
            None if model.config.encoder == "text" else parse_operation(operation, scene))
        if program is not None:
            program.validate(scene)
        text = operation if isinstance(operation, str) else implicit_prompt(program, scene, _Fixed())
        if model.config.encoder == "text":
            values, mask = text_bank([text], minilm()).take(np.array([0]))
        else:
            values, mask = structured_bank([op_words(program, scene)]).take(np.array([0]))
        history = torch.from_numpy(state["history"]).permute(0, 3, 1, 2)[None].float()
        with torch.no_grad():
            chunk = model(history, values, mask).clamp(0, 1)[0].permute(0, 2, 3, 1).numpy()
        for j, frame in enumerate(chunk):
            _save_png(frames_dir / f"{state['frame'] + j:06d}.png", frame)
        entry = {"segment": index, "operation": operation, "program": program.to_dict() if program else None,
                 "frames": [state["frame"], state["frame"] + k - 1]}
        with open(out / "segments.jsonl", "a") as fh:
            fh.write(json.dumps(entry) + "\n")
        log(f"segment {index}: {text}")
        next_scene = advance(program.apply(scene), k) if program else scene
        state = {"segment": index + 1, "history": chunk[-2:], "scene": next_scene, "frame": state["frame"] + k}
        save_checkpoint(state_path, state)
    return write_gif(frames_dir, out / "video.gif")


def _save_png(path: Path, frame: np.ndarray) -> None:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.round(np.clip(frame, 0, 1) * 255).astype(np.uint8)).save(buffer, format="PNG")
    atomic_write_bytes(path, buffer.getvalue())


def write_gif(frames_dir: Path, path: Path, scale: int = 4) -> Path:
    """All frames as one GIF, written atomically (never a half-written video)."""
    import io

    from PIL import Image

    images = [Image.open(p).convert("RGB").resize((32 * scale, 32 * scale), Image.NEAREST)
              for p in sorted(Path(frames_dir).glob("*.png"))]
    buffer = io.BytesIO()
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:], duration=125, loop=0)
    return atomic_write_bytes(path, buffer.getvalue())


def save_model(model, path: Path, arm: str) -> Path:
    import io

    import torch

    buffer = io.BytesIO()
    torch.save({"config": asdict(model.config), "state": model.state_dict(), "arm": arm}, buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def load_model(path: Path):
    import torch

    from proceedings.oopsworld.generator import ChunkGenerator, GeneratorConfig

    if not Path(path).exists():
        raise ProgramError(f"model file '{path}' does not exist; train one with `proceedings oopsworld train`")
    saved = torch.load(path, map_location="cpu", weights_only=False)
    config = GeneratorConfig(**{**saved["config"], "channels": tuple(saved["config"]["channels"])})
    model = ChunkGenerator(config)
    model.load_state_dict(saved["state"])
    return model.eval()

