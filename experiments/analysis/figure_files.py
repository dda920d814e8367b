"""A figure written to a file: the box it is cropped to, measured once (:func:`tight_box`),
the file written whole or not at all (:func:`save_figure`), and a failure named by its cause
(:func:`save_failure`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.backend_bases import RendererBase
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox


#: the tables of a TrueType font that a PDF never reads: the layout rules (ligatures, kerning,
#: baselines) a text shaper applies, where matplotlib places each glyph itself
LAYOUT_TABLES = ("GSUB", "GPOS", "GDEF", "kern", "BASE", "JSTF", "MATH")


def _embed_fonts_without_layout_tables() -> None:
    """The PDF backend embeds the subset of each font a figure uses (Type 42: the text stays
    text, as publishers ask); its subsetter (fontTools) also keeps and subsets the layout
    tables, which is most of its work (about 0.1 s per PDF for DejaVu Sans) for bytes no
    PDF reader uses. They are left out of the embedded subsets."""
    from fontTools import subset
    default = subset.Options._drop_tables_default
    subset.Options._drop_tables_default = [*default, *(t for t in LAYOUT_TABLES if t not in default)]


def renderer_of(fig: Figure) -> RendererBase:
    """The renderer ``fig``'s text is measured with (its Agg canvas's; the figures are drawn
    on the Agg backend)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = fig.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        canvas = FigureCanvasAgg(fig)
    return canvas.get_renderer()


def tight_box(fig: Figure, dpi: float = 150) -> Bbox:
    """The box (inches) ``savefig(bbox_inches="tight")`` crops ``fig`` to, padded as it pads,
    with the text measured at ``dpi`` (the PNG's): measured once for every file the figure is
    saved as (each save would measure it again, drawing the figure twice). The figure is laid
    out for good: what ``tight_layout`` left (a layout engine that does nothing, which would
    still cost every save a draw) goes."""
    import matplotlib
    shown = fig.dpi
    fig.set_dpi(dpi)
    try:
        fig.draw_without_rendering()
        box = fig.get_tightbbox(renderer_of(fig))
    finally:
        fig.set_dpi(shown)
    fig.set_layout_engine(None)
    return box.padded(matplotlib.rcParams["savefig.pad_inches"])


def save_figure(fig: Figure, path: Path, **options: Any) -> None:
    """``fig.savefig(path, **options)``, whole or not at all: drawn into a file beside
    ``path`` and renamed. A full disk (an OSError, or zlib's "buffer error" from the PDF
    backend) is a one-line RaceError naming ``path``, and no cut figure is left."""
    from formats.errors import RaceError
    from formats.whole_file import replacing
    path = Path(path)
    if path.suffix == ".pdf":
        _embed_fonts_without_layout_tables()
    try:
        with replacing(path) as temporary:
            fig.savefig(temporary, format=path.suffix.lstrip(".") or None, **options)
    except Exception as exc:      # noqa: BLE001 - OSError, zlib.error, a backend's own
        raise RaceError(f"cannot write the figure ({save_failure(exc, fig)})", source=str(path)) from None


def save_failure(exc: BaseException, fig: Figure | None = None) -> str:
    """Why a figure was not saved, in words that name the cause: the disk (an OSError, or
    zlib's "buffer error" when the PDF backend ran out of room), or a figure too large to draw
    (a MemoryError, or the backend's "image size" / "too large" refusal), with its size."""
    import zlib
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if isinstance(exc, zlib.error):
        return f"zlib: {exc}; is the disk full?"
    size = ""
    if fig is not None:
        width, height = fig.get_size_inches()
        size = f" ({width:.1f} x {height:.1f} in before cropping)"
    if isinstance(exc, MemoryError) or "too large" in str(exc).lower() or "image size" in str(exc).lower():
        return (f"the figure is too large to draw{size}: {type(exc).__name__}"
                f"{': ' + str(exc) if str(exc) else ''}; a label or title too long?")
    return f"{type(exc).__name__}: {exc}"
