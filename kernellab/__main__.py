"""``python -m kernellab run|profile SCRIPT.py …``: see :mod:`kernellab.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
