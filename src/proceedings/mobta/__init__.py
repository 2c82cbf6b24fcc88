"""MobTA: bus-conditioned zero-shot trajectory generation by task arithmetic (arXiv 2602.13071).

A target city has bus timetables but no mobility data. Fine-tune one base LLM on bus trips and on
person-days of a source city, and on the target's bus trips; the target's mobility model is then
θ_0 + τ_bus^T + μ(τ_mob^S - τ_bus^S), built by exact dense task-vector arithmetic.

Public names: City, TrajTokenizer, TaskVector, person_days, finetune, sample, evaluate.
"""

from proceedings.mobta.city import City
from proceedings.mobta.metrics import evaluate
from proceedings.mobta.simulator import person_days
from proceedings.mobta.tokenization import TrajTokenizer

__all__ = ["City", "TrajTokenizer", "TaskVector", "person_days", "finetune", "sample", "evaluate"]


def __getattr__(name: str):
    """torch-dependent names load on first use, so `import proceedings.mobta` stays light."""
    if name == "TaskVector":
        from proceedings.mobta.task_vector import TaskVector
        return TaskVector
    if name == "finetune":
        from proceedings.mobta.finetune import finetune
        return finetune
    if name == "sample":
        from proceedings.mobta.generation import sample
        return sample
    raise AttributeError(name)
