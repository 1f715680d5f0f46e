// An ESSA engine for the conformance suite, written from conformance/PROTOCOL.md ("The ESSA
// machine") alone: the three implementations of the instruction (Paper2007, KVMClassic,
// KVMGmap), the host's reclaim, CBRL processing and migration, and the guest's accesses, over
// JSON lines on stdin/stdout.
//
//	go build -o essa-engine . && ./essa-engine [-impl KVMGmap]
//
// The hello's Impl wins; -impl is the Impl when the driver leaves it open (default KVMGmap).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

type page struct {
	usage                              byte // 'S', 'U', 'V', 'P'
	valid, swapped, zbit, nodat, dirty bool
	gc                                 bool
	content                            int64
}

type profile struct {
	impl       string
	keys, f147 bool
	cbrlSize   int
	pages      int
}

type engine struct {
	p        profile
	pages    []page
	cbrl     []int
	migrated bool
}

func (e *engine) reset() {
	e.pages = make([]page, e.p.pages)
	for i := range e.pages {
		e.pages[i] = page{usage: 'S'}
	}
	e.cbrl = e.cbrl[:0]
	e.migrated = false
}

func (e *engine) kvm() bool { return e.p.impl != "Paper2007" }

// The R1 byte of a page, before the instruction (PROTOCOL.md, "The instruction, step by step").
func (e *engine) r1(pg *page) int {
	content := 0
	switch {
	case pg.valid:
		content = 0
	case e.kvm() && pg.zbit:
		content = 3
	case e.kvm():
		content = 2
	case pg.swapped:
		content = 2
	default:
		content = 3
	}
	usage := map[byte]int{'S': 0, 'U': 4, 'P': 8, 'V': 12}[pg.usage]
	n := 0
	if pg.nodat {
		n = 0x20
	}
	return content + usage + n
}

// An effect row: new usage (0 keeps it), nodat and zbit (-1 keeps, 0 clears, 1 sets), queue,
// drop the content.
type effect struct {
	usage       byte
	nodat, zbit int
	queue, drop bool
}

func (e *engine) effect(orc int, pg *page) effect {
	preserved := !pg.valid && pg.swapped
	zero := !pg.valid && !pg.swapped
	switch e.p.impl {
	case "Paper2007": // zbit always cleared, nodat kept
		switch orc {
		case 0:
			return effect{0, -1, 0, false, false}
		case 1, 5:
			return effect{'S', -1, 0, false, false}
		case 2:
			return effect{'U', -1, 0, false, preserved}
		case 3:
			return effect{'V', -1, 0, false, preserved}
		case 4:
			switch {
			case zero:
				return effect{'V', -1, 0, false, false}
			case preserved && pg.dirty:
				return effect{'S', -1, 0, false, false}
			case preserved:
				return effect{'V', -1, 0, false, true}
			default:
				return effect{'P', -1, 0, false, false}
			}
		case 6:
			if pg.usage == 'V' && zero {
				return effect{0, -1, 0, false, false}
			}
			return effect{'S', -1, 0, false, false}
		default:
			return effect{0, -1, 0, false, false}
		}
	default: // KVMClassic keeps Z where it queues nothing; KVMGmap clears it
		keepZ := -1
		if e.p.impl == "KVMGmap" {
			keepZ = 0
		}
		switch orc {
		case 0:
			return effect{0, -1, keepZ, false, false}
		case 1:
			return effect{'S', 0, keepZ, false, false}
		case 2, 3:
			u := map[int]byte{2: 'U', 3: 'V'}[orc]
			if pg.valid {
				return effect{u, -1, keepZ, false, false}
			}
			return effect{u, -1, 1, true, false}
		case 4:
			switch {
			case pg.valid:
				return effect{'P', -1, keepZ, false, false}
			case pg.zbit:
				z := 1
				if e.p.impl == "KVMGmap" {
					z = 0
				}
				return effect{'V', -1, z, false, false}
			case !pg.gc:
				return effect{'V', -1, 1, true, false}
			default:
				if e.p.impl == "KVMGmap" {
					return effect{0, -1, 0, false, false}
				}
				return effect{'S', -1, -1, false, false}
			}
		case 5:
			return effect{'S', -1, keepZ, false, false}
		case 6:
			if pg.valid {
				return effect{'S', -1, keepZ, false, false}
			}
			return effect{0, -1, keepZ, false, false}
		default: // 7
			return effect{'S', 1, keepZ, false, false}
		}
	}
}

