"""The README and the documentation: their shape, their references and their examples."""
