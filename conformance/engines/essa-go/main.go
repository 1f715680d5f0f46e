// essa-engine: an ESSA-mode conformance engine (protocol version 1, "machine": "ESSA"),
// written from conformance/PROTOCOL.md alone. One binary; the implementation is chosen
// with -impl Paper2007|KVMClassic|KVMGmap.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

// ---------------------------------------------------------------- the machine

type page struct {
	usage   byte // 'S' 'U' 'V' 'P'
	valid   bool
	swapped bool
	zbit    bool
	nodat   bool
	dirty   bool
	gc      bool
	content int64
	// KVMGmap only: the guest mapping of the page (gmap PTE) and the host PTE's stale
	// _PAGE_UNUSED (Bugs: StaleUnusedBit).
	gmapPte   byte // pteEmpty, pteValid, pteAged
	pteUnused bool
}

const (
	pteEmpty = iota
	pteValid
	pteAged
)

var gmapPteNames = [...]string{"Empty", "Valid", "Aged"}

type profile struct {
	Impl        string
	StorageKeys bool
	Facility147 bool
	CBRLSize    int
	Pages       int
	// the constants added for kernel fidelity
	Bugs                  map[string]bool // StickyZero, StaleUnusedBit (CBRLGuestAddress: unsupported)
	PrebuiltPageTables    bool
	MachineInterpretsESSA bool // always false: nondeterministic, not for an engine
	ModernGuest           bool // shapes the spec's guest only; ignored
	CMMAEnabled           bool
}

type machine struct {
	prof     profile
	pages    []page
	cbrl     []int
	migrated bool
	// KVMGmap: the gmap page table of the pages' (one) segment exists
	pageTable bool
}

func (m *machine) reset() {
	m.pages = make([]page, m.prof.Pages)
	for i := range m.pages {
		m.pages[i] = page{usage: 'S'}
	}
	m.cbrl = nil
	m.migrated = false
	m.pageTable = m.prof.PrebuiltPageTables
}

func (m *machine) isKVM() bool  { return m.prof.Impl != "Paper2007" }
func (m *machine) isGmap() bool { return m.prof.Impl == "KVMGmap" }

// xchgZ: the zbit after _gmap_ptep_xchg (a fault, reclaim, unmap or aging under KVMGmap):
// cleared, or kept with the StickyZero bug.
func (m *machine) xchgZ(p *page) {
	if !m.prof.Bugs["StickyZero"] {
		p.zbit = false
	}
}

// bit operations of a table row on zbit / nodat
const (
	keep = iota
	set
	clr
)

func applyBit(b *bool, op int) {
	switch op {
	case set:
		*b = true
	case clr:
		*b = false
	}
}

// row is one row of an Impl's ESSA table.
type row struct {
	name     string // the row's condition, for reasons
	usage    byte   // '=' keeps
	nodat    int
	zbit     int
	appendCB bool
	drop     bool // content dropped: swapped cleared, content 0, dirty cleared
	setValid bool // Paper2007 ORC 5: valid set, swapped cleared (paged in, content kept)
}

func (m *machine) essaRow(orc int, p *page) row {
	switch m.prof.Impl {
	case "Paper2007":
		return paper2007Row(orc, p)
	case "KVMClassic":
		return kvmRow(orc, p.valid, p, false)
	default:
		// the new gmap's rows test the gmap PTE (the guest mapping), not the host frame
		return kvmRow(orc, p.gmapPte == pteValid, p, true)
	}
}

