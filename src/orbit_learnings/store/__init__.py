"""The files that are the truth: workspace, layout, atomic writes, YAML, bundles, sidecars."""
