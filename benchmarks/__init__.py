"""foo-cl benchmarks: each row times an operation on foo and on the PyTorch CPU backend.

Run with ``python -m benchmarks.run`` (or ``make bench``); see benchmarks/run.py for the options.
"""
