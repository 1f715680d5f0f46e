"""Reference implementation of the CMMA page-state machine: plain, typed Python, no I/O."""