func paper2007Row(orc int, p *page) row {
	nv := !p.valid
	switch orc {
	case 0:
		return row{name: "otherwise", usage: '=', zbit: clr}
	case 1:
		return row{name: "otherwise", usage: 'S', zbit: clr}
	case 5:
		return row{name: "otherwise", usage: 'S', zbit: clr, setValid: true}
	case 2:
		if nv && p.swapped {
			return row{name: "not valid, swapped", usage: 'U', zbit: clr, drop: true}
		}
		return row{name: "otherwise", usage: 'U', zbit: clr}
	case 3:
		if nv && p.swapped {
			return row{name: "not valid, swapped", usage: 'V', zbit: clr, drop: true}
		}
		return row{name: "otherwise", usage: 'V', zbit: clr}
	case 4:
		if nv && !p.swapped {
			return row{name: "not valid, not swapped", usage: 'V', zbit: clr}
		}
		if nv && p.swapped && p.dirty {
			return row{name: "not valid, swapped, dirty", usage: 'S', zbit: clr}
		}
		if nv && p.swapped {
			return row{name: "not valid, swapped", usage: 'V', zbit: clr, drop: true}
		}
		return row{name: "otherwise", usage: 'P', zbit: clr}
	case 6:
		if p.usage == 'V' && nv && !p.swapped {
			return row{name: "usage V, not valid, not swapped", usage: '=', zbit: clr}
		}
		return row{name: "otherwise", usage: 'S', zbit: clr}
	}
	return row{name: "any other", usage: '=', zbit: clr}
}

// kvmRow: KVMClassic (pgste_perform_essa) and KVMGmap (dat_perform_essa).
// gmap clears Z in every row that does not set it, and its ORC 4 fallback keeps the usage.
func kvmRow(orc int, valid bool, p *page, gmap bool) row {
	z := keep
	if gmap {
		z = clr
	}
	switch orc {
	case 0:
		return row{name: "otherwise", usage: '=', zbit: z}
	case 1:
		return row{name: "otherwise", usage: 'S', nodat: clr, zbit: z}
	case 2, 3:
		u := byte('U')
		if orc == 3 {
			u = 'V'
		}
		if valid {
			return row{name: "valid", usage: u, zbit: z}
		}
		return row{name: "otherwise", usage: u, zbit: set, appendCB: true}
	case 4:
		if valid {
			return row{name: "valid", usage: 'P', zbit: z}
		}
		if p.zbit {
			if gmap {
				return row{name: "zbit", usage: 'V', zbit: clr}
			}
			return row{name: "zbit", usage: 'V', zbit: set}
		}
		if !p.gc {
			return row{name: "gc clear", usage: 'V', zbit: set, appendCB: true}
		}
		if gmap {
			return row{name: "otherwise", usage: '=', zbit: clr}
		}
		return row{name: "otherwise", usage: 'S', zbit: keep}
	case 5:
		return row{name: "otherwise", usage: 'S', zbit: z}
	case 6:
		if valid {
			return row{name: "valid", usage: 'S', zbit: z}
		}
		return row{name: "otherwise", usage: '=', zbit: z}
	case 7:
		return row{name: "otherwise", usage: 'S', nodat: set, zbit: z}
	}
	// not reached: ORC 8..15 (and 7 without facility 147) are specification exceptions
	return row{name: "any other", usage: '=', zbit: z}
}

func usageBits(u byte) int {
	switch u {
	case 'U':
		return 0x04
	case 'P':
		return 0x08
	case 'V':
		return 0x0C
	}
	return 0
}

// r1 is the result byte of the page's state (before the instruction).
func (m *machine) r1(p *page) int {
	var c int
	switch {
	case m.isGmap() && p.gmapPte == pteValid:
		c = 0 // KVMGmap: the content bits come from the gmap PTE
	case m.isGmap() && p.zbit:
		c = 3
	case m.isGmap():
		c = 2
	case p.valid:
		c = 0
	case m.isKVM() && p.zbit:
		c = 3
	case m.isKVM():
		c = 2
	case p.swapped:
		c = 2
	default:
		c = 3
	}
	r := c | usageBits(p.usage)
	if p.nodat {
		r |= 0x20
	}
	return r
}

type result struct {
	outcome string
	result  *int
	value   *int64
	reason  string
}

