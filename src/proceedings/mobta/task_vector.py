"""Task vectors as dense per-parameter deltas, and their exact arithmetic (task arithmetic, Ilharco et al. 2023).

Spec §2.2: the task vector of a LoRA fine-tune is, per adapted module, the dense ΔW = (α/r)·B·A, plus the
deltas of the added tokens' embedding rows (with a tied head these are the head's rows too: counted once).
A full fine-tune's task vector is θ_ft - θ_0 for every parameter. Arithmetic (+, -, scalar ×) is done on
these dense deltas only, never on the LoRA factors A and B: (B1 - B2)(A1 - A2) is not B1·A1 - B2·A2, and
PEFT's negative-weight adapter merge is a known trap (peft #1907, #2796, #3004).

Every vector carries meta (cell format, base-model hash, tokenizer hash, grid, slot length); vectors that
disagree on any of them are refused, naming both. A digits-format fine-tune adds no tokens, so its vector
holds LoRA deltas only.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import torch

from proceedings.core.errors import ProceedingsError

COMPATIBLE = ("cell_format", "base_hash", "tokenizer_hash", "grid", "slot_minutes")  # format first: plainest message
META_KEY = "mobta"


def model_hash(model: torch.nn.Module) -> str:
    """sha256 of every parameter (name, shape, bytes): which base a vector was built on."""
    digest = hashlib.sha256()
    for name, param in model.named_parameters():
        digest.update(name.encode())
        digest.update(str(tuple(param.shape)).encode())
        digest.update(param.detach().to(torch.float32).contiguous().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def is_tied(model: torch.nn.Module) -> bool:
    head, embed = model.get_output_embeddings(), model.get_input_embeddings()
    return head is not None and head.weight is embed.weight


@dataclass
class TaskVector:
    deltas: dict[str, torch.Tensor]  # parameter name -> dense delta (rows `row_offset[name]:` for row deltas)
    meta: dict  # cell_format, base_hash, tokenizer_hash, grid, slot_minutes, name
    row_offset: dict[str, int] = field(default_factory=dict)  # embedding deltas that cover only the added rows

    @property
    def name(self) -> str:
        return self.meta.get("name", "task vector")

    # ---------------------------------------------------------------- construction
    @classmethod
    def between(cls, base: torch.nn.Module, finetuned: torch.nn.Module, meta: dict) -> "TaskVector":
        """θ_ft - θ_0 for every parameter of a full fine-tune (a tied head appears once in named_parameters)."""
        ft = dict(finetuned.named_parameters())
        deltas = {name: (ft[name].detach() - p.detach()).clone() for name, p in base.named_parameters()}
        return cls(deltas, dict(meta))

    @classmethod
    def from_lora(cls, peft_model, meta: dict, adapter: str = "default") -> "TaskVector":
        """Dense (α/r)·B·A per LoRA module plus the trained rows of the added tokens (PEFT trainable tokens)."""
        from peft.tuners.lora import LoraLayer
        from peft.tuners.trainable_tokens.layer import TrainableTokensLayer

        deltas, offsets = {}, {}
        for name, module in peft_model.named_modules():
            plain = name.removeprefix("base_model.model.")
            if isinstance(module, LoraLayer) and adapter in module.lora_A:
                a, b = module.lora_A[adapter].weight, module.lora_B[adapter].weight  # (r, in), (out, r)
                deltas[f"{plain}.weight"] = (module.scaling[adapter] * (b @ a)).detach().clone()
            elif isinstance(module, TrainableTokensLayer) and adapter in module.trainable_tokens_delta:
                if module.tied_adapter is not None:
                    continue  # a tied head shares the embedding's rows: counted once
                rows = module.token_indices[adapter]
                if rows != list(range(rows[0], rows[0] + len(rows))):
                    raise ProceedingsError("added-token rows must be contiguous to form a row delta")
                key = f"{plain.removesuffix('.token_adapter')}.weight"
                original = module.base_layer.weight[rows[0]:rows[0] + len(rows)]
                deltas[key] = (module.trainable_tokens_delta[adapter] - original).detach().clone()
                offsets[key] = rows[0]
        if not deltas:
            raise ProceedingsError("the model has no LoRA modules or trainable tokens for adapter "
                                   f"'{adapter}'; pass the PEFT model the fine-tune returned")
        return cls(deltas, dict(meta), offsets)

    # ---------------------------------------------------------------- arithmetic
    def _check(self, other: "TaskVector") -> None:
        for key in COMPATIBLE:
            if self.meta.get(key) != other.meta.get(key):
                raise ProceedingsError(f"cannot combine '{self.name}' ({key} {self.meta.get(key)}) with "
                                       f"'{other.name}' ({key} {other.meta.get(key)}): built on different {key}")
        for key in set(self.deltas) & set(other.deltas):
            if self.deltas[key].shape != other.deltas[key].shape or self.row_offset.get(key) != other.row_offset.get(key):
                raise ProceedingsError(f"'{self.name}' and '{other.name}' disagree on the shape of '{key}'")

    def __add__(self, other: "TaskVector") -> "TaskVector":
        self._check(other)
        deltas = {k: v.clone() for k, v in self.deltas.items()}
        for key, value in other.deltas.items():
            deltas[key] = deltas[key] + value if key in deltas else value.clone()
        name = f"({self.name} + {other.name})"
        return TaskVector(deltas, {**self.meta, "name": name}, {**other.row_offset, **self.row_offset})

    def __mul__(self, scalar: float) -> "TaskVector":
        if not isinstance(scalar, (int, float)):
            return NotImplemented
        return TaskVector({k: scalar * v for k, v in self.deltas.items()},
                          {**self.meta, "name": f"{scalar:g}*{self.name}"}, dict(self.row_offset))

    __rmul__ = __mul__

    def __neg__(self) -> "TaskVector":
        return -1.0 * self

    def __sub__(self, other: "TaskVector") -> "TaskVector":
        result = self + (-other)
        result.meta["name"] = f"({self.name} - {other.name})"
        return result

    def norm(self) -> float:
        return float(torch.sqrt(sum((v.double() ** 2).sum() for v in self.deltas.values())))

    def numel(self) -> int:
        return sum(v.numel() for v in self.deltas.values())

    # ---------------------------------------------------------------- use
    def apply_to(self, base: torch.nn.Module) -> torch.nn.Module:
        """A copy of `base` with every delta added densely; a tied base stays tied."""
        if "base_hash" in self.meta and model_hash(base) != self.meta["base_hash"]:
            raise ProceedingsError(f"'{self.name}' was built on base {self.meta['base_hash']}, "
                                   f"not on this model ({model_hash(base)})")
        merged = copy.deepcopy(base)
        params = dict(merged.named_parameters())
        with torch.no_grad():
            for key, delta in self.deltas.items():
                if key not in params:
                    raise ProceedingsError(f"'{self.name}' has a delta for '{key}', which the base model lacks")
                start = self.row_offset.get(key, 0)
                params[key][start:start + delta.shape[0]] += delta.to(params[key].dtype)
        if is_tied(base) and not is_tied(merged):
            raise ProceedingsError("merging untied the embedding and the head of a tied base model")
        return merged

    def save(self, path: Path | str) -> Path:
        from safetensors.torch import save_file

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = json.dumps({"meta": self.meta, "row_offset": self.row_offset})
        save_file({k: v.contiguous() for k, v in self.deltas.items()}, str(path), metadata={META_KEY: meta})
        return path

    @classmethod
    def load(cls, path: Path | str) -> "TaskVector":
        from safetensors import safe_open

        path = Path(path)
        if not path.exists():
            raise ProceedingsError(f"task vector '{path}' does not exist")
        try:
            with safe_open(str(path), framework="pt") as handle:
                stored = json.loads((handle.metadata() or {}).get(META_KEY, "null"))
                deltas = {key: handle.get_tensor(key) for key in handle.keys()}
        except Exception as err:
            raise ProceedingsError(f"'{path}' is not a task vector file ({str(err).splitlines()[0]})") from None
        if not stored:
            raise ProceedingsError(f"'{path}' has no MobTA meta (base hash, tokenizer hash, grid, slot)")
        # vectors saved before the digits format existed (round 15 and earlier) were all in the tokens format
        meta = {"cell_format": "tokens", **stored["meta"], "name": stored["meta"].get("name") or path.stem}
        return cls(deltas, meta, stored.get("row_offset", {}))


def evaluate_expression(expression: str, vectors: dict[str, TaskVector], scalars: dict[str, float]) -> TaskVector:
    """Evaluate e.g. "bus_T + mu*(mob_S - bus_S)" over named vectors and scalars: +, -, *, numbers, parentheses."""
    import ast

    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(left, TaskVector) and isinstance(right, TaskVector):
                raise ProceedingsError(f"'{expression}': two task vectors cannot be multiplied, only scaled by a number")
            return left * right
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id in vectors:
                return vectors[node.id]
            if node.id in scalars:
                return float(scalars[node.id])
            raise ProceedingsError(f"'{node.id}' in '{expression}' is neither a task vector nor a scalar")
        raise ProceedingsError(f"'{expression}': only +, -, *, numbers, names and parentheses are allowed")

    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ProceedingsError(f"'{expression}' is not an expression") from None
    result = walk(tree)
    if not isinstance(result, TaskVector):
        raise ProceedingsError(f"'{expression}' evaluates to a number, not a task vector")
    return result
