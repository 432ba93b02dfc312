"""`python -m benchmarks.run --plot FILE.png` draws the measured rows' foo/CPU ratios: a PNG comes out, and failed
rows are left out rather than breaking the chart."""

from benchmarks.harness import Row
from benchmarks.plot import plot_ratios


def test_plot_writes_a_png_of_the_measured_rows(tmp_path):
    rows = [
        Row("mm 1024", "1024x1024", "GFLOP/s", 118.0, 298.0, 0.40),
        Row("add_(1) overhead", "1024 float32", "us", 5.5, 1.8, 0.33),
        Row("sum 16M", "16M float32", "GB/s", 40.0, 20.0, 2.0),
        Row("broken", "n/a", "GB/s", None, None, None, error="RuntimeError: boom"),
    ]
    path = tmp_path / "ratios.png"
    plot_ratios(rows, str(path), "foo: test device | cpu: test CPU")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 1000
