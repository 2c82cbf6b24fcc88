"""Configuration of the watermarks and of training, one dataclass per concept (paper §3, spec §2).

Values marked "inferred" are our reconstruction: the paper's abstract does not give them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

METHODS = ("pro", "kgw-distill")
FPL_KINDS = ("ft", "merge", "noise")
MIXED_PRECISION = (None, "no", "bf16")  # None: Accelerate's own setting (`accelerate launch --mixed_precision`)


@dataclass
class KGWConfig:
    """Decoding-time KGW watermark (Kirchenbauer et al. 2023), the teacher of the baseline."""

    gamma: float = 0.25  # green-list fraction (Gu et al. distil gamma=0.25)
    delta: float = 2.0  # logit bias on green tokens (Gu et al.)
    k: int = 1  # previous tokens hashed into the green-list seed
    hash_key: int = 15485863  # the secret; any integer


@dataclass
class PolicyConfig:
    """PRO's watermark policy pi(prefix) = delta * M(E(x_{i-n+1..i})) (paper §3.1; sizes inferred)."""

    n: int = 2  # context width in tokens (inferred; spec default 4, 2 learns faster at small scale)
    feature_dim: int = 64  # per-token feature of the frozen `tokbag` encoder
    hidden: int = 512  # MLP width (SIR's mapping network uses 512)
    output: str = "full"  # "full": hidden -> |V| scores (spec §2.1); "embedding": frozen token features @ direction
    delta: float = 2.0  # watermark strength added to the teacher's logits
    gamma: float = 0.5  # green fraction the balance terms enforce; the z-test uses it
    seed: int = 0  # draws the frozen encoder projection and the initial MLP


@dataclass
class LossWeights:
    """Weights of the CAWP objective's terms (spec §2.2, inferred) and of the FPL regularizer."""

    balance: float = 1.0
    unbiased: float = 1.0
    learn: float = 0.1  # learnability: the student's expected green mass under the current policy
    null: float = 10.0  # our addition: the original model's expected green rate stays gamma (objectives.py)
    floor: float = 1.0  # our addition: the teacher's mark may not fade below its calibrated strength
    magnitude: float = 0.1
    fpl: float = 0.1  # spec suggests 0.5; 0.1 matches detect (same units), 0.5 costs PPL (tiny, measured)


@dataclass
class TrainConfig:
    """One watermark-embedding run: which method, how long, what is trained."""

    method: str = "pro"  # one of METHODS
    steps: int = 100
    target_kl: float | None = None  # calibrate delta so KL(teacher || original) equals this; None: delta as given
    batch_size: int = 4
    seq_len: int = 96
    train_layers: int | None = 4  # top decoder layers trained; None = every decoder layer
    lr_model: float = 1e-4  # Gu et al. use 1e-5 for 5,000-step full runs
    lr_policy: float = 1e-3
    warmup: float = 0.1  # fraction of steps of linear warm-up before the cosine decay
    fpl: bool = True  # PRO's perturbation-aware regularizer; False = the PRO-noFPL ablation
    fpl_kinds: tuple[str, ...] = FPL_KINDS  # simulated modifications, cycled step by step
    fpl_every: int = 1
    fpl_merge_max: float = 0.5  # merge ratio alpha ~ U(0, fpl_merge_max) toward the original weights
    fpl_ft_step: float = 1e-3  # forgetting step length, relative to each tensor's norm (inferred)
    fpl_noise: float = 0.01  # Gaussian noise std, relative to each tensor's std (inferred)
    freeze_policy: bool = False  # the frozen-random-policy ablation
    policy_warmup_steps: int = 100  # policy-only steps on balance + magnitude before joint training
    floor_fraction: float = 1.0  # the teacher's green gap stays >= this x its gap at calibration (PRO)
    recalibrate_every: int = 5  # PRO with target_kl: re-bisect delta to target_kl every this many steps (0: never)
    weights: LossWeights = field(default_factory=LossWeights)
    mixed_precision: str | None = None  # "bf16" on GPUs: fp32 weights, bf16 compute (Accelerate autocast)
    checkpoint_every: int = 25
    keep_checkpoints: int = 2
    seed: int = 0
