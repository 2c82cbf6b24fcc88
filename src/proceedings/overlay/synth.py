"""`synth`: generate a profile's images and exact records, in atomic, resumable shards (spec §5 E1, §7).

Sample k of a run is a pure function of (seed, k): its layout, background and captions. Shards are
written as `part-XXXXX.jsonl` (tmp + rename) with a `.done` marker; `resume` skips finished shards;
`annotations.jsonl` joins them at the end.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import atomic_write_bytes, atomic_write_text
from proceedings.overlay.captions import CAPTION_MODES
from proceedings.overlay.records import add_overlayscores, check_record, scene_record
from proceedings.overlay.render import Background, Rendering, render, sample_background
from proceedings.overlay.scenes import PROFILES, sample_scene, scene_rng
from proceedings.overlay.sprites import Sprite
from proceedings.overlay.text_encoder import text_encoder

DEFAULT_CAPTION = {"sparse": "short", "dense": "rich"}


@dataclass
class Scene:
    sprites: list[Sprite]
    background: Background

    def render(self, size: int) -> Rendering:
        return render(self.sprites, self.background, size)


def make_scene(profile: str, seed: int, index: int) -> Scene:
    """Layout and background of sample `index` (resolution-free)."""
    if profile not in PROFILES:
        raise ProceedingsError(f"unknown profile '{profile}'; choose one of: {', '.join(PROFILES)}")
    return Scene(sample_scene(profile, seed, index), sample_background(scene_rng(seed, index, stream=1)))


def make_record(profile: str, seed: int, index: int, size: int, caption: str | None = None,
                encoder: str | None = "bow") -> tuple[dict, np.ndarray]:
    """(record, (size, size, 3) uint8 image) of one sample; the record is checked against its masks.
    With `encoder=None` OverLayScore is left for add_overlayscores to fill in bulk."""
    scene = make_scene(profile, seed, index)  # checks the profile
    caption = caption or DEFAULT_CAPTION[profile]
    if caption not in CAPTION_MODES:
        raise ProceedingsError(f"unknown caption mode '{caption}'; choose one of: {', '.join(CAPTION_MODES)}")
    rendering = scene.render(size)
    record = scene_record(f"{profile}-{seed}-{index:06d}", scene.sprites, scene.background, rendering, caption,
                          text_encoder(encoder) if encoder else None, seed, profile)
    check_record(record)
    return record, (rendering.image * 255).round().astype(np.uint8)


def png_bytes(image: np.ndarray) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


def generate(profile: str, n: int, out: Path | str, size: int = 64, seed: int = 0, caption: str | None = None,
             encoder: str = "minilm", shard_size: int = 1000, resume: bool = False) -> Path:
    """Write n images and their records under `out`; returns the joined `annotations.jsonl`."""
    import json

    if n < 1 or size < 8:
        raise ProceedingsError(f"need n >= 1 and size >= 8, got n={n}, size={size}")
    scorer = text_encoder(encoder)  # a model not on disk fails here, before any image is drawn
    out = Path(out)
    shards = range(0, n, shard_size)
    for start in progress_bar(shards, desc=f"synth {profile}", unit="shard"):
        part = out / f"part-{start // shard_size:05d}.jsonl"
        if resume and part.with_suffix(".done").exists():
            continue
        records = []
        for index in range(start, min(start + shard_size, n)):
            record, image = make_record(profile, seed, index, size, caption, encoder=None)
            atomic_write_bytes(out / record["file"], png_bytes(image))
            records.append(record)
        add_overlayscores(records, scorer)
        atomic_write_text(part, "".join(json.dumps(record) + "\n" for record in records))
        atomic_write_text(part.with_suffix(".done"), "")
    joined = out / "annotations.jsonl"
    atomic_write_text(joined, "".join(p.read_text() for p in sorted(out.glob("part-*.jsonl"))))
    return joined
