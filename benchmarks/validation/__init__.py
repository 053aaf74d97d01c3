"""The published GPU measurements of ``validation.csv``, rebuilt as this project's own kernels and predicted.

``python -m benchmarks.validation.run`` (or ``nox -s validate``) predicts every row, prints measured,
predicted, ratio and binding term per row and the summary, and writes ``kernellab/validation.json`` (the
gallery's page "How good are the predictions?" reads it, so it ships with kernellab). The modules, in
the order data flows: ``rows`` (the CSV, the GPUs, how rows are scored), ``kernels_triton`` and
``kernels_simt`` (the kernels), ``cases`` (each row's launch), ``predicted`` (what the model says),
``scoring`` (ratios and summaries), ``before`` (the same harness on the model of commit 75152b7),
``run`` (the command line).
"""
