"""One module per command group; `cli/app.py` registers them all."""