// essa performs the instruction. The checks in order: CMMA enabled (operation exception),
// problem state (privileged operation), the ORC (specification exception), an address beyond
// guest memory, KVMGmap's missing page table, the row, a full CBRL.
func (m *machine) essa(pg, orc int, problemState, beyondMemory bool) result {
	if !m.prof.CMMAEnabled {
		return result{outcome: "OperationException", reason: "CMMA is not enabled for the VM (code 1)"}
	}
	if problemState {
		return result{outcome: "PrivilegedOperation", reason: "ESSA in problem state (code 2)"}
	}
	if orc >= 8 || (orc == 7 && (!m.prof.Facility147 || !m.isKVM())) {
		return result{outcome: "SpecificationException", reason: fmt.Sprintf("ORC %d is not defined", orc)}
	}
	if beyondMemory {
		if m.isGmap() {
			r := 0x10
			return result{outcome: "Done", result: &r, reason: "KVMGmap: an address beyond guest memory, the walk fails (exception indication)"}
		}
		return result{outcome: "AddressingException", reason: "an address beyond guest memory (code 5)"}
	}
	if m.isGmap() && !m.pageTable {
		r := 0x10
		return result{outcome: "Done", result: &r, reason: "KVMGmap: no gmap page table yet (exception indication)"}
	}
	p := &m.pages[pg]
	rw := m.essaRow(orc, p)
	if rw.appendCB && len(m.cbrl) >= m.prof.CBRLSize {
		return result{outcome: "Refused", reason: "the CBRL is full: the host must process it first"}
	}
	r := m.r1(p)
	if rw.usage != '=' {
		p.usage = rw.usage
	}
	applyBit(&p.nodat, rw.nodat)
	applyBit(&p.zbit, rw.zbit)
	if rw.drop {
		// a discard makes the content logically zero and resets the change bit (z/VM)
		p.swapped = false
		p.content = 0
		p.dirty = false
	}
	if rw.setValid {
		p.valid = true
		p.swapped = false
	}
	if rw.appendCB {
		m.cbrl = append(m.cbrl, pg)
	}
	return result{outcome: "Done", result: &r, reason: fmt.Sprintf("%s ESSA ORC %d, row %q", m.prof.Impl, orc, rw.name)}
}

func (m *machine) hostReclaim(pg int) result {
	p := &m.pages[pg]
	if !p.valid {
		return result{outcome: "Refused", reason: "the page is not valid"}
	}
	toSwap := true
	switch p.usage {
	case 'U':
		// KVMGmap: the host learns that a page is unused from the gmap PTE it unmaps; a page
		// the guest has not mapped (after Migrate) goes to swap as any other
		toSwap = m.isGmap() && p.gmapPte == pteEmpty
	case 'V':
		toSwap = m.isKVM()
	case 'P':
		if !m.isKVM() {
			if p.dirty {
				p.usage = 'S'
			} else {
				p.usage = 'V'
				toSwap = false
			}
		}
	}
	reason := ""
	if p.pteUnused {
		// StaleUnusedBit: the host PTE still says _PAGE_UNUSED, so reclaim drops the page
		toSwap = false
		p.pteUnused = false
		reason = "the host PTE's stale _PAGE_UNUSED drops the page (StaleUnusedBit)"
	}
	p.valid = false
	if toSwap {
		p.swapped = true
	} else {
		p.swapped = false
		p.content = 0
		if !m.isKVM() {
			// the 2007 host's discard resets the change bit; KVM keeps the key
			p.dirty = false
		}
	}
	if m.isKVM() && m.prof.StorageKeys {
		p.gc = p.dirty
	}
	if m.isGmap() && p.gmapPte != pteEmpty {
		// the gmap PTE is exchanged for an empty one (_gmap_ptep_xchg)
		p.gmapPte = pteEmpty
		m.xchgZ(p)
	}
	return result{outcome: "Done", reason: reason}
}

