"""Certificates: the v1 JSON envelope and evidence writers (`write`), explanations
(`explain`)."""
