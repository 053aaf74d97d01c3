"""Time each gallery page run as a script, in each language (the site runs every page once per language).

    python benchmarks/bench_gallery.py

Pages should stay under 3 s each; this prints the table and names any page over the limit, and any
page that fails (the tests report why; this only times).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT_S = 3.0


def main() -> int:
    scripts = sorted(p for p in (ROOT / "gallery").rglob("[0-9][0-9]_*.py"))
    print(f"{'page':<48} {'en (s)':>7} {'zh_CN (s)':>9}")
    slow, failed = [], []
    for script in scripts:
        times = []
        name = str(script.relative_to(ROOT / "gallery"))
        for lang in ("en", "zh_CN"):
            env = {**os.environ, "KERNELLAB_LANG": lang, "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1"}
            t0 = time.perf_counter()
            done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            if done.returncode:  # a page that fails is named with its last line, and the others still timed
                failed.append(f"{name} ({lang}): {(done.stderr.strip().splitlines() or ['?'])[-1]}")
        print(f"{name:<48} {times[0]:7.2f} {times[1]:9.2f}")
        slow += [name] if max(times) > LIMIT_S else []
    if slow:
        print(f"over {LIMIT_S} s: {', '.join(slow)}")
    for line in failed:
        print(f"FAILED {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
