"""Reading a user's source image: RGB conversion, centre crop and resize to the model size (spec §2.1, §7)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError


def load_image(path: Path | str, size: int, upscale: bool = False) -> torch.Tensor:
    """(1, 3, size, size) in [0, 1]: halve with box filtering while the short side >= 2 size, then bicubic.

    An image whose short side is below `size` is refused unless `upscale`.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(path).convert("RGB")
    except (OSError, UnidentifiedImageError) as err:
        raise ProceedingsError(f"cannot read image '{path}' ({err})") from None
    short = min(image.size)
    if short < size and not upscale:
        raise ProceedingsError(f"image '{path}' is {image.size[0]}x{image.size[1]}, below the model's {size} px; "
                               "pass --upscale to enlarge it")
    left, top = (image.size[0] - short) // 2, (image.size[1] - short) // 2
    image = image.crop((left, top, left + short, top + short))
    while image.size[0] >= 2 * size:
        image = image.reduce(2)
    image = image.resize((size, size), Image.Resampling.BICUBIC)
    return torch.as_tensor(np.asarray(image, dtype=np.float32) / 255).permute(2, 0, 1)[None]
