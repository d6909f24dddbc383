"""Running things: the pipeline (load → engines → certificate → check, under one budget),
deadlines and limits, the relay and fork server, the Dask cluster, artifacts. Nothing in
the verification core imports this package; the commands and the entry point do."""
