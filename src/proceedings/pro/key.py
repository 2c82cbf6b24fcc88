"""The secret key: everything a detector needs, kept apart from the released weights.

A key directory holds `config.json` (the watermark kind, its parameters and the hash of the
tokenizer's vocabulary) and, for PRO, `policy.safetensors` (the trained MLP and the frozen encoder).
The released model directory must never contain a key (spec §7); `save_key` refuses to write into
a model directory and `release_model` refuses a directory that holds a key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.pro.config import KGWConfig, PolicyConfig

KEY_FORMAT = 1


def tokenizer_hash(tokenizer) -> str:
    """Short sha256 of the vocabulary (token -> id): the same text means the same ids."""
    vocab = sorted(tokenizer.get_vocab().items())
    return hashlib.sha256(json.dumps(vocab, ensure_ascii=False).encode()).hexdigest()[:16]


@dataclass
class Key:
    kind: str  # "pro" or "kgw"
    tokenizer_hash: str
    vocab_size: int
    policy: PolicyConfig | None = None
    kgw: KGWConfig | None = None
    policy_state: dict | None = None  # tensors of the WatermarkPolicy (PRO only)

    @property
    def params(self) -> dict:
        """gamma, delta and context width: the values generator and detector must agree on."""
        cfg = self.policy if self.kind == "pro" else self.kgw
        return {"gamma": cfg.gamma, "delta": cfg.delta, "n": cfg.n if self.kind == "pro" else cfg.k}

    def build_policy(self):
        """The WatermarkPolicy this key describes (PRO keys only)."""
        from proceedings.pro.policy import TokenBagEncoder, WatermarkPolicy

        encoder = TokenBagEncoder(self.policy_state["encoder.table"], self.policy.n)
        policy = WatermarkPolicy(encoder, self.vocab_size, self.policy)
        policy.load_state_dict(self.policy_state)
        return policy.eval().requires_grad_(False)


def pro_key(policy, tokenizer) -> Key:
    state = {name: t.detach().cpu().contiguous() for name, t in policy.state_dict().items()}
    return Key("pro", tokenizer_hash(tokenizer), policy.vocab_size, policy=policy.config, policy_state=state)


def kgw_key(config: KGWConfig, tokenizer) -> Key:
    return Key("kgw", tokenizer_hash(tokenizer), len(tokenizer), kgw=config)


def save_key(key: Key, directory: Path | str) -> Path:
    from safetensors.torch import save_file

    directory = Path(directory)
    if (directory / "config.json").exists() and not (directory / "key.json").exists():
        raise ProceedingsError(f"'{directory}' looks like a model directory; keys are stored apart from models")
    directory.mkdir(parents=True, exist_ok=True)
    record = {"format": KEY_FORMAT, "kind": key.kind, "tokenizer_hash": key.tokenizer_hash,
              "vocab_size": key.vocab_size,
              "policy": asdict(key.policy) if key.policy else None, "kgw": asdict(key.kgw) if key.kgw else None}
    if key.policy_state is not None:
        save_file(key.policy_state, str(directory / "policy.safetensors"))
    atomic_write_text(directory / "key.json", json.dumps(record, indent=2) + "\n")
    return directory


def load_key(directory: Path | str) -> Key:
    from safetensors.torch import load_file

    directory = Path(directory)
    path = directory / "key.json"
    if not path.is_file():
        raise ProceedingsError(f"'{directory}' is not a watermark key (no key.json); pass the key/ folder "
                               "that `proceedings pro train` wrote")
    record = json.loads(path.read_text())
    if record.get("format") != KEY_FORMAT:
        raise ProceedingsError(f"key '{directory}' has format {record.get('format')}, expected {KEY_FORMAT}")
    policy = PolicyConfig(**record["policy"]) if record["policy"] else None
    kgw = KGWConfig(**record["kgw"]) if record["kgw"] else None
    state = load_file(str(directory / "policy.safetensors")) if record["kind"] == "pro" else None
    return Key(record["kind"], record["tokenizer_hash"], record["vocab_size"], policy, kgw, state)
