"""Front end: the Ser language and network systems given as JSON.

Public API (`prover.frontend.load`):

* `load_model(path, *, state_bound=DEFAULT_STATE_BOUND) -> LoadedModel` — `.ser` or
  `.json`, dispatched on the extension;
* `load_source(source, kind, path="<string>", *, state_bound=...) -> LoadedModel` —
  `kind` is "ser" or "ns-json";
* `LoadedModel(path, kind, source, ns, warnings)`; `ns` is a `prover.ns.NetworkSystem`
  whose names are canonical (docs/naming.md); for Ser programs `ns.origins` gives the
  source lines each transition executed.

Modules: `grammar.lark` + `parser.py` (ser-reference §1, folding of §1.4 in `ast.py`),
`compile.py` (§2, with the deliberate differences of DESIGN.md), `nsjson.py` (§3,
validated by `schemas/network-system.schema.json`). Every bad input raises a
`prover.errors.SerError` subclass.
"""
