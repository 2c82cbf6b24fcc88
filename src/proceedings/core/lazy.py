"""Lazy public names for system packages.

`proceedings list` imports every system's package to find its experiment; a package that imported its
models eagerly would make that command pay for torch and numpy. A package instead declares which
submodule holds each public name and binds `__getattr__ = lazy_exports(__name__, names)` (PEP 562):
the submodule is imported on first access.
"""

from importlib import import_module


def lazy_exports(package: str, names: dict[str, str], modules: tuple[str, ...] = ()):
    """A module-level `__getattr__` serving `names` (public name -> submodule of `package` defining it)
    and `modules` (submodules of `package` exported as themselves, e.g. `proceedings.pro.attacks`).

    A name may not be served by a submodule of the same name (`train` from `train.py`): once anyone
    imports that submodule, the import system binds the module to the package's attribute and
    `from package import train` hands out the module instead of the function."""
    shadowed = sorted(name for name, module in names.items() if name == module)
    if shadowed:
        raise ValueError(f"{package}: public name(s) {', '.join(shadowed)} would be shadowed by the submodule of the "
                         "same name; rename the submodule")

    def __getattr__(name: str):
        if name in modules:
            return import_module(f"{package}.{name}")
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{names[name]}"), name)

    return __getattr__
