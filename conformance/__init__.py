"""Conformance suite: checks any engine of a machine the specs define (the page states of
spec/PageStates.tla, the ESSA instruction of spec/ESSA.tla) against its spec with hypothesis.

An engine (in process, or any program speaking the JSON-lines protocol of
conformance/PROTOCOL.md) is driven beside the machine's reference implementation, which is the
oracle; every reply is compared and the first difference is reported with the rule it breaks.
See conformance/README.md.

One driver, parametrised by the machine: :mod:`~conformance.driver` (drives, shrinking, reports,
reproducers) and :mod:`~conformance.commands` (``run``, ``validate``, ``mutants``) take a
machine's mode from :data:`conformance.machines.MACHINES`. A mode is one module with its
vocabulary, oracle, tours and traces: :mod:`~conformance.pagestates` (with
:mod:`~conformance.pagestates.judge`, the rule broken; :mod:`~conformance.pagestates.trace`, its JSON-lines and ITF
files; :mod:`~conformance.pagestates.tla`, its TLA+ trace module; :mod:`~conformance.pagestates.mutants`) and
:mod:`~conformance.essa` (with :mod:`~conformance.essa.cli`, :mod:`~conformance.essa.tla`,
:mod:`~conformance.essa.mutants`, :mod:`~conformance.essa.classify`). The transports:
:mod:`~conformance.protocol`, :mod:`~conformance.pagestates.engine`, :mod:`~conformance.jsonlines`.
:mod:`~conformance.testing` holds the contract-test base classes, :mod:`~conformance.cli`
``python -m conformance``.
"""