func (m *machine) hostProcessCBRL() result {
	if len(m.cbrl) == 0 {
		return result{outcome: "Refused", reason: "the CBRL is empty"}
	}
	pg := m.cbrl[0]
	m.cbrl = m.cbrl[1:]
	p := &m.pages[pg]
	if m.isGmap() && p.gmapPte == pteAged {
		return result{outcome: "Kept", reason: fmt.Sprintf("page %d: its gmap PTE is aged, the entry is skipped", pg)}
	}
	if !p.valid && p.swapped && (p.usage == 'U' || p.zbit) {
		p.swapped = false
		p.content = 0
		return result{outcome: "Zapped", reason: fmt.Sprintf("page %d", pg)}
	}
	return result{outcome: "Kept", reason: fmt.Sprintf("page %d", pg)}
}

func (m *machine) migrate() result {
	if !m.isKVM() {
		return result{outcome: "Refused", reason: "no CMMA migration in the 2007 model"}
	}
	if m.migrated {
		return result{outcome: "Refused", reason: "already migrated"}
	}
	for i := range m.pages {
		p := &m.pages[i]
		var c int64
		if p.valid || p.swapped {
			c = p.content
		}
		p.content = c
		p.valid = c != 0
		p.swapped = false
		p.zbit = false
		// the storage key travels (s390-skeys) and is set on the destination, GC included
		p.gc = m.prof.StorageKeys && p.dirty
		// the destination's pages are not yet mapped for the guest
		p.gmapPte = pteEmpty
		p.pteUnused = false
	}
	m.cbrl = nil
	m.migrated = true
	if m.isGmap() {
		m.pageTable = true // SET_CMMA_BITS
	}
	return result{outcome: "Done"}
}

// access: a Read (write == false) or a Write of arg.
func (m *machine) access(pg int, write bool, arg int64) result {
	p := &m.pages[pg]
	if !m.isKVM() {
		if p.usage == 'V' && !p.valid && !p.swapped {
			return result{outcome: "DiscardFault"}
		}
		if p.usage == 'U' {
			return result{outcome: "AddressingException"}
		}
	}
	if m.isGmap() {
		// the fault maps the page for the guest and creates the segment's page table
		if !p.valid || p.gmapPte != pteValid {
			m.xchgZ(p)
		}
		p.gmapPte = pteValid
		m.pageTable = true
	} else if !p.valid {
		p.zbit = false
	}
	if !p.valid {
		// fault in: from swap, or a fresh zero page (content is already 0 then)
		if !p.swapped {
			p.content = 0
		}
		p.valid = true
		p.swapped = false
	}
	if write {
		p.content = arg
		p.dirty = true
		return result{outcome: "Done"}
	}
	v := p.content
	return result{outcome: "Value", value: &v}
}

func (m *machine) writeback(pg int) result {
	p := &m.pages[pg]
	p.dirty = false
	if m.isKVM() && m.prof.StorageKeys {
		// the guest's SSKE: clears GC too, and under KVMGmap creates the page table
		p.gc = false
		if m.isGmap() {
			m.pageTable = true
		}
	}
	return result{outcome: "Done"}
}

func (m *machine) hostUnmapGmap(pg int) result {
	p := &m.pages[pg]
	if !m.isGmap() || p.gmapPte == pteEmpty {
		return result{outcome: "Refused", reason: "no gmap PTE to unmap"}
	}
	p.gmapPte = pteEmpty
	m.xchgZ(p)
	if m.prof.Bugs["StaleUnusedBit"] && p.usage == 'U' {
		p.pteUnused = true
	}
	return result{outcome: "Done"}
}

func (m *machine) hostAge(pg int) result {
	p := &m.pages[pg]
	if !m.isGmap() || p.gmapPte != pteValid {
		return result{outcome: "Refused", reason: "no valid gmap PTE to age"}
	}
	p.gmapPte = pteAged
	m.xchgZ(p)
	return result{outcome: "Done"}
}

func (m *machine) hostResetCMMA() result {
	if !m.isKVM() {
		return result{outcome: "Refused", reason: "no CMMA reset in the 2007 model"}
	}
	for i := range m.pages {
		m.pages[i].usage = 'S'
		m.pages[i].nodat = false
	}
	return result{outcome: "Done"}
}

