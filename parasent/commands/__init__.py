"""One module per ``parasent`` subcommand: ``register(commands)`` adds its parser, ``run(args)`` runs it.

Modules import only argparse at the top, so building the parser stays cheap; each ``run``
imports what it needs.
"""
