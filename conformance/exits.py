"""The exit statuses of ``python -m conformance``, for every command (any machine's): 0 conforms
(or the trace is a behaviour of the spec, or the engine was identified), 1 divergence (not
identified), 2 bad command line or input file, 3 engine fault, 4 nothing checked, 130 and 143
interrupted by SIGINT and SIGTERM (``run``). The table, with every command's statuses:
docs/conformance.md, "Exit statuses".
"""

EXIT_OK, EXIT_DIVERGED, EXIT_USAGE, EXIT_FAULT, EXIT_NOTHING = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
