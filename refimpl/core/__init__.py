"""The engine every machine of the reference implementation plugs into.

A machine is a package (:mod:`refimpl.pagestates`, :mod:`refimpl.essa`) that writes its spec's
constants, variables, rules and properties, and describes itself as one
:class:`~refimpl.core.package.MachinePackage`. Everything that does not depend on what the machine
is lives here, once: the constants of a profile and their .cfg text (:mod:`~refimpl.core.constants`),
state graphs and their comparison (:mod:`~refimpl.core.graph`), TLC's state graph of the spec
(:mod:`~refimpl.core.tlc`) and the named properties (:mod:`~refimpl.core.properties`). Adding a
third machine means writing its package; nothing here changes.
"""
