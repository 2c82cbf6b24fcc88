"""The annotate pipeline's model back-ends: entity proposal, grounding, segmentation (spec §2.2 steps 2-4).

- `oracle`: the generator's ground truth (labels, exact boxes, exact visible masks).
- `oracle-noisy`: the spec's stand-in for a detector + SAM: boxes jittered by N(0, 2 % of the side),
  5 % of objects dropped, each visible mask eroded or dilated by 1 px.
- a Hugging Face id or local directory: Grounding DINO / Florence-2 (`AutoModelForZeroShotObjectDetection`)
  and SAM (`SamModel`), loaded with `local_files_only`, so a model that is not on disk fails at start-up
  with one line; nothing is ever downloaded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.overlay.records import rle_decode

ORACLES = ("oracle", "oracle-noisy")
BOX_JITTER, DROP_RATE = 0.02, 0.05  # spec §5 E1


@dataclass
class Detection:
    label: str
    box: list[float]  # xyxy pixels
    visible: np.ndarray | None = None  # (h, w) bool, set by the segmenter
    score: float = 1.0


def _not_local(model_id: str) -> ProceedingsError:
    return ProceedingsError(f"model {model_id} not found locally; pass a local path or use an oracle/template back-end")


class OracleDetector:
    """Ground-truth entities and boxes (noisy: jittered, some dropped)."""

    def __init__(self, noisy: bool = False) -> None:
        self.noisy = noisy

    def detect(self, image: np.ndarray, truth: dict, rng: np.random.Generator) -> list[Detection]:
        side = truth["width"]
        found = []
        for obj in truth["objects"]:
            box = [float(v) for v in obj["bbox"]]
            if self.noisy:
                if rng.uniform() < DROP_RATE:
                    continue
                box = list(np.clip(np.asarray(box) + rng.normal(0, BOX_JITTER * side, size=4), 0, side))
                if box[2] - box[0] < 1 or box[3] - box[1] < 1:
                    continue
            found.append(Detection(obj["label"], box))
        return found


class OracleSegmenter:
    """The visible mask of the ground-truth object a detection came from (noisy: +-1 px)."""

    def __init__(self, noisy: bool = False) -> None:
        self.noisy = noisy

    def segment(self, image: np.ndarray, detections: list[Detection], truth: dict, rng: np.random.Generator) -> None:
        from scipy.ndimage import binary_dilation, binary_erosion

        from proceedings.overlay.overlaps import iou

        candidates = [(o["label"], o["bbox"], rle_decode(o["mask_visible"])) for o in truth["objects"]]
        for det in detections:
            same = [c for c in candidates if c[0] == det.label] or candidates
            _, _, mask = max(same, key=lambda c: iou(c[1], det.box))
            if self.noisy:
                mask = binary_dilation(mask) if rng.uniform() < 0.5 else binary_erosion(mask)
            det.visible = mask


class HFDetector:
    """Open-vocabulary grounding (Grounding DINO, OWL-ViT, ...) from a local directory or cached id."""

    def __init__(self, model_id: str, device: str = "cpu", threshold: float = 0.3) -> None:
        from transformers import AutoModelForZeroShotObjectDetection, AutoProcessor

        try:
            self.processor = AutoProcessor.from_pretrained(model_id, local_files_only=True)
            self.model = AutoModelForZeroShotObjectDetection.from_pretrained(model_id, local_files_only=True).to(device)
        except OSError:
            raise _not_local(model_id) from None
        self.device, self.threshold = device, threshold

    def detect(self, image: np.ndarray, phrases: list[str]) -> list[Detection]:
        import torch

        text = ". ".join(phrases) + "."
        inputs = self.processor(images=image, text=text, return_tensors="pt").to(self.device)
        with torch.no_grad():
            outputs = self.model(**inputs)
        result = self.processor.post_process_grounded_object_detection(
            outputs, inputs["input_ids"], threshold=self.threshold, target_sizes=[image.shape[:2]])[0]
        return [Detection(str(name), [float(v) for v in box], score=float(score))
                for box, score, name in zip(result["boxes"], result["scores"], result["labels"])]


class HFSegmenter:
    """Box-prompted SAM from a local directory or cached id."""

    def __init__(self, model_id: str, device: str = "cpu") -> None:
        from transformers import SamModel, SamProcessor

        try:
            self.processor = SamProcessor.from_pretrained(model_id, local_files_only=True)
            self.model = SamModel.from_pretrained(model_id, local_files_only=True).to(device)
        except OSError:
            raise _not_local(model_id) from None
        self.device = device

    def segment(self, image: np.ndarray, detections: list[Detection]) -> None:
        import torch

        if not detections:
            return
        inputs = self.processor(image, input_boxes=[[d.box for d in detections]], return_tensors="pt").to(self.device)
        with torch.no_grad():
            outputs = self.model(**inputs, multimask_output=False)
        masks = self.processor.image_processor.post_process_masks(
            outputs.pred_masks.cpu(), inputs["original_sizes"].cpu(), inputs["reshaped_input_sizes"].cpu())[0]
        for det, mask in zip(detections, masks):
            det.visible = mask[0].numpy().astype(bool)


def load_backends(detector: str, segmenter: str, device: str = "cpu"):
    """(detector, segmenter) objects; a model id that is not on disk fails here, before any image is read."""
    det = OracleDetector(detector == "oracle-noisy") if detector in ORACLES else HFDetector(detector, device)
    seg = OracleSegmenter(segmenter == "oracle-noisy") if segmenter in ORACLES else HFSegmenter(segmenter, device)
    return det, seg
