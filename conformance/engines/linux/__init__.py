"""The Linux kernel's own ESSA code as a conformance engine (README.md here)."""
