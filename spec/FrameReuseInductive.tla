------------------------- MODULE FrameReuseInductive -------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  A proof aid, not a promise of its own:    *)
(* IndInv holds initially and every step from a state satisfying it keeps  *)
(* it, and IndInv implies NoCrossGuestLeakInv, the key promise of          *)
(* FrameReuse.tla (isolation).  The THEOREMs at the end name the models    *)
(* that check them and the twin that shows the strengthening is needed.    *)
(***************************************************************************)
(***************************************************************************)
(* An inductive invariant for FrameReuse's key safety property,            *)
(* NoCrossGuestLeakInv (paper, section 2: a logically zero page has "no    *)
(* associated frame or backed content.  The content of the page is        *)
(* considered to be zero").  IndInv holds initially and every step from   *)
(* every state satisfying it, reachable or not, keeps it; so no guest ever *)
(* reads another's data, for these bounds, without enumerating the        *)
(* reachable states.  TLC checks the step from every state of IndInit     *)
(* (model/MCFrameReuseInductive.tla); Apalache with --init=IndInit        *)
(* --inv=IndInv --length=1 (model/ApalacheFrameReuse.tla).  The same      *)
(* IndInv makes OwedContentKeptInv inductive too (ZeroPageHoldsZeros,      *)
(* D173).                                                                  *)
(***************************************************************************)
EXTENDS FrameReuse

\* Every state of the types.
StatesOfType ==
    /\ resid \in [Slots -> {"r", "p", "z"}]
    /\ backing \in [Slots -> Frames \cup {NoFrame}]
    /\ saved \in [Slots -> Guests \cup {NoGuest}]
    /\ frameData \in [Frames -> Guests \cup {NoGuest}]
    /\ lastRead \in [reader : Guests \cup {NoGuest}, value : Guests \cup {NoGuest}]
    /\ content \in [Slots -> Guests \cup {NoGuest}]

\* A page has a frame exactly when it is resident: a page-in or zero fill
\* takes a free frame only because a non-resident page holds none.
BackedIffResident == \A s \in Slots : (resid[s] = "r") <=> (backing[s] # NoFrame)

\* The frame of a resident page holds its own guest's data or zeros: a
\* guest writes only its own frames, and a frame it is given is zeroed or
\* filled with its own saved copy.
FrameHoldsOwnData ==
    \A s \in Slots : resid[s] = "r" => frameData[backing[s]] \in {s[1], NoGuest}

\* A saved copy is the guest's own: it was taken from the guest's frame.
SavedIsOwnData == \A s \in Slots : saved[s] \in {s[1], NoGuest}

\* A logically zero page holds nothing of its guest's: the ghost content is
\* zeros until the guest stores again (the zero fill's frame holds zeros).
ZeroPageHoldsZeros == \A s \in Slots : resid[s] = "z" => content[s] = NoGuest

IndInv ==
    /\ TypeOK
    /\ FrameBacksOnePageInv
    /\ BackedIffResident
    /\ FrameHoldsOwnData
    /\ SavedIsOwnData
    /\ NoCrossGuestLeakInv
    /\ OwedContentKeptInv
    /\ ZeroPageHoldsZeros

IndInit == StatesOfType /\ IndInv

\* For the twin that shows the strengthening is needed: the property alone.
\* The ghost `content` starts as zeros: no action and not this property reads
\* it, and leaving it free would multiply the initial states by nine.
PropertyAloneInit ==
    /\ StatesOfType
    /\ NoCrossGuestLeakInv
    /\ content = [s \in Slots |-> NoGuest]

\* Contract.  IndInv is inductive, one step from every state of IndInit: MCFrameReuseInductive_TwoGuests.
THEOREM IndInit /\ [][Next]_vars => []IndInv
\* It holds initially: the Apalache check FrameReuse_TwoFrames_initial (model/apalache.json).
THEOREM Init => IndInv
\* It implies the promise (one of its conjuncts); the promise alone is not inductive: twin
\* MCFrameReuseInductive_Twin_PropertyAlone.
THEOREM IndInv => NoCrossGuestLeakInv

=============================================================================
