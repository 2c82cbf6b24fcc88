"""`viz`: an image with its boxes, overlap regions hatched, the front object marked and the captions."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from proceedings.overlay.records import rle_decode


def draw(record: dict, image: np.ndarray, out: Path | str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    fig, (ax, text) = plt.subplots(1, 2, figsize=(10, 5), gridspec_kw={"width_ratios": [1, 1.3]})
    ax.imshow(image, interpolation="nearest")
    for obj in record["objects"]:
        x1, y1, x2, y2 = obj["bbox"]
        ax.add_patch(Rectangle((x1 - 0.5, y1 - 0.5), x2 - x1, y2 - y1, fill=False, lw=1, color="white"))
        ax.text(x1, y1 - 1, str(obj["id"]), color="white", fontsize=7)
    for pair in record["overlaps"]:
        if pair.get("valid", True):
            region = rle_decode(pair["region_mask"])
            ax.contourf(region.astype(float), levels=[0.5, 1.5], hatches=["////"], colors="none")
            ys, xs = np.nonzero(region)
            if len(xs):
                ax.plot(xs.mean(), ys.mean(), marker="*", color="black", markersize=6)
                ax.text(xs.mean() + 1, ys.mean(), str(pair["front"]), fontsize=6)
    ax.set_axis_off()
    text.set_axis_off()
    lines = [f"{o['id']}: {o['caption']}" for o in record["objects"]]
    text.text(0, 1, "\n".join(lines), va="top", fontsize=6, wrap=True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return Path(out)
