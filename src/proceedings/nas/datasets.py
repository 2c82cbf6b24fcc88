"""Loaders for the real CounterFact and ZsRE JSON formats, and a CounterFact-schema writer.

CounterFact (ROME): [{"case_id", "requested_rewrite": {"prompt", "subject", "target_new": {"str"},
"target_true": {"str"}}, "paraphrase_prompts": [...], "neighborhood_prompts": [...]}, ...]
ZsRE (MEND/ROME): [{"subject", "src", "alt", "answers": [...], "rephrase", "loc", "loc_ans"}, ...]
Targets get the leading space the tokenizers expect (" Paris"), as ROME's loaders do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.nas.requests import EditRequest


def _spaced(text: str) -> str:
    return text if text.startswith(" ") else " " + text


def _records(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise ProceedingsError(f"dataset file '{path}' does not exist")
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ProceedingsError(f"'{path}' is not valid JSON ({err})") from None
    if not isinstance(records, list):
        raise ProceedingsError(f"'{path}' must hold a JSON list of records")
    return records


def _field(record: dict, path: str, where: str) -> Any:
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise ProceedingsError(f"{where}: missing field '{path}'")
        value = value[part]
    return value


def load_counterfact(path: str | Path) -> list[EditRequest]:
    requests = []
    for index, record in enumerate(_records(path)):
        where = f"{Path(path).name} record {index} (case_id {record.get('case_id', '?')})"
        rewrite = _field(record, "requested_rewrite", where)
        true = _field(record, "requested_rewrite.target_true.str", where)
        requests.append(EditRequest(
            prompt=_field(rewrite, "prompt", where), subject=_field(rewrite, "subject", where),
            target_new=_spaced(_field(record, "requested_rewrite.target_new.str", where)),
            target_true=_spaced(true), paraphrases=tuple(record.get("paraphrase_prompts", [])),
            neighborhood=tuple(record.get("neighborhood_prompts", [])), neighborhood_answer=_spaced(true),
            case_id=str(record.get("case_id", index)), relation=rewrite.get("relation_id", "")))
    return requests


def load_zsre(path: str | Path) -> list[EditRequest]:
    requests = []
    for index, record in enumerate(_records(path)):
        where = f"{Path(path).name} record {index}"
        answers = record.get("answers") or []
        loc = record.get("loc")
        requests.append(EditRequest(
            prompt=_field(record, "src", where), subject=_field(record, "subject", where),
            target_new=_spaced(_field(record, "alt", where)), target_true=_spaced(answers[0]) if answers else None,
            paraphrases=(record["rephrase"],) if record.get("rephrase") else (),
            neighborhood=(loc,) if loc else (), neighborhood_answer=_spaced(record["loc_ans"]) if record.get("loc_ans") else None,
            case_id=str(record.get("case_id", index)), relation="zsre"))
    return requests


def load_requests(path: str | Path) -> list[EditRequest]:
    """CounterFact or ZsRE, recognised by the first record's fields."""
    records = _records(path)
    if records and "requested_rewrite" in records[0]:
        return load_counterfact(path)
    if records and "src" in records[0]:
        return load_zsre(path)
    raise ProceedingsError(f"'{path}' is neither CounterFact ('requested_rewrite') nor ZsRE ('src', 'alt') JSON")


def counterfact_records(requests: Sequence[EditRequest]) -> list[dict[str, Any]]:
    return [{"case_id": r.case_id,
             "requested_rewrite": {"prompt": r.prompt, "subject": r.subject, "relation_id": r.relation,
                                   "target_new": {"str": r.target_new.strip()},
                                   "target_true": {"str": (r.target_true or "").strip()}},
             "paraphrase_prompts": list(r.paraphrases), "neighborhood_prompts": list(r.neighborhood)}
            for r in requests]


def save_counterfact(requests: Sequence[EditRequest], path: str | Path) -> Path:
    return atomic_write_text(path, json.dumps(counterfact_records(requests), indent=1) + "\n")
