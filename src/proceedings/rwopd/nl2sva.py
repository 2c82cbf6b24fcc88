"""Loading the FVEval NL2SVA-Human and -Machine tables (Apache-2.0, NVlabs/FVEval) from a folder.

The CSVs are read from `$RWOPD_NL2SVA_DIR`, else `../shared/data/rwopd` beside the checkout, else
`/work/shared/data/rwopd`; they are never copied into the repository. Columns: design_name,
task_id, prompt, ref_solution, testbench. The 11 Machine references that slang rejects are marked
`ref_invalid` (checked, not hard-coded) and left out of Func metrics.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from proceedings.core.errors import ProceedingsError

DATA_ENV = "RWOPD_NL2SVA_DIR"
FILES = {"human": "nl2sva_human.csv", "machine": "nl2sva_machine.csv"}
COLUMNS = ("design_name", "task_id", "prompt", "ref_solution", "testbench")


@dataclass
class Task:
    id: str
    prompt: str
    reference: str  # the full `assert property (...)` statement
    testbench: str
    category: str = ""
    ref_invalid: str = ""  # slang's diagnostic when the reference itself is not legal SystemVerilog


def data_dir(path: str | os.PathLike | None = None) -> Path:
    """Where the NL2SVA CSVs are: the argument, $RWOPD_NL2SVA_DIR, or the shared data folder."""
    candidates = [path, os.environ.get(DATA_ENV),
                  Path(__file__).resolve().parents[4] / "shared" / "data" / "rwopd", "/work/shared/data/rwopd"]
    for candidate in candidates:
        if candidate and (Path(candidate) / FILES["human"]).is_file():
            return Path(candidate)
    raise ProceedingsError(
        f"NL2SVA data not found; set ${DATA_ENV} to the folder holding {FILES['human']} and "
        f"{FILES['machine']} (FVEval, data_nl2sva/data/)")


def load_nl2sva(split: str, path: str | os.PathLike | None = None) -> list[Task]:
    """The tasks of `split` ('human' or 'machine'), each reference categorised and validated."""
    from proceedings.rwopd.categories import categorise_reference

    if split not in FILES:
        raise ProceedingsError(f"unknown NL2SVA split '{split}'; choose one of: {', '.join(FILES)}")
    file = data_dir(path) / FILES[split]
    with open(file, newline="") as handle:
        reader = csv.DictReader(handle)
        missing = set(COLUMNS) - set(reader.fieldnames or ())
        if missing:
            raise ProceedingsError(f"'{file}' lacks the columns {sorted(missing)}; is it an FVEval NL2SVA table?")
        rows = list(reader)
    tasks = []
    for row in rows:
        task = Task(row["task_id"], row["prompt"], row["ref_solution"], row["testbench"])
        task.category, task.ref_invalid = categorise_reference(task.reference, task.testbench)
        tasks.append(task)
    return tasks
