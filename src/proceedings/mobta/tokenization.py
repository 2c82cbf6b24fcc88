"""One trajectory format for every city, in two spellings: added tokens or ordinary digits (spec §2.1).

`tokens` (default): a tag, then (`<tNN>` slot, `<cNNN>` cell) pairs, then `<eos>`, e.g.
"<mob> <t16> <c087> <t18> <c140> <t35> <c087> <eos>". The tokens are added to the model's vocabulary, so
their embedding rows are part of every task vector. `digits`: "mob 08:00 r05 c07 09:00 r08 c12 <eos>", the
slot as its start time and the cell as grid row and column, written with a pretrained model's ordinary
tokens (no new rows; `<eos>` is the model's own end token). Cells are relative grid positions (index =
row * grid + column), so a word means "the same relative place" in every city. Decoding is exact and
strict: a sample that does not parse is invalid, with the reason, never silently repaired.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.trajectories import Trajectory

TAGS = ("bus", "mob")
EOS = "<eos>"
FORMATS = ("tokens", "digits")


class InvalidSample(ValueError):
    """A generated sequence that is not a trajectory; the message says why."""


@dataclass(frozen=True)
class TrajTokenizer:
    grid: int = 16
    slot_minutes: int = 30
    cell_format: str = "tokens"

    def __post_init__(self):
        if self.grid < 2 or (24 * 60) % self.slot_minutes:
            raise ProceedingsError(f"grid {self.grid} / slot {self.slot_minutes} min: grid >= 2 and slots must divide a day")
        if self.cell_format not in FORMATS:
            raise ProceedingsError(f"cell format '{self.cell_format}': choose one of {', '.join(FORMATS)}")

    @property
    def slots(self) -> int:
        return 24 * 60 // self.slot_minutes

    @property
    def cells(self) -> int:
        return self.grid ** 2

    @property
    def digits(self) -> bool:
        return self.cell_format == "digits"

    @property
    def words_per_visit(self) -> int:
        return 3 if self.digits else 2

    def tag_word(self, tag: str) -> str:
        return tag if self.digits else f"<{tag}>"

    def slot_token(self, slot: int) -> str:
        minutes = slot * self.slot_minutes
        return f"{minutes // 60:02d}:{minutes % 60:02d}" if self.digits else f"<t{slot:02d}>"

    def cell_words(self, cell: int) -> list[str]:
        if self.digits:
            width = max(2, len(str(self.grid - 1)))
            return [f"r{cell // self.grid:0{width}d}", f"c{cell % self.grid:0{width}d}"]
        return [f"<c{cell:0{max(3, len(str(self.cells - 1)))}d}>"]

    def vocabulary(self) -> list[str]:
        """Every word of the format, in a fixed order (tags, eos, slots, cells; digits: rows, then columns)."""
        if self.digits:  # cell (r, r) spells row r and column r
            diagonal = [self.cell_words(r * self.grid + r) for r in range(self.grid)]
            cell_part = [row for row, _ in diagonal] + [column for _, column in diagonal]
        else:
            cell_part = [self.cell_words(c)[0] for c in range(self.cells)]
        return ([self.tag_word(t) for t in TAGS] + [EOS] + [self.slot_token(s) for s in range(self.slots)]
                + cell_part)

    def added_tokens(self) -> list[str]:
        """The tokens a pretrained model's vocabulary must gain: all of them (tokens), none (digits)."""
        return [] if self.digits else self.vocabulary()

    def fingerprint(self) -> str:
        """Hash of the vocabulary, grid and slot length: two task vectors must agree on it to combine."""
        return hashlib.sha256("\n".join(self.vocabulary() + [str(self.grid), str(self.slot_minutes)]).encode()).hexdigest()[:16]

    def kind(self, word: str) -> str:
        """slot, cell (tokens) or row / column (digits), eos, or tag: the kinds a trajectory's words come in."""
        if word == EOS:
            return "eos"
        if word in {self.tag_word(t) for t in TAGS}:
            return "tag"
        if self.digits:
            return {"r": "row", "c": "column"}.get(word[:1], "slot")
        return {"<t": "slot", "<c": "cell"}.get(word[:2], "tag")

    def encode(self, trajectory: Trajectory, tag: str) -> list[str]:
        if tag not in TAGS:
            raise ProceedingsError(f"unknown tag '{tag}'; choose one of {', '.join(TAGS)}")
        words = [self.tag_word(tag)]
        for slot, cell in trajectory.visits:
            if not (0 <= slot < self.slots and 0 <= cell < self.cells):
                raise ProceedingsError(f"visit (slot {slot}, cell {cell}) is outside {self.slots} slots x {self.cells} cells")
            words += [self.slot_token(slot), *self.cell_words(cell)]
        return words + [EOS]

    def decode(self, words: list[str]) -> tuple[str, Trajectory]:
        """(tag, trajectory), or InvalidSample: tag first, one (slot, cell) visit after another, `<eos>`; a
        person-day's slots strictly increase, a bus trip's never decrease."""
        tags = {self.tag_word(t): t for t in TAGS}
        if not words or words[0] not in tags:
            if words and words[0].startswith(tuple(tags)):  # digits: the sample's first id ran on into the tag
                raise InvalidSample(f"no space after the tag ({words[0][:12]!r})")
            raise InvalidSample(f"does not start with {' or '.join(tags)}")
        tag = tags[words[0]]
        if EOS not in words:
            raise InvalidSample("no <eos>")
        body, step = words[1:words.index(EOS)], self.words_per_visit
        if not body or len(body) % step:
            raise InvalidSample("not a sequence of (slot, cell) pairs" if step == 2
                                else "not a sequence of (time, row, column) triples")
        visits = []
        for i in range(0, len(body), step):
            slot, cell = self._visit(body[i:i + step])
            if visits and (slot < visits[-1][0] or (tag == "mob" and slot == visits[-1][0])):
                raise InvalidSample("time goes backwards" if slot < visits[-1][0] else "two stays start in one slot")
            visits.append((slot, cell))
        return tag, Trajectory(tuple(visits))

    def _visit(self, words: list[str]) -> tuple[int, int]:
        if not self.digits:
            return (_number(words[0], _SLOT, self.slots, "slot token"),
                    _number(words[1], _CELL, self.cells, "cell token"))
        minutes = _number(words[0], _TIME, 24 * 60, "time hh:mm")
        if minutes % self.slot_minutes:
            raise InvalidSample(f"time {words[0]!r} does not start a {self.slot_minutes}-min slot")
        width = max(2, len(str(self.grid - 1)))
        row = _number(words[1], re.compile(rf"r(\d{{{width}}})"), self.grid, "row")
        column = _number(words[2], re.compile(rf"c(\d{{{width}}})"), self.grid, "column")
        return minutes // self.slot_minutes, row * self.grid + column


_SLOT, _CELL = re.compile(r"<t(\d+)>"), re.compile(r"<c(\d+)>")
_TIME = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")


def _number(text: str, pattern: re.Pattern, limit: int, what: str) -> int:
    """The number a word spells (a time in minutes), or InvalidSample naming what was expected."""
    match = pattern.fullmatch(text)
    if not match:
        raise InvalidSample(f"expected a {what}, got {text!r}")
    value = int(match.group(1)) * 60 + int(match.group(2)) if pattern is _TIME else int(match.group(1))
    if value >= limit:
        raise InvalidSample(f"expected a {what}, got {text!r}")
    return value
