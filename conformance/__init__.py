"""Conformance suite: checks any page-state engine against the spec with hypothesis.

An engine (in-process, :class:`~conformance.engine.Engine`, or any program speaking the JSON-lines
protocol of conformance/PROTOCOL.md, :class:`~conformance.jsonlines.JsonLinesEngine`) is driven
beside the reference implementation, which is the oracle; every reply is compared and the first
difference is reported with the rule of the spec it breaks. See conformance/README.md.

Modules: :mod:`~conformance.protocol` (the vocabulary and reply checks), :mod:`~conformance.engine`
and :mod:`~conformance.jsonlines` (the two transports), :mod:`~conformance.session` (one engine
beside the oracle), :mod:`~conformance.judge` (naming the rule broken), :mod:`~conformance.stateful`
(the hypothesis state machine), :mod:`~conformance.runner` (the drives: hypothesis, the transition
tour, the random walk; shrinking), :mod:`~conformance.report` (tables and saved files),
:mod:`~conformance.trace` (JSON-lines and ITF traces), :mod:`~conformance.tla` (traces as TLA+
modules checked by TLC), :mod:`~conformance.validate` (recorded traces),
:mod:`~conformance.testing` (the contract-test base class), :mod:`~conformance.mutants` (broken
engines), :mod:`~conformance.cli` (``python -m conformance``).
"""
