-------------------- MODULE MCLinuxGuestProtocolVariants --------------------
(***************************************************************************)
(* Variants of the Linux guest protocol that are not mistakes but other    *)
(* designs, each checked by a model MCLinuxGuestProtocolVariants_*.cfg     *)
(* that overrides decision operators of LinuxGuestProtocol.tla with the    *)
(* operators below.                                                        *)
(***************************************************************************)
EXTENDS MCLinuxGuestProtocol

\* The paper's alternative: "The alternative solution would be to disable the
\* interrupts while holding the PG_state_change bit.  Disabling interrupts is
\* expensive, therefore the preferable solution is to let the make_volatile
\* function return immediately".  With interrupts off while the process
\* context holds a bit, a make_volatile that waits for the bit is deadlock
\* free (MCLinuxGuestProtocolVariants_IrqsOff).
MakeVolatileWaitsForBit == TRUE
InterruptsOffWhileHoldingBit(c) == \A p \in Pages : Proc(c) \notin stateChange[p]

\* A kernel in which a page cannot be freed while its PG_state_change bit is
\* held: what a check in two reads, counts first, needs (D36, D39;
\* MCLinuxGuestProtocolVariants_CountsThenFlagsPinned).
PageFreedOnlyWithoutStateChange(p) == stateChange[p] = {}

=============================================================================
