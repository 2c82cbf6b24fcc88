"""A public name served lazily from a submodule of the same name is refused when the package is defined.

`from proceedings.nvium import train` returned the module `nvium/train.py`, not the function: the import
system binds a submodule to its package's attribute once anyone imports it, which hides the lazy
`__getattr__`. `lazy_exports` now refuses such a table, so the package fails to import at all.
"""

import importlib
import subprocess
import sys
import types

import pytest

from proceedings.core.lazy import lazy_exports


def test_a_name_served_by_its_own_submodule_is_refused():
    with pytest.raises(ValueError, match="train would be shadowed by the submodule"):
        lazy_exports("proceedings.example", {"train": "train", "TrainConfig": "train"})


def test_the_refused_layout_really_hands_out_the_module(tmp_path):
    """Why the rule exists, shown on a throwaway package built the way nvium was."""
    package = tmp_path / "shadowdemo"
    package.mkdir()
    (package / "train.py").write_text("def train():\n    return 'the function'\n")
    (package / "__init__.py").write_text(
        "from importlib import import_module\n"
        "def __getattr__(name):\n"
        "    if name == 'train':\n"
        "        return import_module(__name__ + '.train').train\n"
        "    raise AttributeError(name)\n")
    code = "import shadowdemo\nfrom shadowdemo import train\nprint(type(train).__name__)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert run.stdout.strip() == "module", run.stderr


@pytest.mark.parametrize("system", ["nvium", "dockwizard", "mobta"])
def test_the_renamed_systems_hand_out_functions(system):
    names = {"nvium": ("train", "evaluate"), "dockwizard": ("evaluate",), "mobta": ("finetune",)}[system]
    package = importlib.import_module(f"proceedings.{system}")
    for name in names:
        assert not isinstance(getattr(package, name), types.ModuleType), f"{system}.{name}"
