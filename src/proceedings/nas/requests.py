"""An edit request (CounterFact schema) and the checks that keep an edit at the right position."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from proceedings.core.errors import ProceedingsError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase


@dataclass(frozen=True)
class EditRequest:
    """Rewrite `prompt.format(subject)` -> `target_new` (targets keep their leading space: " Lyon")."""

    prompt: str  # with '{}' where the subject goes
    subject: str
    target_new: str
    target_true: str | None = None  # None when the format has no true answer (ZsRE)
    paraphrases: tuple[str, ...] = ()  # filled prompts that should also give target_new
    neighborhood: tuple[str, ...] = ()  # filled prompts about other subjects that must not change
    neighborhood_answer: str | None = None  # their reference answer (CounterFact: target_true)
    case_id: str = "0"
    relation: str = ""

    def __post_init__(self) -> None:
        where = f"request '{self.case_id}'"
        if not self.subject.strip():
            raise ProceedingsError(f"{where}: empty subject")
        if "{}" not in self.prompt:
            if self.subject not in self.prompt:
                raise ProceedingsError(f"{where}: subject '{self.subject}' not found in prompt '{self.prompt}'")
            object.__setattr__(self, "prompt", self.prompt.replace(self.subject, "{}", 1))
        if self.prompt.count("{}") != 1:
            raise ProceedingsError(f"{where}: prompt '{self.prompt}' must contain exactly one '{{}}' for the subject")
        if not self.target_new.strip():
            raise ProceedingsError(f"{where}: empty target_new; give the new object, e.g. ' Lyon'")
        if self.target_true is not None and not self.target_true.strip():
            object.__setattr__(self, "target_true", None)
        object.__setattr__(self, "paraphrases", tuple(self.paraphrases))
        object.__setattr__(self, "neighborhood", tuple(self.neighborhood))

    @property
    def text(self) -> str:
        return self.prompt.format(self.subject)


def target_ids(tok: "PreTrainedTokenizerBase", target: str, case_id: str = "?") -> list[int]:
    """Token ids of a target string (no special tokens); an error if it tokenises to nothing."""
    ids = tok(target, add_special_tokens=False).input_ids
    ids = [i for i in ids if i not in (tok.bos_token_id,)]
    if not ids:
        raise ProceedingsError(f"request '{case_id}': target {target!r} tokenises to nothing")
    return ids


def subject_last_index(tok: "PreTrainedTokenizerBase", text_template: str, subject: str, case_id: str) -> tuple[list[int], int]:
    """(ids of the filled template, index of the subject's last token).

    The ids of the text up to the end of the subject must be a prefix of the ids of the whole
    text; otherwise the tokenizer merged the subject with its neighbours and the position would be
    a guess, so we refuse (spec §7).
    """
    head = text_template[: text_template.index("{}")] + subject
    full = tok(text_template.format(subject)).input_ids
    prefix = tok(head).input_ids
    if not prefix or full[: len(prefix)] != prefix:
        seen = tok.convert_ids_to_tokens(full)
        raise ProceedingsError(
            f"request '{case_id}': subject '{subject}' not found as whole tokens in "
            f"'{text_template.format(subject)}' (tokens seen: {seen})"
        )
    return full, len(prefix) - 1