// ---------------------------------------------------------------- the protocol

type pageJSON struct {
	Usage     string  `json:"usage"`
	Valid     bool    `json:"valid"`
	Swapped   bool    `json:"swapped"`
	Zbit      bool    `json:"zbit"`
	Nodat     bool    `json:"nodat"`
	Dirty     *bool   `json:"dirty,omitempty"`
	Gc        *bool   `json:"gc,omitempty"`
	GmapPte   *string `json:"gmapPte,omitempty"`
	PteUnused *bool   `json:"pteUnused,omitempty"`
}

type stepReply struct {
	ID      int64      `json:"id"`
	Outcome string     `json:"outcome"`
	Result  *int       `json:"result,omitempty"`
	Value   *int64     `json:"value,omitempty"`
	Pages   []pageJSON `json:"pages"`
	Reason  string     `json:"reason,omitempty"`
}

var (
	out         = bufio.NewWriter(os.Stdout)
	reportExtra = true
	reportGmap  = false // KVMGmap: report gmapPte and pteUnused (-gmap-pte)
)

func send(v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "essa-engine: marshal:", err)
		os.Exit(1)
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

func sendError(id interface{}, code, msg string) {
	send(map[string]interface{}{"id": id, "error": code, "message": msg})
}

func (m *machine) pagesJSON() []pageJSON {
	ps := make([]pageJSON, len(m.pages))
	for i := range m.pages {
		p := m.pages[i]
		ps[i] = pageJSON{Usage: string(p.usage), Valid: p.valid, Swapped: p.swapped, Zbit: p.zbit, Nodat: p.nodat}
		if reportExtra {
			d, g := p.dirty, p.gc
			ps[i].Dirty, ps[i].Gc = &d, &g
		}
		if reportGmap && m.isGmap() {
			g, u := gmapPteNames[p.gmapPte], p.pteUnused
			ps[i].GmapPte, ps[i].PteUnused = &g, &u
		}
	}
	return ps
}

// fixed: the profile fields the command line fixes (nil: the driver's choice).
type fixedProfile struct {
	impl           string
	storageKeys    *bool
	facility147    *bool
	cbrlSize       *int
	pages          *int
	bugs           *[]string
	prebuilt       *bool
	cmma           *bool
	cmmaDisabledOK bool
	announceImp    bool
	leaveOpen      bool // announce only the fields the driver asked for or the command line fixed
}

func boolField(raw map[string]json.RawMessage, name string) (*bool, error) {
	r, ok := raw[name]
	if !ok || string(r) == "null" {
		return nil, nil
	}
	var b bool
	if err := json.Unmarshal(r, &b); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &b, nil
}

func intField(raw map[string]json.RawMessage, name string) (*int, error) {
	r, ok := raw[name]
	if !ok || string(r) == "null" {
		return nil, nil
	}
	var i int
	if err := json.Unmarshal(r, &i); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &i, nil
}

func strField(raw map[string]json.RawMessage, name string) (*string, error) {
	r, ok := raw[name]
	if !ok || string(r) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &s, nil
}