func set(v *bool, how int) {
	if how >= 0 {
		*v = how == 1
	}
}

type reply struct {
	outcome string
	result  int
	value   int64
	hasVal  bool
}

func (e *engine) essa(orc, p int) reply {
	if orc >= 8 || (orc == 7 && !e.p.f147) {
		return reply{outcome: "SpecificationException", result: -1}
	}
	pg := &e.pages[p]
	eff := e.effect(orc, pg)
	if eff.queue && len(e.cbrl) >= e.p.cbrlSize {
		return reply{outcome: "Refused", result: -1}
	}
	r := e.r1(pg)
	if eff.usage != 0 {
		pg.usage = eff.usage
	}
	set(&pg.nodat, eff.nodat)
	set(&pg.zbit, eff.zbit)
	if eff.queue {
		e.cbrl = append(e.cbrl, p)
	}
	if eff.drop {
		pg.swapped = false
		pg.content = 0
	}
	if e.p.impl == "Paper2007" && orc == 5 {
		pg.valid = true
	}
	return reply{outcome: "Done", result: r}
}

func (e *engine) reclaim(p int) reply {
	pg := &e.pages[p]
	if !pg.valid {
		return reply{outcome: "Refused", result: -1}
	}
	keep := pg.usage != 'U'
	if !e.kvm() {
		keep = pg.usage == 'S' || (pg.usage == 'P' && pg.dirty)
		if pg.usage == 'P' {
			if keep {
				pg.usage = 'S'
			} else {
				pg.usage = 'V'
			}
		}
	} else if e.p.keys {
		pg.gc = pg.dirty
	}
	pg.valid = false
	pg.swapped = keep
	if !keep {
		pg.content = 0
	}
	return reply{outcome: "Done", result: -1}
}

func (e *engine) processCBRL() reply {
	if len(e.cbrl) == 0 {
		return reply{outcome: "Refused", result: -1}
	}
	pg := &e.pages[e.cbrl[0]]
	e.cbrl = e.cbrl[1:]
	if !pg.valid && pg.swapped && (pg.usage == 'U' || pg.zbit) {
		pg.swapped = false
		pg.content = 0
		return reply{outcome: "Zapped", result: -1}
	}
	return reply{outcome: "Kept", result: -1}
}

func (e *engine) migrate() reply {
	if !e.kvm() || e.migrated {
		return reply{outcome: "Refused", result: -1}
	}
	for i := range e.pages {
		pg := &e.pages[i]
		if !pg.valid && !pg.swapped {
			pg.content = 0
		}
		pg.valid = pg.content != 0
		pg.swapped, pg.zbit, pg.gc = false, false, false
	}
	e.cbrl = e.cbrl[:0]
	e.migrated = true
	return reply{outcome: "Done", result: -1}
}

func (e *engine) access(op string, p int, arg int64) reply {
	pg := &e.pages[p]
	if op == "Writeback" {
		pg.dirty = false
		return reply{outcome: "Done", result: -1}
	}
	if !e.kvm() {
		if pg.usage == 'V' && !pg.valid && !pg.swapped {
			return reply{outcome: "DiscardFault", result: -1}
		}
		if pg.usage == 'U' {
			return reply{outcome: "AddressingException", result: -1}
		}
	}
	if !pg.valid {
		pg.valid, pg.swapped, pg.zbit = true, false, false
	}
	if op == "Read" {
		return reply{outcome: "Value", result: -1, value: pg.content, hasVal: true}
	}
	pg.content = arg
	pg.dirty = true
	return reply{outcome: "Done", result: -1}
}

type request struct {
	Type    string          `json:"type"`
	ID      json.RawMessage `json:"id"`
	Version int             `json:"version"`
	Machine string          `json:"machine"`
	Profile map[string]any  `json:"profile"`
	Op      string          `json:"op"`
	Page    *int            `json:"page"`
	Orc     *int            `json:"orc"`
	Arg     *int64          `json:"arg"`
}

func b(v bool) string { return strconv.FormatBool(v) }

func (e *engine) pagesJSON(sb *strings.Builder) {
	sb.WriteString(`,"pages":[`)
	for i := range e.pages {
		pg := &e.pages[i]
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(sb, `{"usage":"%c","valid":%s,"swapped":%s,"zbit":%s,"nodat":%s,"dirty":%s,"gc":%s}`,
			pg.usage, b(pg.valid), b(pg.swapped), b(pg.zbit), b(pg.nodat), b(pg.dirty), b(pg.gc))
	}
	sb.WriteString("]}")
}

