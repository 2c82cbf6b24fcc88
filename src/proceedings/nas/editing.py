"""The Editor: one batch of edits = solve v*, (NAS) anchor its norm, spread the residual over layers.

    z_r = (h0_r - v0_r) + v*_r                     target residual stream at the last edit layer
    for l in layers (ascending):                    MEMIT's spreading, spec §2.1 step 3
        K_l = keys at l (mean over context templates)
        R   = (z - h_current) / (layers remaining)
        W_l += rule(K_l, R)                         memit | alphaedit | rome (editors.py)
    alphaedit: cache_c_l += K_l K_l^T               the running preserved-key cache

Any NaN/Inf in v*, the solve or Delta W aborts the batch and restores the weights it touched.
Every batch returns a BatchRecord with the instrumented norms of spec §2.2.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.core.runtime import save_checkpoint
from proceedings.nas.activations import mean_by_owner, subject_activations
from proceedings.nas.corpus import corpus_hash, read_corpus
from proceedings.nas.covariance import key_second_moments, token_chunks
from proceedings.nas.editors import alphaedit_delta, memit_delta, nullspace_projector, rome_delta
from proceedings.nas.hparams import EditHparams
from proceedings.nas.model_layout import check_layers, edit_weight, layout_for
from proceedings.nas.norm_anchor import anchor, reference_norm
from proceedings.nas.prompts import build_batch, context_templates, key_rows
from proceedings.nas.requests import EditRequest
from proceedings.nas.value_solve import solve_values

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)
REF_CHUNK = 16  # requests per batched value solve when estimating rho (each converges on its own)


@dataclass
class BatchRecord:
    """What one batch did, with the norms that reveal the feedback loop (spec §2.2)."""

    n_requests: int
    status: str  # ok | failed_numerics
    case_ids: list[str] = field(default_factory=list)
    weight_norm: dict[int, float] = field(default_factory=dict)  # ||W_l||_F after the batch
    update_norm: dict[int, float] = field(default_factory=dict)  # ||Delta W_l||_F
    v0_norm: float = 0.0  # means over the batch's requests
    delta_norm: float = 0.0
    v_star_raw_norm: float = 0.0
    v_star_norm: float = 0.0  # after NAS (= raw without NAS)
    v_star_norms: list[float] = field(default_factory=list)  # per request, after NAS
    key_norm: float = 0.0
    nll: float = 0.0  # target NLL where each request's value solve stopped (mean)
    solve_steps: float = 0.0  # gradient steps per request (mean)
    cap_hit: float = 0.0  # fraction of requests whose solve reached the step cap without converging
    clamp_hit: float = 0.0  # fraction of requests whose delta ends on the clamp radius
    skipped: int = 0  # NAS outlier skips
    rho: float | None = None
    seconds: float = 0.0

    def to_json(self) -> dict:
        return asdict(self)


class Editor:
    """Sequential locate-and-edit editing of one model; NAS is `hp.nas`."""

    def __init__(self, model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", hp: EditHparams,
                 cache_dir: Path | None = None, corpus: str | Path | None = None) -> None:
        self.model, self.tok, self.hp = model, tok, hp
        self.layout = layout_for(model, hp.rewrite_module_tmp)
        check_layers(model, hp.layers)
        self.cache_dir = Path(cache_dir) if cache_dir else cache_root() / "nas"
        self.corpus = corpus
        self._corpus_id: dict[str, str] | None = None
        self.model_hash = model_hash(model)
        self.templates: list[str] = []
        self.C: dict[int, torch.Tensor] = {}
        self.P: dict[int, torch.Tensor] = {}
        self.cache_c: dict[int, torch.Tensor] = {}
        self.rho: float | None = None

    # ---------------------------------------------------------------- preparation (cached)
    def prepare(self, reference_requests: Sequence[EditRequest] | None = None, templates: list[str] | None = None) -> "Editor":
        """Context templates, C_0 per layer, AlphaEdit's projector and cache, and rho (NAS)."""
        import torch

        hp = self.hp
        self.templates = templates or context_templates(self.model, self.tok, hp.context_prefixes, hp.context_length)
        self.C = self.covariances()
        if hp.method == "alphaedit":
            self.P = {layer: nullspace_projector(C, hp.nullspace_threshold) for layer, C in self.C.items()}
            self.cache_c = {layer: torch.zeros_like(C) for layer, C in self.C.items()}
            for layer, P in self.P.items():
                log.info("layer %d: null space of C_0 has dimension %d", layer, round(float(P.trace())))
        if hp.nas:
            self.rho = hp.nas_rho if hp.nas_rho is not None else self.reference_norm(reference_requests)
        return self

    def corpus_id(self) -> dict[str, str]:
        """Which text C_0 comes from: its path ('built-in' without one) and content hash."""
        if self._corpus_id is None:
            self._corpus_id = {"path": str(self.corpus) if self.corpus else "built-in",
                               "hash": corpus_hash(read_corpus(self.corpus))}
        return self._corpus_id

    def covariances(self) -> dict[int, "torch.Tensor"]:
        """C_0 for every edit layer, from the cache or collected now (resumably)."""
        import torch

        hp, device = self.hp, next(self.model.parameters()).device
        documents = read_corpus(self.corpus)
        tag = f"{self.corpus_id()['hash']}-{hp.stats_tokens}-{hp.stats_seq_len}"
        folder = self.cache_dir / "stats" / self.model_hash
        files = {layer: folder / f"{tag}-L{layer}.pt" for layer in hp.layers}
        missing = [layer for layer, path in files.items() if not path.exists()]
        if missing:
            chunks = token_chunks(self.tok, documents, hp.stats_tokens, hp.stats_seq_len)
            partial = folder / f"{tag}-partial-{'-'.join(map(str, missing))}.pt"  # running sums, for resuming
            found = key_second_moments(self.model, self.layout, missing, chunks, partial)
            for layer in missing:
                save_checkpoint(files[layer], {"C": found[layer].cpu(), "tokens": hp.stats_tokens})
            partial.unlink(missing_ok=True)
        return {layer: torch.load(path, map_location=device)["C"].to(device) for layer, path in files.items()}

    def reference_norm(self, requests: Sequence[EditRequest] | None) -> float:
        """rho at the last edit layer (where v* lives), cached under the full key."""
        from proceedings.nas.facts import REFERENCE_SEED, table_requests

        hp = self.hp
        requests = list(requests or table_requests(hp.nas_n_ref, seed=REFERENCE_SEED))[: hp.nas_n_ref]
        layer = hp.layers[-1]
        key = {"model": self.model_hash, "layer": layer, "n_ref": len(requests), "hparams": hp.value_solve_key(),
               "trim_quantile": hp.nas_trim_quantile, "templates": self.templates,
               "requests": hashlib.sha256(repr([(r.prompt, r.subject, r.target_new) for r in requests]).encode()).hexdigest()[:16]}

        def solve_norms() -> list[float]:
            import torch
            from proceedings.core.progress import progress_bar

            norms, chunk = [], REF_CHUNK
            with progress_bar(total=len(requests), desc="reference norm rho", leave=False) as bar:
                while len(norms) < len(requests):
                    group = requests[len(norms):len(norms) + chunk]
                    try:
                        solution = solve_values(self.model, self.tok, self.layout, hp, group, self.templates)
                    except torch.OutOfMemoryError:
                        if chunk == 1:
                            raise
                        chunk //= 2  # as the public code does: halve the batch and retry
                        log.warning("out of memory while estimating rho; retrying with %d requests per solve", chunk)
                        continue
                    norms += solution.v_star.norm(dim=1).tolist()
                    bar.update(len(group))
            return norms

        return reference_norm(solve_norms, self.cache_dir / "rho" / f"{self.model_hash}-L{layer}.json", key,
                              hp.nas_trim_quantile)

    # ---------------------------------------------------------------- one batch of edits
    def edit(self, requests: Sequence[EditRequest]) -> BatchRecord:
        """Apply one batch of edits in place; on NaN/Inf leave the weights unchanged."""
        import torch

        if not self.templates:
            raise ProceedingsError("call Editor.prepare() before Editor.edit()")
        if self.hp.method == "rome" and len(requests) != 1:
            raise ProceedingsError(f"ROME edits one request at a time; got a batch of {len(requests)}")
        started = time.perf_counter()
        hp, layers = self.hp, self.hp.layers
        record = BatchRecord(n_requests=len(requests), status="ok", case_ids=[r.case_id for r in requests], rho=self.rho)
        snapshot = {layer: edit_weight(self.model, self.layout, layer).detach().clone() for layer in layers}
        solution = solve_values(self.model, self.tok, self.layout, hp, requests, self.templates)
        v_star = solution.v_star
        if hp.nas:
            anchored = anchor(v_star, solution.v0, self.rho, hp.nas_skip_factor, hp.nas_eps)
            v_star, record.skipped = anchored.v_star, int(anchored.skipped.sum())
        record.v0_norm = _mean_norm(solution.v0)
        record.delta_norm = _mean_norm(solution.delta)
        record.v_star_raw_norm = _mean_norm(solution.v_star)
        record.v_star_norms = v_star.norm(dim=1).tolist()
        record.v_star_norm = float(sum(record.v_star_norms) / len(requests))
        record.nll = float(solution.nll.mean())
        record.solve_steps = float(solution.steps.float().mean())
        record.cap_hit = float(solution.capped.float().mean())
        record.clamp_hit = float(solution.clamped.float().mean())
        z = solution.h0 - solution.v0 + v_star  # (n, d) target block output at the last edit layer
        keys = self._spread(requests, z, record) if torch.isfinite(z).all() else None
        if keys is None:
            record.status = "failed_numerics"
            with torch.no_grad():
                for layer, weight in snapshot.items():
                    edit_weight(self.model, self.layout, layer).copy_(weight)
            log.warning("batch %s aborted: non-finite values; weights restored", record.case_ids)
        elif hp.method == "alphaedit":
            for layer, K in keys.items():
                self.cache_c[layer] += K @ K.T
        record.weight_norm = self.weight_norms()
        record.seconds = time.perf_counter() - started
        return record

    def _spread(self, requests, z, record: BatchRecord) -> dict[int, "torch.Tensor"] | None:
        """MEMIT's layer loop; returns the keys per layer, or None when a solve was not finite."""
        import torch

        layers, last = self.hp.layers, self.hp.layers[-1]
        n, n_templates = len(requests), len(self.templates)
        batch = build_batch(self.tok, key_rows(requests, self.templates), z.device)
        bare_rows = torch.arange(n, device=z.device) * n_templates  # template '{}' comes first
        keys = {}
        for i, layer in enumerate(layers):
            found = subject_activations(self.model, self.layout, sorted({layer, last}), batch)
            K = mean_by_owner(found["key", layer], batch.owner, n).T.double()  # (d_ff, n)
            R = (z - found["h", last][bare_rows]).T.double() / (len(layers) - i)  # (d, n)
            delta_w = self._rule(layer, K, R)
            if not torch.isfinite(delta_w).all():
                return None
            weight = edit_weight(self.model, self.layout, layer)
            with torch.no_grad():
                weight.add_(delta_w.to(weight.dtype))
            record.update_norm[layer] = float(delta_w.norm())
            keys[layer] = K
        record.key_norm = float(keys[last].norm(dim=0).mean())
        return keys

    def _rule(self, layer: int, K: "torch.Tensor", R: "torch.Tensor") -> "torch.Tensor":
        hp = self.hp
        if hp.method == "memit":
            return memit_delta(K, R, self.C[layer], hp.mom2_update_weight)
        if hp.method == "alphaedit":
            return alphaedit_delta(K, R, self.P[layer], self.cache_c[layer], hp.l2)
        return rome_delta(K, R, self.C[layer])

    def weight_norms(self) -> dict[int, float]:
        """||W_l||_F of every edit layer as it is now."""
        return {layer: float(edit_weight(self.model, self.layout, layer).detach().norm()) for layer in self.hp.layers}

    # ---------------------------------------------------------------- state for checkpoints
    def state(self) -> dict:
        """What a resumed stream needs: the edited weights and AlphaEdit's running cache."""
        return {"weights": {layer: edit_weight(self.model, self.layout, layer).detach().clone() for layer in self.hp.layers},
                "cache_c": {layer: c.clone() for layer, c in self.cache_c.items()}}

    def load_state(self, state: dict) -> None:
        import torch

        with torch.no_grad():
            for layer, weight in state["weights"].items():
                edit_weight(self.model, self.layout, layer).copy_(weight)
        self.cache_c = {layer: c.clone() for layer, c in state["cache_c"].items()}


def model_hash(model: "PreTrainedModel") -> str:
    """A content hash of the model's weights and configuration (keys every cache)."""
    import torch

    digest = hashlib.blake2b(digest_size=12)
    digest.update(model.config.to_json_string().encode())
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def _mean_norm(rows: "torch.Tensor") -> float:
    return float(rows.norm(dim=1).mean())
