"""``python -m tapesched``: the command line, as the ``tapesched`` script runs it."""

from tapesched.cli import main

if __name__ == "__main__":
    main(prog_name="tapesched")