func errorReply(id json.RawMessage, code, msg string) string {
	m, _ := json.Marshal(msg)
	if id == nil {
		id = json.RawMessage("null")
	}
	return fmt.Sprintf(`{"id":%s,"error":"%s","message":%s}`, id, code, m)
}

func (e *engine) hello(r *request, defaultImpl string) string {
	if r.Machine != "ESSA" {
		return errorReply(r.ID, "Unsupported", `this engine speaks the ESSA mode ("machine": "ESSA")`)
	}
	p := profile{impl: defaultImpl, cbrlSize: 1, pages: 1}
	for k, v := range r.Profile {
		switch k {
		case "Impl":
			s, ok := v.(string)
			if !ok || (s != "Paper2007" && s != "KVMClassic" && s != "KVMGmap") {
				return errorReply(r.ID, "Unsupported", fmt.Sprintf("unknown Impl %v", v))
			}
			p.impl = s
		case "StorageKeys", "Facility147":
			x, ok := v.(bool)
			if !ok {
				return errorReply(r.ID, "BadRequest", k+" must be true or false")
			}
			if k == "StorageKeys" {
				p.keys = x
			} else {
				p.f147 = x
			}
		case "CBRLSize", "Pages":
			x, ok := v.(float64)
			if !ok || x < 1 || x != float64(int(x)) {
				return errorReply(r.ID, "BadRequest", k+" must be a positive integer")
			}
			if k == "CBRLSize" {
				p.cbrlSize = int(x)
			} else {
				p.pages = int(x)
			}
		}
	}
	e.p = p
	e.reset()
	return fmt.Sprintf(`{"type":"hello","id":%s,"version":1,"machine":"ESSA","engine":"essa-go",`+
		`"profile":{"Impl":"%s","StorageKeys":%s,"Facility147":%s,"CBRLSize":%d,"Pages":%d}}`,
		r.ID, p.impl, b(p.keys), b(p.f147), p.cbrlSize, p.pages)
}

func (e *engine) step(r *request) string {
	if e.pages == nil {
		return errorReply(r.ID, "BadRequest", "hello first")
	}
	pageless := r.Op == "HostProcessCBRL" || r.Op == "Migrate"
	p := -1
	if !pageless {
		if r.Page == nil || *r.Page < 0 || *r.Page >= len(e.pages) {
			return errorReply(r.ID, "BadRequest", "page out of range")
		}
		p = *r.Page
	}
	var rep reply
	switch r.Op {
	case "ESSA":
		if r.Orc == nil || *r.Orc < 0 || *r.Orc > 15 {
			return errorReply(r.ID, "BadRequest", "orc must be 0 .. 15")
		}
		rep = e.essa(*r.Orc, p)
	case "HostReclaim":
		rep = e.reclaim(p)
	case "HostProcessCBRL":
		rep = e.processCBRL()
	case "Migrate":
		rep = e.migrate()
	case "Read", "Write", "Writeback":
		arg := int64(1)
		if r.Arg != nil {
			arg = *r.Arg
		}
		rep = e.access(r.Op, p, arg)
	default:
		return errorReply(r.ID, "BadRequest", "unknown op "+r.Op)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `{"id":%s,"outcome":"%s"`, r.ID, rep.outcome)
	if rep.result >= 0 {
		fmt.Fprintf(&sb, `,"result":%d`, rep.result)
	}
	if rep.hasVal {
		fmt.Fprintf(&sb, `,"value":%d`, rep.value)
	}
	e.pagesJSON(&sb)
	return sb.String()
}

func main() {
	impl := flag.String("impl", "KVMGmap", "the Impl when the hello leaves it open")
	flag.Parse()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	e := &engine{}
	for in.Scan() {
		var r request
		var line string
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			line = errorReply(nil, "BadRequest", err.Error())
		} else {
			switch r.Type {
			case "hello":
				line = e.hello(&r, *impl)
			case "reset":
				if e.pages == nil {
					line = errorReply(r.ID, "BadRequest", "hello first")
				} else {
					e.reset()
					line = fmt.Sprintf(`{"id":%s}`, r.ID)
				}
			case "step":
				line = e.step(&r)
			default:
				line = errorReply(r.ID, "BadRequest", "unknown type "+r.Type)
			}
		}
		out.WriteString(line)
		out.WriteByte('\n')
		out.Flush()
	}
}