func strListField(raw map[string]json.RawMessage, name string) (*[]string, error) {
	r, ok := raw[name]
	if !ok || string(r) == "null" {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal(r, &l); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if l == nil {
		l = []string{}
	}
	return &l, nil
}

// hello answers a hello; it returns the machine to run, or nil.
func hello(id int64, raw map[string]json.RawMessage, fx fixedProfile) *machine {
	mode, err := strField(raw, "machine")
	if err != nil {
		sendError(id, "BadRequest", err.Error())
		return nil
	}
	if mode == nil || *mode != "ESSA" {
		sendError(id, "Unsupported", "this engine speaks the ESSA mode only (\"machine\": \"ESSA\")")
		return nil
	}
	var req map[string]json.RawMessage
	if r, ok := raw["profile"]; ok && string(r) != "null" {
		if err := json.Unmarshal(r, &req); err != nil {
			sendError(id, "BadRequest", "profile: "+err.Error())
			return nil
		}
	}
	askImpl, e1 := strField(req, "Impl")
	askSK, e2 := boolField(req, "StorageKeys")
	askF, e3 := boolField(req, "Facility147")
	askC, e4 := intField(req, "CBRLSize")
	askP, e5 := intField(req, "Pages")
	askBugs, e6 := strListField(req, "Bugs")
	askPre, e7 := boolField(req, "PrebuiltPageTables")
	askMI, e8 := boolField(req, "MachineInterpretsESSA")
	askMG, e9 := boolField(req, "ModernGuest")
	askCMMA, e10 := boolField(req, "CMMAEnabled")
	for _, e := range []error{e1, e2, e3, e4, e5, e6, e7, e8, e9, e10} {
		if e != nil {
			sendError(id, "BadRequest", "profile: "+e.Error())
			return nil
		}
	}
	pick := func(fixed *bool, ask *bool, def bool) bool {
		if fixed != nil {
			return *fixed
		}
		if ask != nil {
			return *ask
		}
		return def
	}
	pickI := func(fixed *int, ask *int, def int) int {
		if fixed != nil {
			return *fixed
		}
		if ask != nil {
			return *ask
		}
		return def
	}
	p := profile{
		Impl:        fx.impl,
		StorageKeys: pick(fx.storageKeys, askSK, false),
		Facility147: pick(fx.facility147, askF, true),
		CBRLSize:    pickI(fx.cbrlSize, askC, 1),
		Pages:       pickI(fx.pages, askP, 2),
	}
	bugs := []string{}
	if fx.bugs != nil {
		bugs = *fx.bugs
	} else if askBugs != nil {
		bugs = *askBugs
	}
	p.Bugs = map[string]bool{}
	for _, b := range bugs {
		switch b {
		case "StickyZero", "StaleUnusedBit":
		case "CBRLGuestAddress":
			sendError(id, "Unsupported", "Bugs: CBRLGuestAddress is not implemented (which page the zap frees is not specified)")
			return nil
		default:
			sendError(id, "Unsupported", "Bugs: unknown bug "+b)
			return nil
		}
		if fx.impl != "KVMGmap" {
			sendError(id, "Unsupported", "Bugs are KVMGmap's only")
			return nil
		}
		p.Bugs[b] = true
	}
	p.PrebuiltPageTables = pick(fx.prebuilt, askPre, false)
	p.CMMAEnabled = pick(fx.cmma, askCMMA, true)
	if !p.CMMAEnabled && !fx.cmmaDisabledOK {
		sendError(id, "Unsupported", "CMMAEnabled false answers OperationException, an outcome the driver's reply check does not know yet (run with -cmma-disabled to accept it)")
		return nil
	}
	p.ModernGuest = pick(nil, askMG, false)
	if askMI != nil && *askMI {
		sendError(id, "Unsupported", "MachineInterpretsESSA is nondeterministic: not for an engine")
		return nil
	}
	if p.CBRLSize < 1 || p.Pages < 1 {
		sendError(id, "Unsupported", "CBRLSize and Pages must be at least 1")
		return nil
	}
	if askImpl != nil && *askImpl != fx.impl {
		sendError(id, "Unsupported", fmt.Sprintf("this engine runs %s, not %s", fx.impl, *askImpl))
		return nil
	}
	prof := map[string]interface{}{}
	if !fx.leaveOpen || askSK != nil || fx.storageKeys != nil {
		prof["StorageKeys"] = p.StorageKeys
	}
	if !fx.leaveOpen || askF != nil || fx.facility147 != nil {
		prof["Facility147"] = p.Facility147
	}
	if !fx.leaveOpen || askC != nil || fx.cbrlSize != nil {
		prof["CBRLSize"] = p.CBRLSize
	}
	if !fx.leaveOpen || askP != nil || fx.pages != nil {
		prof["Pages"] = p.Pages
	}
	if fx.announceImp {
		prof["Impl"] = p.Impl
	}
	// the constants added for kernel fidelity: announced when asked for or fixed by a flag
	// (left out, they are the driver's choice, whose defaults the engine runs)
	if askBugs != nil || fx.bugs != nil {
		prof["Bugs"] = bugs
	}
	if askPre != nil || fx.prebuilt != nil {
		prof["PrebuiltPageTables"] = p.PrebuiltPageTables
	}
	if askMI != nil {
		prof["MachineInterpretsESSA"] = false
	}
	if askMG != nil {
		prof["ModernGuest"] = p.ModernGuest
	}
	if askCMMA != nil || fx.cmma != nil {
		prof["CMMAEnabled"] = p.CMMAEnabled
	}
	send(map[string]interface{}{
		"id": id, "version": 1, "machine": "ESSA",
		"engine":  "essa-go " + p.Impl,
		"profile": prof,
	})
	m := &machine{prof: p}
	m.reset()
	return m
}

func main() {
	impl := flag.String("impl", "", "the implementation: Paper2007, KVMClassic or KVMGmap (required)")
	sk := flag.String("storage-keys", "", "fix StorageKeys (true/false); default: the driver's choice")
	f147 := flag.String("facility147", "", "fix Facility147 (true/false); default: the driver's choice")
	cbrl := flag.Int("cbrl-size", 0, "fix CBRLSize; default: the driver's choice")
	pages := flag.Int("pages", 0, "fix Pages; default: the driver's choice")
	noImpl := flag.Bool("hide-impl", false, "do not announce Impl in the hello reply")
	leaveOpen := flag.Bool("leave-open", false, "announce only the profile fields the driver asked for or the flags fix (the others are\nthe driver's choice, and the engine then runs its defaults: StorageKeys false, Facility147 true, CBRLSize 1, Pages 2)")
	noExtra := flag.Bool("no-dirty-gc", false, "do not report the optional page fields dirty and gc")
	gmapFields := flag.Bool("gmap-pte", false, "KVMGmap: report the optional page fields gmapPte and pteUnused (the driver\ncurrently rejects them as a protocol fault)")
	bugs := flag.String("bugs", "", "fix Bugs: a comma-separated list of StickyZero, StaleUnusedBit (\"none\": [])")
	pre := flag.String("prebuilt-page-tables", "", "fix PrebuiltPageTables (true/false); default: the driver's choice")
	cmma := flag.String("cmma-enabled", "", "fix CMMAEnabled (true/false); default: the driver's choice")
	cmmaOK := flag.Bool("cmma-disabled", false, "accept CMMAEnabled false (every ESSA answers OperationException); without it\nsuch a hello is Unsupported")
	flag.Parse()
	switch *impl {
	case "Paper2007", "KVMClassic", "KVMGmap":
	default:
		fmt.Fprintln(os.Stderr, "essa-engine: -impl must be Paper2007, KVMClassic or KVMGmap")
		os.Exit(2)
	}
	fx := fixedProfile{impl: *impl, announceImp: !*noImpl, leaveOpen: *leaveOpen}
	parseBool := func(name, s string) *bool {
		switch strings.ToLower(s) {
		case "":
			return nil
		case "true", "1", "yes":
			b := true
			return &b
		case "false", "0", "no":
			b := false
			return &b
		}
		fmt.Fprintf(os.Stderr, "essa-engine: -%s must be true or false\n", name)
		os.Exit(2)
		return nil
	}
	fx.storageKeys = parseBool("storage-keys", *sk)
	fx.facility147 = parseBool("facility147", *f147)
	if *cbrl > 0 {
		fx.cbrlSize = cbrl
	}
	if *pages > 0 {
		fx.pages = pages
	}
	fx.prebuilt = parseBool("prebuilt-page-tables", *pre)
	fx.cmma = parseBool("cmma-enabled", *cmma)
	fx.cmmaDisabledOK = *cmmaOK
	if *bugs != "" {
		l := []string{}
		if *bugs != "none" {
			for _, b := range strings.Split(*bugs, ",") {
				l = append(l, strings.TrimSpace(b))
			}
		}
		fx.bugs = &l
	}
	reportExtra = !*noExtra
	reportGmap = *gmapFields

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<24)
	var m *machine
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			sendError(nil, "BadRequest", "not a JSON object: "+err.Error())
			continue
		}
		var id int64
		if r, ok := raw["id"]; !ok || json.Unmarshal(r, &id) != nil {
			sendError(nil, "BadRequest", "missing or non-integer id")
			continue
		}
		typ, _ := strField(raw, "type")
		if typ == nil {
			sendError(id, "BadRequest", "missing type")
			continue
		}
		switch *typ {
		case "hello":
			m = hello(id, raw, fx)
		case "reset":
			if m == nil {
				sendError(id, "BadRequest", "reset before a successful hello")
				continue
			}
			m.reset()
			send(map[string]interface{}{"id": id})
		case "step":
			if m == nil {
				sendError(id, "BadRequest", "step before a successful hello")
				continue
			}
			step(m, id, raw)
		default:
			sendError(id, "BadRequest", "unknown request type "+*typ)
		}
	}
}

