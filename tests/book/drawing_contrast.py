"""The contrast of a Graphviz drawing's edges and labels against what lies behind them, as a
page shows the drawing: as drawn in light mode, through the theme's image filter in dark mode.

WCAG's contrast ratio of two sRGB colours; 3:1 is its minimum for graphical objects. A label's
background is the filled shape drawn last before it in its group (a node's box, an edge
label's panel); where there is none, or for an edge's line, every background it may cross:
the graph's own and each cluster's.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

NAMED = {"white": "#ffffff", "black": "#000000"}
NOTHING = {"none", "transparent"}
FILTER = re.compile(r"(brightness|contrast)\(([\d.]+)\)")


CSS_RGB = re.compile(r"rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)")


def rgb(colour: str) -> tuple[float, float, float]:
    """A colour as Graphviz writes it (``#rrggbb``, ``white``) or as CSS reports it."""
    css = CSS_RGB.match(colour)
    if css:
        return tuple(float(v) / 255 for v in css.groups())  # type: ignore[return-value]
    value = NAMED.get(colour.lower(), colour)
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        raise ValueError(f"a colour this check cannot read: {colour!r}")
    return tuple(int(value[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


def through(css_filter: str, colour: tuple[float, float, float]) -> tuple[float, float, float]:
    """``colour`` seen through a CSS ``filter`` of brightness() and contrast() functions."""
    for name, amount in FILTER.findall(css_filter or ""):
        a = float(amount)
        colour = tuple(c * a if name == "brightness" else (c - 0.5) * a + 0.5 for c in colour)
        colour = tuple(min(1.0, max(0.0, c)) for c in colour)
    return colour  # type: ignore[return-value]


def luminance(colour: tuple[float, float, float]) -> float:
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _tag(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def _fill(element: ET.Element) -> str | None:
    fill = element.get("fill")
    return None if fill is None or fill in NOTHING else fill


def _own(group: ET.Element) -> list[ET.Element]:
    """What a group draws itself, in order: not what its nodes, edges and clusters draw."""
    found = []
    for child in group:
        if _tag(child) == "g" and child.get("class"):
            continue
        found.append(child)
        found += _own(child) if _tag(child) in ("g", "a") else []
    return found


def lowest_contrasts(svg: str, css_filter: str = "", page_background: str = "#ffffff"
                     ) -> list[tuple[str, float]]:
    """(what, ratio) for every edge line and every text of a Graphviz drawing."""
    root = ET.fromstring(svg)
    graphs = [g for g in root.iter() if _tag(g) == "g" and g.get("class") == "graph"]
    backgrounds = []
    for graph in graphs:
        shape = next((e for e in graph if _tag(e) in ("polygon", "path")), None)
        backgrounds.append(_fill(shape) if shape is not None else None)
    backgrounds = [b or page_background for b in backgrounds] or [page_background]
    groups = [g for g in root.iter() if _tag(g) == "g"]
    for group in groups:
        if group.get("class") == "cluster":  # its outline, filled or not
            shape = next((e for e in group if _tag(e) in ("polygon", "path")), None)
            if shape is not None and _fill(shape):
                backgrounds.append(_fill(shape))

    def seen(colour: str) -> tuple[float, float, float]:
        return through(css_filter, rgb(colour))

    found: list[tuple[str, float]] = []
    for group in groups:
        kind = group.get("class")
        if kind not in ("node", "edge", "cluster", "graph"):
            continue
        title = next((e.text for e in group if _tag(e) == "title"), kind)
        behind: str | None = None
        for element in _own(group):
            tag = _tag(element)
            if tag == "text":
                ink = element.get("fill", "black")
                under = [behind] if behind else backgrounds
                found.append((f"{kind} {title}: text {element.text!r}",
                              min(ratio(seen(ink), seen(b)) for b in under)))
            elif kind == "edge" and tag == "path":
                stroke = element.get("stroke", "black")
                if stroke not in NOTHING:
                    found.append((f"edge {title}: line {stroke}",
                                  min(ratio(seen(stroke), seen(b)) for b in backgrounds)))
            elif kind != "graph" and _fill(element):
                behind = _fill(element)
    return found
