"""One tokenisation for every city: `<bus>`/`<mob>` tag, then (`<tNN>` slot, `<cNNN>` cell) pairs, then `<eos>`.

Spec §2.1: a sample reads "<mob> <t16> <c087> <t18> <c140> <t35> <c087> <eos>". Cells are relative grid
positions, so the same token means "the same relative place" in every city. The tokens are added to the
model's vocabulary (a HF tokenizer's `add_tokens`, or a vocabulary of only these tokens for the tiny
random model); their embedding rows are part of every task vector. Decoding is exact and strict: a
sample that does not parse is invalid, with the reason, never silently repaired.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.trajectories import Trajectory

TAGS = ("bus", "mob")
EOS = "<eos>"


class InvalidSample(ValueError):
    """A generated sequence that is not a trajectory; the message says why."""


@dataclass(frozen=True)
class TrajTokenizer:
    grid: int = 16
    slot_minutes: int = 30

    def __post_init__(self):
        if self.grid < 2 or (24 * 60) % self.slot_minutes:
            raise ProceedingsError(f"grid {self.grid} / slot {self.slot_minutes} min: grid >= 2 and slots must divide a day")

    @property
    def slots(self) -> int:
        return 24 * 60 // self.slot_minutes

    @property
    def cells(self) -> int:
        return self.grid ** 2

    def vocabulary(self) -> list[str]:
        """Every token of the format, in a fixed order (tags, eos, slots, cells)."""
        digits = len(str(self.cells - 1))
        return ([f"<{t}>" for t in TAGS] + [EOS] + [f"<t{s:02d}>" for s in range(self.slots)]
                + [f"<c{c:0{max(3, digits)}d}>" for c in range(self.cells)])

    def fingerprint(self) -> str:
        """Hash of the vocabulary, grid and slot length: two task vectors must agree on it to combine."""
        return hashlib.sha256("\n".join(self.vocabulary() + [str(self.grid), str(self.slot_minutes)]).encode()).hexdigest()[:16]

    def slot_token(self, slot: int) -> str:
        return f"<t{slot:02d}>"

    def cell_token(self, cell: int) -> str:
        return f"<c{cell:0{max(3, len(str(self.cells - 1)))}d}>"

    def encode(self, trajectory: Trajectory, tag: str) -> list[str]:
        if tag not in TAGS:
            raise ProceedingsError(f"unknown tag '{tag}'; choose one of {', '.join(TAGS)}")
        tokens = [f"<{tag}>"]
        for slot, cell in trajectory.visits:
            if not (0 <= slot < self.slots and 0 <= cell < self.cells):
                raise ProceedingsError(f"visit (slot {slot}, cell {cell}) is outside {self.slots} slots x {self.cells} cells")
            tokens += [self.slot_token(slot), self.cell_token(cell)]
        return tokens + [EOS]

    def decode(self, tokens: list[str]) -> tuple[str, Trajectory]:
        """(tag, trajectory), or InvalidSample: tag first, (slot, cell) pairs, `<eos>`; a person-day's
        slots strictly increase, a bus trip's never decrease."""
        if not tokens or tokens[0] not in {f"<{t}>" for t in TAGS}:
            raise InvalidSample("does not start with <bus> or <mob>")
        tag = tokens[0][1:-1]
        if EOS not in tokens:
            raise InvalidSample("no <eos>")
        body = tokens[1:tokens.index(EOS)]
        if not body or len(body) % 2:
            raise InvalidSample("not a sequence of (slot, cell) pairs")
        visits = []
        for slot_text, cell_text in zip(body[::2], body[1::2]):
            slot, cell = _number(slot_text, "t", self.slots), _number(cell_text, "c", self.cells)
            if visits and (slot < visits[-1][0] or (tag == "mob" and slot == visits[-1][0])):
                raise InvalidSample("time goes backwards" if slot < visits[-1][0] else "two stays start in one slot")
            visits.append((slot, cell))
        return tag, Trajectory(tuple(visits))


_TOKEN = re.compile(r"<([tc])(\d+)>")


def _number(text: str, kind: str, limit: int) -> int:
    match = _TOKEN.fullmatch(text)
    if not match or match.group(1) != kind or int(match.group(2)) >= limit:
        raise InvalidSample(f"expected a {'slot' if kind == 't' else 'cell'} token, got {text!r}")
    return int(match.group(2))


class TokenIds:
    """Token strings <-> model ids: the tokens' own order (tiny model) or ids in a HF tokenizer they were added to."""

    def __init__(self, to_id: dict[str, int], vocab_size: int):
        self.to_id = to_id
        self.to_token = {i: t for t, i in to_id.items()}
        self.vocab_size = vocab_size

    @classmethod
    def own(cls, tokenizer: TrajTokenizer) -> "TokenIds":
        vocab = tokenizer.vocabulary()
        return cls({t: i for i, t in enumerate(vocab)}, len(vocab))

    @classmethod
    def added_to(cls, hf_tokenizer, tokenizer: TrajTokenizer) -> "TokenIds":
        """Add the format's tokens to a Hugging Face tokenizer (once) and map them to its ids."""
        hf_tokenizer.add_tokens(tokenizer.vocabulary(), special_tokens=True)
        return cls({t: hf_tokenizer.convert_tokens_to_ids(t) for t in tokenizer.vocabulary()}, len(hf_tokenizer))

    def ids(self, tokens: list[str]) -> list[int]:
        return [self.to_id[t] for t in tokens]

    def tokens(self, ids: list[int]) -> list[str]:
        return [self.to_token.get(i, f"<id {i}>") for i in ids]

    @property
    def new_ids(self) -> list[int]:
        return sorted(self.to_id.values())
