"""Lazy public names for system packages.

`proceedings list` imports every system's package to find its experiment; a package that imported its
models eagerly would make that command pay for torch and numpy. A package instead declares which
submodule holds each public name and binds `__getattr__ = lazy_exports(__name__, names)` (PEP 562):
the submodule is imported on first access.
"""

from importlib import import_module


def lazy_exports(package: str, names: dict[str, str], modules: tuple[str, ...] = ()):
    """A module-level `__getattr__` serving `names` (public name -> submodule of `package` defining it)
    and `modules` (submodules of `package` exported as themselves, e.g. `proceedings.pro.attacks`)."""

    def __getattr__(name: str):
        if name in modules:
            return import_module(f"{package}.{name}")
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{names[name]}"), name)

    return __getattr__
