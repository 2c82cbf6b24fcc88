"""Samples -> padded tensors for the encoder: MiniLM states, docking sentences with their slots,
SMILES characters, Morgan bits and the ligand's atoms in its pocket frame (centred on the ligand)."""

from __future__ import annotations

import re

import numpy as np
import torch

from proceedings.dockwizard.data import Sample
from proceedings.dockwizard.encoders import FINGERPRINT_BITS, element_ids, smiles_ids
from proceedings.dockwizard.structures import AMINO_ACIDS

_POSITION = re.compile(r"position ([A-Za-z]-?\d+)")


def docking_sentences(text: str) -> list[str]:
    return [s.strip() + "." for s in text.split(". ") if s.strip(" .")]


def sentence_slot(sentence: str, pocket: list[str]) -> int:
    """1-based index of the pocket slot a sentence names, 0 if it names none of them."""
    match = _POSITION.search(sentence)
    return pocket.index(match[1]) + 1 if match and match[1] in pocket else 0


class Featurizer:
    """Caches the frozen MiniLM states of every text it has seen."""

    def __init__(self, docking: str = "masked"):
        self.docking = docking  # which docking text the model reads: "masked" or "full"
        self._states: dict[str, torch.Tensor] = {}
        self._sentences: dict[str, torch.Tensor] = {}

    def _token_states(self, texts: list[str]) -> list[torch.Tensor]:
        from proceedings.dockwizard.text_encoder import token_states

        new = sorted({t for t in texts if t not in self._states})
        for text, states in zip(new, token_states(new)):
            self._states[text] = states
        return [self._states[t] for t in texts]

    def _sentence_states(self, sentences: list[str]) -> torch.Tensor:
        from proceedings.dockwizard.text_encoder import sentence_embeddings

        new = sorted({s for s in sentences if s not in self._sentences})
        for sentence, state in zip(new, sentence_embeddings(new)):
            self._sentences[sentence] = state
        return torch.stack([self._sentences[s] for s in sentences]) if sentences else torch.zeros(0, 384)

    def warm(self, samples: list[Sample]) -> None:
        """Encode every text of `samples` in one call, so no state depends on which batches came first
        (MiniLM's padding does, at float rounding): a run resumed mid-training trains on the same numbers."""
        self.batch(samples)

    def batch(self, samples: list[Sample], docking_texts: list[str] | None = None) -> dict:
        texts = docking_texts or [s.docking_masked if self.docking == "masked" else s.docking_full for s in samples]
        function = _pad(self._token_states([s.function_text for s in samples]))
        description = _pad(self._token_states([s.ligand_description for s in samples]))
        sentences = [docking_sentences(t) for t in texts]
        docking = _pad([self._sentence_states(ss) for ss in sentences])
        slots = _pad([torch.tensor([sentence_slot(x, s.pocket) for x in ss], dtype=torch.long)
                      for ss, s in zip(sentences, samples)])[0]
        smiles = _pad([torch.tensor(smiles_ids(s.smiles), dtype=torch.long) for s in samples])
        atoms = [np.array(s.pose["xyz"], dtype=np.float32) for s in samples]
        xyz = _pad([torch.from_numpy(a - a.mean(0)) for a in atoms])
        types = _pad([torch.tensor(element_ids(s.pose["elements"]), dtype=torch.long) for s in samples])[0]
        return {"function": function[0], "function_pad": function[1], "description": description[0],
                "description_pad": description[1], "docking": docking[0], "docking_pad": docking[1],
                "docking_slot": slots, "smiles": smiles[0], "smiles_pad": smiles[1],
                "fingerprint": torch.stack([fingerprint(s.smiles) for s in samples]),
                "atom_xyz": xyz[0], "atom_type": types, "atom_pad": xyz[1], "target": targets(samples)}


def targets(samples: list[Sample]) -> torch.Tensor:
    length = max(len(s.target) for s in samples)
    out = torch.full((len(samples), length), -100, dtype=torch.long)
    for i, s in enumerate(samples):
        out[i, : len(s.target)] = torch.tensor([AMINO_ACIDS.index(a) for a in s.target])
    return out


def fingerprint(smiles: str) -> torch.Tensor:
    from rdkit import Chem
    from rdkit.Chem import rdFingerprintGenerator

    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=FINGERPRINT_BITS)
    bits = generator.GetFingerprintAsNumPy(Chem.MolFromSmiles(smiles))
    return torch.from_numpy(bits.astype(np.float32))


def _pad(items: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack variable-length (n, ...) tensors: (batch, max_n, ...) and a padding mask (True = pad).
    An empty item keeps one padded row so attention always has a key."""
    length = max(1, max(len(x) for x in items))
    shape = (len(items), length) + tuple(items[0].shape[1:])
    out = torch.zeros(shape, dtype=items[0].dtype)
    pad = torch.ones(len(items), length, dtype=torch.bool)
    for i, x in enumerate(items):
        out[i, : len(x)] = x
        pad[i, : len(x)] = False
    return out, pad
