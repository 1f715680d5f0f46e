------------------------ MODULE HostReclaimProperties ------------------------
(***************************************************************************)
(* Contract: the promises of HostReclaim.tla (its opening comment,         *)
(* docs/contract.md) are RefinesPageStates, the promises of PageStates.tla *)
(* restated below, DiscardableNeverWrittenProp,                            *)
(* UnchangedPageNotRewrittenProp and WaitingAccessServedProp; each has its *)
(* THEOREM beside it, naming the model that checks it.  The other          *)
(* properties here check types and                                         *)
(* bookkeeping.  The step checks, each restating what one step does, are   *)
(* in HostReclaimStepChecks.tla, apart from the contract.                  *)
(***************************************************************************)
(***************************************************************************)
(* What the z/VM host reclaim policy of HostReclaim.tla must guarantee.    *)
(*                                                                         *)
(* First, nothing of the page-state machine is lost under this host: every *)
(* property of PageStateProperties.tla, unchanged (through an INSTANCE in  *)
(* the z/VM profile), and RefinesPageStates, which checks that every step  *)
(* is the PageStates step it records (or changes no page state).  Then the *)
(* policy's own properties.  None of them uses the steps or the decision   *)
(* operators the broken twins (model/MCHostReclaim_Twins.tla) replace:     *)
(* StealClass, SlotValid, SlotAfterDiscard, AgingAfterSteal, Pressure,     *)
(* AccessFaults.                                                           *)
(*                                                                         *)
(* Sources (docs/sources.md): [Z1] is the z/VM report "Memory Management: *)
(* VMRM-CMM and CMMA", [Z3] "z/VM 6.3: Changes in Memory Management", and  *)
(* "the paper" is [P].                                                     *)
(***************************************************************************)
EXTENDS HostReclaim

PSP == INSTANCE PageStateProperties
        WITH Variant <- "ZVMPrototype", HostService <- TRUE,
             UnusedAccess <- "AddressingException"

(***************************************************************************)
(* The foundation's properties, stated in PageStateProperties.tla with     *)
(* their seed sentences, checked here on the z/VM host.                    *)
(***************************************************************************)
TypeOK                           == PSP!TypeOK
StableContentKeptInv             == PSP!StableContentKeptInv
ReadResultInv                    == PSP!ReadResultInv
DiscardFaultOnlyWhenDiscardedInv == PSP!DiscardFaultOnlyWhenDiscardedInv
UnusedAccessInv                  == PSP!UnusedAccessInv
\* The action properties are restated as [][A]_vars over the foundation's own
\* step predicates A, so that TLC reports a violation under the name used here
\* (it names the definition that holds the [][A]_v, here PSP!...Prop otherwise).
HostDiscardsOnlyDiscardableProp  == [][PSP!DiscardStep]_vars
GuestKeepsResidencyProp          == [][PSP!GuestResidencyStep]_vars

\* Contract: the promises of PageStates.tla kept under the z/VM host.  MCHostReclaim_ZVM
\* (MCHostReclaim_ZVM2Pages1Frame, MCHostReclaim_ZVM2Resident); twins MCHostReclaim_Twin_GuestChangeBit
\* (no data loss), MCHostReclaim_Twin_DiscardDirtyP (discard only when allowed).
THEOREM Spec => []StableContentKeptInv
THEOREM Spec => []ReadResultInv
THEOREM Spec => []DiscardFaultOnlyWhenDiscardedInv
THEOREM Spec => []UnusedAccessInv
THEOREM Spec => HostDiscardsOnlyDiscardableProp
THEOREM Spec => GuestKeepsResidencyProp

(***************************************************************************)
(* RefinesPageStates.  Paper, section 4: z/VM "uses a simplified state     *)
(* machine that collapses the two discarded states Vz and Pz, and does not *)
(* have the preserved volatile states Up, Vp and Pp".  The policy is one   *)
(* host of that machine: every step is the PageStates step it records in   *)
(* lastOp (replayed through PageStates' Perform), or it changes none of    *)
(* the page-state variables (a policy step, or a guest step that changes   *)
(* nothing).  The initial states are PageStates' Init by construction.     *)
(***************************************************************************)
RefinesPageStates ==
    [][PS!Perform(lastOp'.op, lastOp'.page, lastOp'.arg)]_vars
\* Contract (refinement).  MCHostReclaim_ZVM; twin MCHostReclaim_Twin_Refinement.
THEOREM Spec => RefinesPageStates

(***************************************************************************)
(* ReclaimTypeOK.  The policy's variables have their types, and the        *)
(* global aging list holds each page at most once, and only pages that     *)
(* still have a frame ([Z3]: "All of the pages here are IBR", invalid but  *)
(* resident).  The aging list is a sequence (its type, Seq(PAGE), and      *)
(* every action builds it with sequence operators) whose entries are       *)
(* pages; this is said entry by entry rather than as aging \in Seq(Pages), *)
(* an infinite set Apalache cannot take, and over DOMAIN aging rather than *)
(* 1..Len(aging), a range Apalache takes only between constants (D200).    *)
(* Each page at most once bounds its length by Cardinality(Pages).         *)
(* The host change bit is set only for a page that has a paging slot: it    *)
(* says the page was stored to since its slot copy was made (D54; [Z3] "A   *)
(* page not changed since last read from DASD"), so without a copy it has   *)
(* nothing to say, and one canonical state stands for each host view (D220).*)
(***************************************************************************)
ReclaimTypeOK ==
    /\ \A i \in DOMAIN aging : aging[i] \in Pages
    /\ \A i, j \in DOMAIN aging : i # j => aging[i] # aging[j]
    /\ \A i \in DOMAIN aging : resid[aging[i]] = "r"
    /\ slot \in [Pages -> Values \cup {NoValue}]
    /\ hchanged \in [Pages -> BOOLEAN]
    /\ \A p \in Pages : hchanged[p] => slot[p] # NoValue
    /\ io \in [kind : IOKinds, page : Pages \cup {NoPage}]

(***************************************************************************)
(* FrameBudgetInv.  [Z3]: the host keeps "the available lists populated    *)
(* just right" by demand scan; a frame it has not got it cannot give.  The *)
(* resident pages never outnumber the host frames the guest's pages have   *)
(* (Frames, D51): a page comes in only into a free frame, which a steal    *)
(* made.                                                                   *)
(***************************************************************************)
ResidentPages == {p \in Pages : resid[p] = "r"}

FrameBudgetInv == Cardinality(ResidentPages) <= Frames

\* What FrameBudgetInv is about (its witness, model/manifest.json): every
\* frame in use while a page waits outside, preserved, for a page-in.
FramesFullPageOut ==
    Cardinality(ResidentPages) = Frames /\ \E p \in Pages : resid[p] = "p"

(***************************************************************************)
(* SlotCoherentInv.  What the host brings back is what the guest left:     *)
(* a preserved page's content is its paging slot; a slot the host would    *)
(* trust (allocated, host change bit clear: [Z3] "A page not changed since *)
(* last read from DASD is almost never rewritten") holds the page's        *)
(* current content; a logically zero page has no slot (its content "is     *)
(* considered to be zero", the paper, so no old copy may come back).       *)
(***************************************************************************)
SlotCoherentInv ==
    \A p \in Pages :
        /\ resid[p] = "z" => slot[p] = NoValue
        /\ resid[p] = "p" => slot[p] = data[p]
        /\ (resid[p] = "r" /\ slot[p] # NoValue /\ ~hchanged[p]) => slot[p] = data[p]

(***************************************************************************)
(* DiscardableNeverWrittenProp.  [Z1]: "CP does not write volatile pages to *)
(* xstor"; "CP can preferentially steal unused, volatile, and not dirty    *)
(* potentially volatile pages ... allowing CP to bypass paging out the     *)
(* data contents"; a P page that is "not dirty - CP handles the page like  *)
(* a volatile page".  So every write to paging storage is of a stable or   *)
(* dirty P page (judged before the step).                                  *)
(*                                                                         *)
(* How this relates to Vp: in the full machine of Figure 1 a V page may be *)
(* preserved (Vp); the z/VM machine has no Vp, and there PageStates'       *)
(* HostPreserve is already disabled on V, U and clean P pages (D14).  But  *)
(* a write to paging storage need not change the page state: an early      *)
(* write copies a resident page (it stays Vr), and a later steal of a page *)
(* with a valid slot does no I/O.  So the page-state machine cannot see    *)
(* such a write; this property forbids it, i.e. the policy never realises  *)
(* Vp (nor Up, nor a clean Pp) even where no page state shows it.  (A page *)
(* written while stable and then made volatile keeps a slot copy until it  *)
(* is stolen or made stable again; that copy is never written again.)      *)
(***************************************************************************)
WriteStep ==
    io'.kind = "write" =>
        LET p == io'.page
        IN  usage[p] = "S" \/ (usage[p] = "P" /\ dirty[p])

DiscardableNeverWrittenProp == [][WriteStep]_allVars
\* Contract (what CMMA saves).  MCHostReclaim_ZVM; twin MCHostReclaim_Twin_EarlyWriteVolatile.
THEOREM Spec => DiscardableNeverWrittenProp

(***************************************************************************)
(* UnchangedPageNotRewrittenProp.  What CMMA and the policy save the host  *)
(* operator beyond volatile pages: paging I/O for content already on       *)
(* paging storage.  [Z3]: "Pages valid on DASD are not rewritten"; "A page *)
(* not changed since last read from DASD is almost never rewritten" (the   *)
(* exception, a DRAINed volume, is not modelled).  A write of a page to    *)
(* paging storage is of a page the guest stored to (or whose content was   *)
(* dropped) since the host last wrote or read it.  The promise is the      *)
(* operator's, not the guest's: a host that writes the page again loses    *)
(* nothing the guest sees, it pays I/O.  It is judged by the ghost copied  *)
(* (HostReclaim.tla, D430), which the policy's bookkeeping does not write, *)
(* so a policy that forgets a copy is valid cannot excuse the write.       *)
(***************************************************************************)
NoRewriteStep == io'.kind = "write" => ~copied[io'.page]

UnchangedPageNotRewrittenProp == [][NoRewriteStep]_allVars
\* Contract (what CMMA saves).  MCHostReclaim_ZVM (MCHostReclaim_ZVM2Resident); twins
\* MCHostReclaim_Twin_Rewrite, MCHostReclaim_Twin_HostBitKept.
THEOREM Spec => UnchangedPageNotRewrittenProp

\* (UnchangedPageNotRewrittenProp.)  A page taken from its frame with its content already on
\* paging storage: the steal the promise saves a write on.
CopiedPageStolen == lastOp' # lastOp /\ lastOp'.op = "HostPreserve" /\ copied[lastOp'.page]

\* The page is on the aging list.
\* @type: (Seq(PAGE), PAGE) => Bool;
OnList(s, p) == \E i \in DOMAIN s : s[i] = p

\* Witnesses (model/manifest.json, D130): what each property is about, which the
\* model that checks it must reach; a state for an invariant, a step for a Prop.
TrustedSlot        == \E p \in Pages : resid[p] = "r" /\ slot[p] # NoValue /\ ~hchanged[p]
\* An early write: a write to paging storage of a page that keeps its frame
\* (DiscardableNeverWrittenProp is about these, which no page state shows).
EarlyWriteIO == io'.kind = "write" /\ resid'[io'.page] = "r"
\* A steal of a volatile or clean potentially-volatile page (HostDiscardsOnlyDiscardableProp's
\* discardable pages: the second pass of the steal order), discarded without I/O (D224).
VolatileStolen == lastOp' # lastOp /\ lastOp'.op = "HostDiscard"
                  /\ resid[lastOp'.page] = "r" /\ usage[lastOp'.page] \in {"V", "P"}

(***************************************************************************)
(* WaitingAccessServedProp, the progress promise of PageStates.tla (stated *)
(* there from its sources), now also when every frame is in use: an       *)
(* access that waits for the host completes, though the frame its page-in *)
(* needs must first be freed by a steal.  [Z3]: "If a TYPE=ANY low         *)
(* threshold is breached, demand scan is kicked off".  Checked under       *)
(* FairSpec (HostReclaim.tla).                                             *)
(***************************************************************************)
WaitingAccessServedProp == PSP!WaitingAccessServedProp
\* Contract (progress).  MCHostReclaim_ZVMLiveness (MCHostReclaim_ZVMLivenessValues, deep); twin
\* MCHostReclaim_Twin_ScanNeverKickedOff.
THEOREM FairSpec => WaitingAccessServedProp

\* (WaitingAccessServedProp.)  A page-in while every other frame is in use: the frame it takes
\* was freed by a steal.
PageInIntoStolenFrame ==
    /\ lastOp'.op = "HostPageIn" /\ lastOp' # lastOp
    /\ \E q \in Pages : q # lastOp'.page /\ resid[q] = "p"

=============================================================================
