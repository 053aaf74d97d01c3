"""pytest, before it collects anything: kernellab imported the normal way.

The docstring examples are collected with ``--import-mode=importlib``, which imports a module's file
under its name. Run before the package itself was imported, that made a second copy of the module
(``kernellab.triton.executor.sampling`` beside the one ``kernellab.triton.executor.engine`` holds), whose state the engine
never reads: ``sampled()`` then did nothing, in whichever worker collected that file first. Imported
here, every module is already in ``sys.modules`` and pytest uses it.
"""

import kernellab.triton  # noqa: F401  (kernellab.triton imports kernellab)
