"""Docking language: interaction records <-> templated docking text, full and masked.

The paper conditions generation on "docking-oriented language describing docking processes, binding
patterns, and local interaction constraints". Ours is templated from the profiler's records (spec
§4.1 step 5): one sentence per stated interaction naming its kind, the pocket position, the residue
type (full text only) and the ligand group. The *masked* text withholds the residue type, so a model
must infer which residue makes a hydrogen bond or a stack from the interaction alone; the verdict's
headline arm uses it. `parse` inverts `docking_text`, so records -> text -> records round-trips.
"""

from __future__ import annotations

import re
import warnings

from proceedings.dockwizard.interactions import KINDS, Interaction
from proceedings.dockwizard.structures import THREE_TO_ONE

_SENTENCE = re.compile(r"(?:(?P<res>[A-Z][a-z]{2}) at position|The residue at position) (?P<chain>[A-Za-z])(?P<num>-?\d+) "
                       r"forms (?:a|an) (?P<kind>[a-z\- ]+?) with the ligand's (?P<group>[a-z ]+)\.")
RESIDUE_TYPES = tuple(name.capitalize() for name in THREE_TO_ONE)


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def burial(n_pocket: int) -> str:
    return "deep, enclosed" if n_pocket >= 20 else "medium" if n_pocket >= 12 else "shallow, open"


def docking_text(interactions: list[Interaction], n_pocket: int, masked: bool = False) -> str:
    """The docking text of a complex: pocket burial, then one sentence per interaction (spec §4.1)."""
    sentences = [f"The ligand sits in a {burial(n_pocket)} pocket of {n_pocket} residues and makes "
                 f"{len(interactions)} stated contacts."]
    for item in interactions:
        chain, number = item.residue[0], item.number
        subject = "The residue at position" if masked else f"{item.residue_name.capitalize()} at position"
        sentences.append(f"{subject} {chain}{number} forms {_article(item.kind)} {item.kind} with the ligand's "
                         f"{item.ligand_group}.")
    return " ".join(sentences)


def parse(text: str) -> list[dict]:
    """The interaction records a docking text states: kind, residue key, residue type (None when
    masked), number and ligand group."""
    records = []
    for match in _SENTENCE.finditer(text):
        kind = match["kind"]
        if kind not in KINDS:
            continue
        records.append({"kind": kind, "residue": f"{match['chain']}{match['num']}", "number": int(match["num"]),
                        "residue_name": match["res"].upper() if match["res"] else None,
                        "ligand_group": match["group"]})
    return records


def names_residue_type(text: str) -> bool:
    """Does the text name any amino-acid type ('Asn', 'Phe', ...) as a word?"""
    return any(re.search(rf"\b{name}\b", text) for name in RESIDUE_TYPES)


def warn_unknown_positions(text: str, pocket: list[str]) -> list[str]:
    """Residues the docking text names that are not in the pocket: warned about, never fatal (spec §7)."""
    unknown = sorted({r["residue"] for r in parse(text)} - set(pocket))
    if unknown:
        warnings.warn(f"docking text names residues not in the pocket: {', '.join(unknown)}", stacklevel=2)
    return unknown
