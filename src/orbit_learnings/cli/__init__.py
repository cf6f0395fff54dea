"""The Typer command-line adapter: parse, call the core, render. Nothing else."""
