"""The JSON Schemas of the project, shipped as package data (read with importlib.resources)."""
