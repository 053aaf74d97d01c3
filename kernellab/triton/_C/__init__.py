"""``triton._C`` for mini-Triton: only what Triton's tutorials import from it (:mod:`.libtriton`)."""
