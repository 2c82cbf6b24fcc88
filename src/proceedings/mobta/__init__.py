"""MobTA: bus-conditioned zero-shot trajectory generation by task arithmetic (arXiv 2602.13071).

A target city has bus timetables but no mobility data. Fine-tune one base LLM on bus trips and on
person-days of a source city, and on the target's bus trips; the target's mobility model is then
θ_0 + τ_bus^T + μ(τ_mob^S - τ_bus^S), built by exact dense task-vector arithmetic.

Public names: City, TrajTokenizer, TaskVector, person_days, finetune, sample, evaluate.
"""

from proceedings.core.lazy import lazy_exports
from proceedings.mobta.city import City
from proceedings.mobta.metrics import evaluate
from proceedings.mobta.simulator import person_days
from proceedings.mobta.tokenization import TrajTokenizer

# torch-dependent names load on first use, so `import proceedings.mobta` stays light.
_LAZY = {"TaskVector": "task_vector", "finetune": "finetuning", "sample": "generation"}
__all__ = ["City", "TrajTokenizer", "TaskVector", "person_days", "finetune", "sample", "evaluate"]
__getattr__ = lazy_exports(__name__, _LAZY)