func step(m *machine, id int64, raw map[string]json.RawMessage) {
	op, err := strField(raw, "op")
	if err != nil || op == nil {
		sendError(id, "BadRequest", "missing op")
		return
	}
	needPage := func() (int, bool) {
		pg, err := intField(raw, "page")
		if err != nil || pg == nil {
			sendError(id, "BadRequest", *op+": missing or non-integer page")
			return 0, false
		}
		if *pg < 0 || *pg >= len(m.pages) {
			sendError(id, "BadRequest", fmt.Sprintf("%s: page %d out of range 0..%d", *op, *pg, len(m.pages)-1))
			return 0, false
		}
		return *pg, true
	}
	var r result
	switch *op {
	case "ESSA":
		ps, e1 := boolField(raw, "problemState")
		bm, e2 := boolField(raw, "beyondMemory")
		if e1 != nil || e2 != nil {
			sendError(id, "BadRequest", "ESSA: problemState and beyondMemory are booleans")
			return
		}
		pg := -1
		if bm == nil || !*bm {
			var ok bool
			if pg, ok = needPage(); !ok {
				return
			}
		}
		orc, err := intField(raw, "orc")
		if err != nil || orc == nil || *orc < 0 || *orc > 15 {
			sendError(id, "BadRequest", "ESSA: orc must be an integer 0..15")
			return
		}
		r = m.essa(pg, *orc, ps != nil && *ps, bm != nil && *bm)
	case "HostReclaim":
		pg, ok := needPage()
		if !ok {
			return
		}
		r = m.hostReclaim(pg)
	case "HostProcessCBRL":
		r = m.hostProcessCBRL()
	case "HostUnmapGmap", "HostAge":
		pg, ok := needPage()
		if !ok {
			return
		}
		if *op == "HostAge" {
			r = m.hostAge(pg)
		} else {
			r = m.hostUnmapGmap(pg)
		}
	case "HostResetCMMA":
		r = m.hostResetCMMA()
	case "Migrate":
		r = m.migrate()
	case "Read", "Write":
		pg, ok := needPage()
		if !ok {
			return
		}
		var arg int64 = 1
		if a, ok := raw["arg"]; ok && string(a) != "null" {
			if err := json.Unmarshal(a, &arg); err != nil || arg < 0 {
				sendError(id, "BadRequest", "Write: arg must be a non-negative integer")
				return
			}
		}
		r = m.access(pg, *op == "Write", arg)
	case "Writeback":
		pg, ok := needPage()
		if !ok {
			return
		}
		r = m.writeback(pg)
	default:
		sendError(id, "Unsupported", "unknown operation "+*op)
		return
	}
	send(stepReply{ID: id, Outcome: r.outcome, Result: r.result, Value: r.value, Pages: m.pagesJSON(), Reason: r.reason})
}
