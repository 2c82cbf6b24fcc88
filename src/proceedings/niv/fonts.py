"""Where the fonts come from: Google Fonts families shipped as `fontpkg-<family>` wheels (spec §4).

Each wheel installs a package `fontpkg_<slug>` with `files/*.ttf` and a `metadata.json` that marks
the variable files (`"variable": true`). Nothing is downloaded at run time: a family that is not
installed is named in the error, with the pip line that installs it.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from proceedings.core.errors import ProceedingsError

log = logging.getLogger(__name__)
MAX_FONT_BYTES = 50 * 1024 * 1024  # fonts are untrusted binaries: cap what we parse (spec §7)


@dataclass(frozen=True)
class FontFile:
    family: str  # the family's name, e.g. "Open Sans"; splits are by family, Roman and Italic together
    slug: str  # fontpkg slug, e.g. "open-sans"
    path: Path
    style: str  # "normal" or "italic"


def family_root(slug: str) -> Path:
    """The installed `fontpkg_<slug>` folder."""
    module = "fontpkg_" + slug.replace("-", "_")
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ProceedingsError(f"font family '{slug}' is not installed; `pip install fontpkg-{slug}` "
                               "(the [niv] extra pins the families the presets use)")
    return Path(list(spec.submodule_search_locations)[0])


def variable_files(slug: str) -> list[FontFile]:
    """The family's variable TTFs, as its `metadata.json` lists them (Roman first, then Italic)."""
    root = family_root(slug)
    meta = json.loads((root / "metadata.json").read_text())
    files = [FontFile(meta["family"], slug, root / f["path"], f.get("style") or "normal")
             for f in meta["files"] if f.get("variable") and f["path"].endswith(".ttf")]
    return sorted(files, key=lambda f: (f.style != "normal", f.path.name))


def installed_families() -> list[str]:
    """Slugs of every installed `fontpkg-<family>` wheel that ships a variable TTF (the `paper` preset trains on
    all of them but the held-out ones)."""
    from importlib import metadata

    slugs = sorted({d.metadata["Name"].lower()[len("fontpkg-"):] for d in metadata.distributions()
                    if (d.metadata["Name"] or "").lower().startswith("fontpkg-")})
    return [slug for slug in slugs if variable_files(slug)]


def directory_files(root: Path | str) -> list[FontFile]:
    """The variable TTFs under a local font tree (e.g. a google/fonts checkout, for `--fonts-dir`), each under
    its own family name (typographic, else legacy) and a slug made from it as the fontpkg wheels are named."""
    root = Path(root)
    if not root.is_dir():
        raise ProceedingsError(f"fonts dir '{root}' is not a directory")
    found = []
    for path in sorted(root.rglob("*.ttf")):
        try:
            font = open_font(path, lazy=True)
        except ProceedingsError as err:
            log.warning("skipping %s", err)
            continue
        if "fvar" in font:
            family = font["name"].getBestFamilyName()
            slug = re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-")
            found.append(FontFile(family, slug, path, "italic" if font["head"].macStyle & 2 else "normal"))
    if not found:
        raise ProceedingsError(f"no variable TrueType fonts under '{root}'")
    return sorted(found, key=lambda f: (f.slug, f.style != "normal", f.path.name))


def static_files(slug: str) -> list[Path]:
    """The family's static TTFs (handwriting families such as Caveat may ship only variable ones)."""
    root = family_root(slug)
    meta = json.loads((root / "metadata.json").read_text())
    return [root / f["path"] for f in meta["files"] if not f.get("variable") and f["path"].endswith(".ttf")]


def open_font(path: Path | str, lazy: bool = False):
    """A TTFont, or a one-line error when the file is missing, too large, not a font, or truncated."""
    from fontTools.ttLib import TTFont, TTLibError

    path = Path(path)
    if not path.is_file():
        raise ProceedingsError(f"'{path}' does not exist")
    if path.stat().st_size > MAX_FONT_BYTES:
        raise ProceedingsError(f"'{path}' is larger than {MAX_FONT_BYTES >> 20} MB; refusing to parse it")
    try:
        font = TTFont(path, lazy=lazy)
        size = path.stat().st_size
        short = [tag for tag, entry in font.reader.tables.items() if entry.offset + entry.length > size]
        if short:
            raise ProceedingsError(f"'{path}' is truncated: table(s) {', '.join(short)} run past the end of the file")
        font.getGlyphOrder()
        for tag in ("head", "maxp", "hmtx", "cmap"):
            if tag in font:
                font[tag]  # decompile now, so a truncated table fails here, by name
    except ProceedingsError:
        raise
    except (TTLibError, AssertionError, EOFError, KeyError, ValueError, IndexError, TypeError) as err:
        raise ProceedingsError(f"'{path}' is not a readable font file ({type(err).__name__}: {err})") from None
    except Exception as err:  # struct.error and friends from a truncated table
        raise ProceedingsError(f"'{path}' is not a readable font file: truncated or damaged ({err})") from None
    return font
