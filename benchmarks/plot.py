"""The foo/CPU ratios of a benchmark run as a bar chart (``python -m benchmarks.run --plot FILE.png``):
one horizontal bar per row on a logarithmic axis, 1x (parity) marked, the setup line as the title.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.harness import Row


def plot_ratios(rows: Sequence[Row], path: str, title: str) -> None:
    """Writes the chart of the rows that were measured (failed rows are left out) to `path`."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise SystemExit(f"error: --plot needs matplotlib ({error}); pip install matplotlib") from error
    measured = [row for row in rows if row.ratio is not None]
    labels = [f"{row.name}  ({row.size})" for row in measured]
    ratios = [row.ratio for row in measured]
    figure, axes = plt.subplots(figsize=(10, 1.2 + 0.24 * len(measured)))
    colors = ["tab:green" if r >= 1 else "tab:orange" if r >= 0.5 else "tab:red" for r in ratios]
    positions = range(len(measured))
    axes.barh(positions, ratios, color=colors)
    axes.set_yticks(list(positions), labels, fontsize=8)
    axes.invert_yaxis()  # table order, top to bottom
    axes.set_xscale("log")
    axes.axvline(1.0, color="black", linewidth=0.8)
    for y, r in zip(positions, ratios, strict=True):
        axes.text(r, y, f" {r:.2f}x", va="center", fontsize=7)
    axes.set_xlabel("foo / CPU (> 1: foo faster; rates foo/cpu, times cpu/foo)")
    axes.set_title(title, fontsize=9)
    axes.grid(axis="x", which="both", alpha=0.3)
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)
