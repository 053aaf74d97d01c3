"""``triton.tools`` for mini-Triton: host-side tensor descriptors (:mod:`.tensor_descriptor`)."""
