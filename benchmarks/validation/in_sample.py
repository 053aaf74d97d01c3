"""The rows of ``validation.csv`` used to fit an efficiency (η) of the model: reported, not scored.

Whoever fits a constant of the model on a row of ``validation.csv`` names the row here, with the
constant it fits (issue 32, item 8: "each η is fitted on named rows ... marked in-sample"). An in-sample
row leaves the scored set, so the summary's shares are over the rows the model did not see.
"""

#: row id → the fitted constant it is in the sample of
IN_SAMPLE: dict[str, str] = {"GL-01": "eta_wgmma", "GL-07": "eta_wgmma"}  # benchmarks/validation/fit.py
