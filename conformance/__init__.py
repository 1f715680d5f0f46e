"""Conformance suite: checks any page-state engine against the spec with hypothesis."""
