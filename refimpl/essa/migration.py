"""Incremental CMMA migration (spec/ESSAMigration.tla) as a package of the engine: :data:`MIGRATION`.

A state is an :class:`~refimpl.essa.state.EssaState` of spec/ESSA.tla and the migration's own
variables: whether migration mode is on (``migrating``), the second dirty bitmap (``cmmaDirty``,
by page) and the usage and N last sent of each page (``sentUsage``, ``sentNoDat``).

* ``MigrationStart``: every page CMMA-dirty (kvm_s390_vm_start_migration).
* ``MigrationSend`` page: one page of a KVM_S390_GET_CMMA_BITS round; its bit cleared, its usage
  and N sent (kvm_s390_get_cmma).
* ``MigrationSwitch`` (the spec's lastOp ``Migrate``): the pages still dirty sent, the
  destination resumed with the attributes last sent; the rest as ESSA.tla's Migrate.
* ``Tracked``: every other step of ESSA.tla's Next (but its one-shot Migrate, and the CMMA
  reset in migration mode); during migration an ESSA with ORC 1 .. 7 that was carried out marks
  its page dirty (__do_essa, sources 5).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

from ..core.graph import Presenter, Successors
from ..core.package import GraphModel, MachinePackage, Refused
from ..core.properties import PropertySet, by_name
from .machine import _record, enabled_steps, init as essa_init, migrate
from .package import VARIABLES as ESSA_VARIABLES, EssaStateReader
from .profile import CONSTANTS, NO_PAGE, EssaProfile
from .properties import INVARIANTS, ACTION_PROPERTIES
from .state import EssaState, show_last_op, show_state


class MigrationState(NamedTuple):
    """A state of spec/ESSAMigration.tla. Hashable, immutable."""

    essa: EssaState
    migrating: bool
    cmmaDirty: tuple[bool, ...]  # noqa: N815 - the spec's name
    sentUsage: tuple[str, ...]  # noqa: N815 - the spec's name
    sentNoDat: tuple[bool, ...]  # noqa: N815 - the spec's name


def init(profile: EssaProfile) -> MigrationState:
    """Spec: MInit."""
    n = profile.pages
    return MigrationState(essa_init(profile), False, (False,) * n, ("S",) * n, (False,) * n)


def dirty_mark(t: EssaState) -> bool:
    """Spec: DirtyMark (EssaCarriedOut): the step was an ESSA with ORC 1 .. 7 that __do_essa
    carried out on a page of guest memory; it sets the page's bit."""
    lo = t.lastOp
    return 1 <= lo.orc <= 7 and lo.outcome == "Done" and lo.page != NO_PAGE


def migration_start(s: MigrationState) -> MigrationState | Refused:
    """Spec: MigrationStart."""
    if s.essa.migrated or s.migrating:
        return Refused("MigrationStart", NO_PAGE, -1, "migration has started or is over")
    e = s.essa._replace(lastOp=_record("MigrationStart", NO_PAGE, "Done"))
    return s._replace(essa=e, migrating=True, cmmaDirty=(True,) * len(s.cmmaDirty))


def migration_send(s: MigrationState, p: int) -> MigrationState | Refused:
    """Spec: MigrationSend(p)."""
    if not s.migrating:
        return Refused("MigrationSend", p, -1, "migration has not started")
    if not s.cmmaDirty[p]:
        return Refused("MigrationSend", p, -1, "the page is not CMMA-dirty")
    pg = s.essa.pages[p]
    return MigrationState(
        s.essa._replace(lastOp=_record("MigrationSend", p, "Done")), True,
        _set(s.cmmaDirty, p, False), _set(s.sentUsage, p, pg.usage), _set(s.sentNoDat, p, pg.nodat),
    )  # fmt: skip


def final_attributes(s: MigrationState) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """Spec: FinalUsage, FinalNoDat: what the destination applies."""
    pages = s.essa.pages
    usage = tuple(pg.usage if d else u for pg, d, u in zip(pages, s.cmmaDirty, s.sentUsage))
    nodat = tuple(pg.nodat if d else n for pg, d, n in zip(pages, s.cmmaDirty, s.sentNoDat))
    return usage, nodat


def migration_switch(profile: EssaProfile, s: MigrationState) -> MigrationState | Refused:
    """Spec: MigrationSwitch: ESSA.tla's Migrate with usage and N from the attributes sent."""
    if not s.migrating:
        return Refused("Migrate", NO_PAGE, -1, "migration has not started")
    moved = migrate(profile, s.essa, NO_PAGE, -1)
    if isinstance(moved, Refused):
        return moved
    usage, nodat = final_attributes(s)
    pages = tuple(pg._replace(usage=u, nodat=n) for pg, u, n in zip(moved.pages, usage, nodat))
    n = len(pages)
    return MigrationState(moved._replace(pages=pages), False, (False,) * n, usage, nodat)


def _set(t: tuple[object, ...], i: int, v: object) -> tuple:  # type: ignore[type-arg]
    return t[:i] + (v,) + t[i + 1:]


