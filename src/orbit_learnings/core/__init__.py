"""The pure core: values, rules and text algorithms. No I/O, no terminal, no protocol."""
