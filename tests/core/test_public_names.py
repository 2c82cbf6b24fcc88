"""Every system's public names stay what they are after the system's own modules are imported.

A package whose public function shares its name with a submodule (`nvium.train` in `nvium/train.py`)
hands out the function only until that submodule is imported by anyone: the import system then binds
the module to the package's attribute. The check runs in a fresh interpreter, where no earlier test has
imported anything yet.
"""

import subprocess
import sys

CHECK = """
import importlib, pkgutil, proceedings
for system in pkgutil.iter_modules(proceedings.__path__):
    if not system.ispkg:
        continue
    package = importlib.import_module(f"proceedings.{system.name}")
    submodules = {module.name for module in pkgutil.iter_modules(package.__path__)}
    for name in sorted(set(getattr(package, "__all__", ())) & submodules):
        before = getattr(package, name)
        importlib.import_module(f"{package.__name__}.{name}")
        after = getattr(package, name)
        if after is not before:
            print(f"{package.__name__}.{name} was {before!r}, becomes {after!r} once the submodule is imported")
"""


def test_no_public_name_is_shadowed_by_a_submodule():
    run = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert not run.stdout, run.stdout