def next_steps(profile: EssaProfile, s: MigrationState) -> Iterator[tuple[str, MigrationState]]:
    """Spec: MNext, labelled as TLC labels it (Tracked for every step of ESSA.tla's Next)."""
    for (action, _page, _orc), t in enabled_steps(profile, s.essa):
        if action == "Migrate" or (action == "HostResetCMMA" and s.migrating):
            continue
        dirty = s.cmmaDirty
        if s.migrating and dirty_mark(t):
            dirty = _set(dirty, t.lastOp.page, True)
        yield "Tracked", s._replace(essa=t, cmmaDirty=dirty)
    started = migration_start(s)
    if not isinstance(started, Refused):
        yield "MigrationStart", started
    for p in range(profile.pages):
        sent = migration_send(s, p)
        if not isinstance(sent, Refused):
            yield "MigrationSend", sent
    switched = migration_switch(profile, s)
    if not isinstance(switched, Refused):
        yield "MigrationSwitch", switched


class MigrationStateReader(EssaStateReader):
    """States of spec/ESSAMigration.tla as TLC prints them."""

    variables = ESSA_VARIABLES | {"migrating", "cmmaDirty", "sentUsage", "sentNoDat"}

    def state(self, text: str) -> MigrationState:  # type: ignore[override]
        parts = self.variables_of(text)
        return MigrationState(
            self.state_of(parts), self.boolean("migrating", parts["migrating"]),
            self.column(bool, "cmmaDirty", parts["cmmaDirty"]),
            self.column(str, "sentUsage", parts["sentUsage"]),
            self.column(bool, "sentNoDat", parts["sentNoDat"]),
        )  # fmt: skip


def show(s: MigrationState) -> str:
    dirty = "".join("d" if d else "." for d in s.cmmaDirty)
    sent = " ".join(f"{u}{'N' if n else ''}" for u, n in zip(s.sentUsage, s.sentNoDat))
    mode = "migrating" if s.migrating else "not migrating"
    return f"{show_state(s.essa)} {mode} dirty {dirty} sent {sent}"


def _edge(label: str, t: MigrationState) -> str:
    return f"{show_last_op(t.essa.lastOp)} (action {label}), to {show(t)}"


def _row(s: MigrationState) -> str:
    return f"{show_last_op(s.essa.lastOp):<48} {show(s)}"


# --------------------------------------------------------------------------- properties


def SentAttributesCurrentInv(_profile: EssaProfile, s: MigrationState) -> bool:  # noqa: N802
    """Spec: SentAttributesCurrentInv. A page that is not CMMA-dirty during migration was last
    sent with the usage and N it has now."""
    if not s.migrating:
        return True
    return all(d or (u == pg.usage and n == pg.nodat)
               for pg, d, u, n in zip(s.essa.pages, s.cmmaDirty, s.sentUsage, s.sentNoDat))  # fmt: skip


def MigrationAppliesSentStep(_profile: EssaProfile, _s: MigrationState, t: MigrationState) -> bool:  # noqa: N802
    """Spec: MigrationAppliesSentStep. The switch resumes on the usage and N last sent."""
    if t.essa.lastOp.op != "Migrate":
        return True
    return all(pg.usage == u and pg.nodat == n
               for pg, u, n in zip(t.essa.pages, t.sentUsage, t.sentNoDat))  # fmt: skip


def _lift_inv(f: Callable[[EssaProfile, EssaState], bool]) -> Callable[[EssaProfile, MigrationState], bool]:
    return lambda profile, s: f(profile, s.essa)


def _lift_action(f: Callable[[EssaProfile, EssaState, EssaState], bool],
                 ) -> Callable[[EssaProfile, MigrationState, MigrationState], bool]:  # fmt: skip
    return lambda profile, s, t: f(profile, s.essa, t.essa)


PROPERTIES: Final = PropertySet[EssaProfile, MigrationState](
    {**by_name(SentAttributesCurrentInv),
     **{name: _lift_inv(f) for name, f in INVARIANTS.items()
        if name in ("BelievedStableContentKeptInv", "GuestStableBeliefInv")}},
    {"MigrationAppliesSentProp": MigrationAppliesSentStep,
     **{name: _lift_action(f) for name, f in ACTION_PROPERTIES.items()
        if name in ("MigrationKeepsAttributesProp", "MigrationArrivalProp",
                    "MigrationKeepsStableContentProp")}},
)  # fmt: skip


def _model(spec: str, steps: Callable[[EssaProfile, MigrationState], Iterator[tuple[str, MigrationState]]],
           ) -> GraphModel[EssaProfile, MigrationState]:  # fmt: skip
    def successors(profile: EssaProfile) -> Successors[MigrationState]:
        return functools.partial(steps, profile)

    return GraphModel(spec, None, successors)


#: The incremental-migration machine.
MIGRATION: Final = MachinePackage[EssaProfile, MigrationState](
    name="ESSAMigration", spec_module="ESSAMigration", graph_module="MCEssaMigrationGraph",
    constants=CONSTANTS, profile_type=EssaProfile, init=init,
    graph_models={"Spec": _model("MSpec", next_steps)}, reader=MigrationStateReader,
    show=Presenter(show, _edge, _row), properties=PROPERTIES,
)
