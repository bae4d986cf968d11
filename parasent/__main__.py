"""``python -m parasent``: the command line, as a module (what ``torchrun -m parasent`` starts)."""

import sys

from parasent.cli import main

if __name__ == "__main__":
    sys.exit(main())
