"""Benchmark sets a user can get: the paper's models, fetched at a pinned commit and
checked against their hashes (`paper`), and the scale families, generated (`scale`)."""
