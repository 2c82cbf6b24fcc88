"""Per-object captions: short category phrases (LayoutSAM-like) and rich template captions (spec §2.2 step 2, 7).

A rich caption follows the spec's fixed order: size, colour, shape, texture, position, then relations
to overlapping neighbours ("partially hidden behind ...", "in front of ...") and visibility. Relation
text is a deterministic template from geometry and the front object; the structured overlap fields
stay the source of truth.
"""

from __future__ import annotations

CAPTION_MODES = ("short", "rich")
ROWS, COLUMNS = ("upper", "middle", "lower"), ("left", "centre", "right")
MAX_RELATIONS = 2


def label(attributes: dict) -> str:
    """The short category phrase, e.g. "red circle"."""
    return f"{attributes['colour']} {attributes['shape']}"


def short_caption(attributes: dict) -> str:
    """LayoutSAM-like: "a red circle" (3 words)."""
    return f"a {label(attributes)}"


def position_phrase(cx: float, cy: float) -> str:
    """Where a centre lies on a 3x3 grid of the image ("upper left", "middle centre", ...)."""
    row, column = ROWS[min(int(cy * 3), 2)], COLUMNS[min(int(cx * 3), 2)]
    return "centre" if (row, column) == ("middle", "centre") else f"{row} {column}"


def rich_caption(attributes: dict, cx: float, cy: float, behind: list[str], in_front_of: list[str],
                 visible_fraction: float) -> str:
    """OverLay++-like: attributes, position, occlusion relations and visibility (20-30 words)."""
    words = " ".join(filter(None, ("a", attributes.get("size"), attributes["colour"], attributes["shape"])))
    if attributes.get("texture"):  # the annotate pipeline knows no texture
        words += f" with a {attributes['texture']} surface"
    words += f" in the {position_phrase(cx, cy)} of the picture"
    relations = [f"partially hidden behind the {other}" for other in behind[:MAX_RELATIONS]]
    relations += [f"in front of the {other}" for other in in_front_of[:MAX_RELATIONS - len(relations)]]
    if relations:
        words += ", " + " and ".join(relations)
        words += f", about {int(round(100 * visible_fraction / 10) * 10)} percent visible"
    else:
        words += ", with nothing overlapping it"
    return words


def relation_text(back: str, front: str) -> str:
    """The overlap record's relation: "the red circle is partially behind the blue square"."""
    return f"the {back} is partially behind the {front}"


def global_caption(labels: list[str]) -> str:
    listed = ", ".join(f"a {name}" for name in labels)
    return f"a picture of {len(labels)} objects: {listed}"


def word_count(text: str) -> int:
    return len(text.replace(",", " ").split())
