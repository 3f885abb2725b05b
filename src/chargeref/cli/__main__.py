"""``python -m chargeref.cli``: the same command as ``chargeref``."""

from . import main

main()
