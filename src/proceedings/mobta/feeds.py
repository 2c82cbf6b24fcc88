"""Where the timetables come from: the two real feeds shipped in gtfs-kit's source distribution, procedural
cities, or any GTFS zip.

`make setup` downloads the `gtfs-kit==13.0.1` sdist with pip and extracts `data/cairns_gtfs.zip` (Cairns,
Translink Queensland, 2014) and `data/nyc_subway_gtfs.zip` (NYC subway subset, MTA, 2025) into
`<venv>/share/mobta/`; the feeds are not committed (the agencies' terms apply). A procedural city
("synthetic:monocentric:0"; "synthetic:polycentric:1:40" for a 40 x 40 km box instead of 20 x 20) is
generated once and cached under $PROCEEDINGS_CACHE/mobta/.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.mobta.city import City
from proceedings.mobta.synthetic_city import CityDesign, generate_city

SHIPPED = {"cairns": "cairns_gtfs.zip", "nyc_subway": "nyc_subway_gtfs.zip"}


def shipped_feed_dir() -> Path:
    return Path(sys.prefix) / "share" / "mobta"


def feed_path(spec: str, design: CityDesign = CityDesign()) -> Path:
    """A GTFS zip for 'cairns', 'nyc_subway', 'synthetic:<layout>:<seed>[:<size km>]' or a path."""
    if spec in SHIPPED:
        path = shipped_feed_dir() / SHIPPED[spec]
        if not path.exists():
            raise ProceedingsError(f"the {spec} feed is not at '{path}'; run `make setup` (it extracts the feeds "
                                   "from the gtfs-kit==13.0.1 source distribution) or pass --feed PATH")
        return path
    if spec.startswith("synthetic:"):
        try:
            _, layout, seed, *size = spec.split(":")
            design, seed = replace(design, layout=layout), int(seed)
            if size:
                (size_km,) = size
                design = replace(design, size_km=float(size_km))
        except ValueError:
            raise ProceedingsError(f"'{spec}': write a procedural city as synthetic:<layout>:<seed>[:<size km>]") from None
        key = hashlib.sha256(json.dumps([asdict(design), seed]).encode()).hexdigest()[:12]
        path = cache_root() / "mobta" / "cities" / f"{layout}-{seed}-{key}.zip"
        if not path.exists():  # generated beside, then renamed: an interrupted run leaves no half file
            generate_city(path.with_suffix(".partial"), design, seed).replace(path)
        return path
    path = Path(spec)
    if not path.exists():
        raise ProceedingsError(f"no GTFS feed '{spec}'; pass a zip path, {', '.join(SHIPPED)} or synthetic:<layout>:<seed>[:<size km>]")
    return path


def load_city(spec: str, grid: int = 16, design: CityDesign = CityDesign()) -> City:
    city = City.from_gtfs(feed_path(spec, design), grid)
    city.name = spec.split("/")[-1]
    return city
