/*
 * The part of a kernel harness that is the same for every implementation: the record of one
 * step (what the harness did beside the kernel, the kernel functions it ran), its report in
 * the line protocol's "explain" answer, and the saved host states of "save N" / "restore N".
 * kernels.source compiles it after the kernel's definitions and before the host model
 * (classic_harness.c, gmap_harness.c), which provides what it declares below:
 *
 *   state_sig()    a hash of the PTEs, the PGSTEs (but their lock bit) and the CBRL: a kernel
 *                  function changed the state when it differs after it
 *
 *   host_reset()   a fresh VM (the line protocol's "reset")
 *   explain()      the "explain" answer: explain_note(), its page lines, explain_end()
 *
 * and calls trace_begin() once it has taken the state before a request, trace_end() after
 * the request's own work.  This file holds no kernel code.
 *
 * Where the engine names a file in $KERNEL_CHECK_WHERE, the harness keeps in it, shared
 * (mmap), what the engine reads when the harness hangs or dies, and at its end:
 *
 *   bytes 0..WHERE_STACK-1         the kernel functions open now, outermost first, each
 *                                  followed by a newline; NUL-terminated
 *   WHERE_ENTERED + i              '1' once harness_fns[i] has been entered by a request, else '0'
 *   WHERE_NAMES..                  the names of harness_fns, one a line, then a NUL
 *
 * A write of a few bytes per kernel function entered: the engine needs no request to read it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define NO_TRACE __attribute__((no_instrument_function))

static NO_TRACE unsigned long state_sig(void);
static void host_reset(void);
static void explain(void);

/* What the harness did beside the kernel in the last request (a rollback, a refusal before any
 * kernel call), in words; empty if nothing. */
static char note[512];

/* More of the note, after what it says already. */
static NO_TRACE __attribute__((format(printf, 1, 2))) void note_add(const char *fmt, ...)
{
	size_t n = strlen(note);
	va_list ap;
	if (n + 2 >= sizeof(note))
		return;
	if (n)
		note[n++] = ' ', note[n] = 0;
	va_start(ap, fmt);
	vsnprintf(note + n, sizeof(note) - n, fmt, ap);
	va_end(ap);
}

struct harness_fn { void *addr; const char *name; };
extern const struct harness_fn harness_fns[];  /* appended by kernels.source */
extern const int harness_nfns;
#define MAX_CALLS 512
#define MAX_STACK 64
static struct { const char *name; int depth, changed; } calls[MAX_CALLS];
static int ncalls, kernel_depth, stack_depth;
static int tracing;  /* during a request's own work, not its reply's */
static int open_fn[MAX_STACK];            /* harness_fns index of each open function, or -1 */
static int open_call[MAX_STACK];          /* calls[] index of each open function, or -1 */
static unsigned long open_sig[MAX_STACK]; /* the state when it was entered */

/* ------------------------------------------------------------------ the shared record */

#define WHERE_STACK 4096
#define WHERE_ENTERED 4096
#define WHERE_NAMES 8192
#define WHERE_SIZE 65536
static char *where;                /* the mapped file, or NULL */
static int where_len[MAX_STACK + 1]; /* the stack text's length with kernel_depth functions open */

int open(const char *path, int flags, ...);
int ftruncate(int fd, long length);
void *mmap(void *addr, unsigned long length, int prot, int flags, int fd, long offset);
int close(int fd);

/* Before main: the file $KERNEL_CHECK_WHERE, mapped, with the names of harness_fns. */
static NO_TRACE __attribute__((constructor)) void where_open(void)
{
	const char *path = getenv("KERNEL_CHECK_WHERE");
	if (path == NULL || *path == 0)
		return;
	int fd = open(path, 02 /* O_RDWR */);
	if (fd < 0 || ftruncate(fd, WHERE_SIZE) != 0)
		return;
	void *m = mmap(NULL, WHERE_SIZE, 3 /* PROT_READ | PROT_WRITE */, 1 /* MAP_SHARED */, fd, 0);
	close(fd);
	if (m == (void *)-1)
		return;
	where = m;
	where[0] = 0;
	memset(where + WHERE_ENTERED, '0', harness_nfns < WHERE_NAMES - WHERE_ENTERED ?
	       harness_nfns : WHERE_NAMES - WHERE_ENTERED);
	size_t n = WHERE_NAMES;
	for (int i = 0; i < harness_nfns; i++) {
		size_t len = strlen(harness_fns[i].name);
		if (n + len + 2 >= WHERE_SIZE)
			break;
		memcpy(where + n, harness_fns[i].name, len);
		n += len;
		where[n++] = '\n';
	}
	where[n] = 0;
}

/* harness_fns[i] entered at kernel depth depth (its callers' names are in the text already). */
static NO_TRACE void where_enter(int i, int depth)
{
	if (where == NULL || depth >= MAX_STACK)
		return;
	if (i < WHERE_NAMES - WHERE_ENTERED)
		where[WHERE_ENTERED + i] = '1';
	int at = where_len[depth];
	size_t len = strlen(harness_fns[i].name);
	if (at + len + 2 >= WHERE_STACK) {
		where_len[depth + 1] = at;
		return;
	}
	memcpy(where + at, harness_fns[i].name, len);
	where[at + len] = '\n';
	where[at + len + 1] = 0;
	where_len[depth + 1] = at + len + 1;
}

/* Back to depth kernel functions open. */
static NO_TRACE void where_leave(int depth)
{
	if (where != NULL && depth >= 0 && depth < MAX_STACK)
		where[where_len[depth]] = 0;
}

/* -finstrument-functions calls these on every entry and exit: a kernel function (one of
 * harness_fns) entered during a request is recorded with its depth among kernel functions. */
NO_TRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	int sp = stack_depth++;
	if (sp >= MAX_STACK)
		return;
	open_call[sp] = open_fn[sp] = -1;
	for (int i = 0; tracing && i < harness_nfns; i++) {
		if (harness_fns[i].addr != fn)
			continue;
		open_fn[sp] = i;
		where_enter(i, kernel_depth);
		if (ncalls < MAX_CALLS) {
			calls[ncalls].name = harness_fns[i].name;
			calls[ncalls].depth = kernel_depth;
			calls[ncalls].changed = 0;
			open_call[sp] = ncalls++;
			open_sig[sp] = state_sig();
		}
		kernel_depth++;
		break;
	}
}

NO_TRACE void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn; (void)site;
	int sp = --stack_depth;
	if (sp < 0 || sp >= MAX_STACK || open_fn[sp] < 0)
		return;
	if (open_call[sp] >= 0)
		calls[open_call[sp]].changed = state_sig() != open_sig[sp];
	kernel_depth--;
	where_leave(kernel_depth);
}

static NO_TRACE void trace_begin(void)
{
	note[0] = 0;
	ncalls = kernel_depth = 0;
	where_leave(0);
	tracing = 1;
}

static NO_TRACE void trace_end(void) { tracing = 0; }

/* ------------------------------------------------------------------ names of bits */

struct named { unsigned long mask; const char *name; };
#define NAMED(m) { m, #m }
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The names of the bits of v that the table names, each after sep (then "|"); the next sep. */
static NO_TRACE const char *print_named(unsigned long v, const struct named *t, unsigned n,
					const char *sep)
{
	for (unsigned i = 0; i < n; i++)
		if (v & t[i].mask)
			printf("%s%s", sep, t[i].name), sep = "|";
	return sep;
}

/* A host PTE (asm/pgtable.h), decoded with the kernel's macro names: what it maps, then its
 * bits. */
static const struct named host_pte_bits[] = {
	NAMED(_PAGE_INVALID), NAMED(_PAGE_PROTECT), NAMED(_PAGE_UNUSED), NAMED(_PAGE_PRESENT),
	NAMED(_PAGE_YOUNG), NAMED(_PAGE_DIRTY), NAMED(_PAGE_READ), NAMED(_PAGE_WRITE),
};

static NO_TRACE void print_host_pte(unsigned long ptev)
{
	pte_t pte = __pte(ptev);
	printf("pte=0x%016lx [", ptev);
	if (pte_none(pte))
		printf("pte_none: ");
	else if (pte_swap(pte))
		printf("swap type %lu offset %lu: ", (ptev >> __SWP_TYPE_SHIFT) & __SWP_TYPE_MASK,
		       __swp_offset(__pte_to_swp_entry(pte)));
	else if (!(ptev & _PAGE_INVALID))
		printf("frame 0x%lx: ", ptev & PAGE_MASK);
	print_named(ptev, host_pte_bits, COUNT(host_pte_bits), "");
	printf("]");
}

/* The program interruption an instruction handler injected, by the kernel's name. */
static NO_TRACE const char *pic_name(int pic)
{
	switch (pic) {
	case PGM_SPECIFICATION: return "PGM_SPECIFICATION";
	case PGM_PRIVILEGED_OP: return "PGM_PRIVILEGED_OP";
	case PGM_OPERATION: return "PGM_OPERATION";
	case PGM_ADDRESSING: return "PGM_ADDRESSING";
	default: return "?";
	}
}

/* The ESSA request's outcome for a program interruption (NULL: one the protocol has not). */
static NO_TRACE const char *pic_outcome(int pic)
{
	switch (pic) {
	case PGM_SPECIFICATION: return "SpecificationException";
	case PGM_PRIVILEGED_OP: return "PrivilegedOperation";
	case PGM_OPERATION: return "OperationException";
	case PGM_ADDRESSING: return "AddressingException";
	default: return NULL;
	}
}

/* The note of an ESSA rolled back (handle_essa injected pic, or queued more than the CBRL
 * holds: queued > 0, with the list's length and size before it). */
static NO_TRACE void note_essa_rollback(int pic, int ncbrl, int size, int queued)
{
	if (pic)
		snprintf(note, sizeof(note), "handle_essa injected program interruption 0x%x (%s): "
			 "the harness rolled the ESSA back (host state restored from a snapshot taken "
			 "before handle_essa; the instruction is suppressed)", pic, pic_name(pic));
	else
		snprintf(note, sizeof(note), "the CBRL was full (%d of %d entries; handle_essa queued "
			 "%d more): the harness rolled the ESSA back (host state restored from a snapshot "
			 "taken before handle_essa)", ncbrl, size, queued);
}

/* ------------------------------------------------------------------ explain's common lines */

static NO_TRACE void print_cbrl(const char *when, const unsigned long *list, int n)
{
	printf("cbrl %s %d:", when, n);
	for (int i = 0; i < n; i++)
		printf(" 0x%lx", list[i]);
	printf("\n");
}

/* The note (first), and after the host model's page lines: the CBRL before and after, the
 * kernel functions the request ran, "end". */
static NO_TRACE void explain_note(void)
{
	if (note[0])
		printf("note %s\n", note);
}

static NO_TRACE void explain_end(const unsigned long *before, int nbefore,
				 const unsigned long *after, int nafter)
{
	print_cbrl("before", before, nbefore);
	print_cbrl("after", after, nafter);
	for (int i = 0; i < ncalls; i++)
		printf("call %d %d %s\n", calls[i].depth, calls[i].changed, calls[i].name);
	printf("end\n");
	fflush(stdout);
}

/* ------------------------------------------------------------------ saved host states */

/* save N keeps the whole host state (size bytes at state) in slot N, restore N takes it back:
 * the host state points only into itself, so a copy is a whole state.  Answers ok or error. */
#define MAX_SNAPSHOTS 1024
static void *snapshots[MAX_SNAPSHOTS];

static NO_TRACE void snapshot(int save, int slot, void *state, size_t size)
{
	if (slot < 0 || slot >= MAX_SNAPSHOTS || (!save && snapshots[slot] == NULL)) {
		printf("error no snapshot slot %d\n", slot);
	} else {
		if (save && snapshots[slot] == NULL)
			snapshots[slot] = malloc(size);
		if (save)
			memcpy(snapshots[slot], state, size);
		else
			memcpy(state, snapshots[slot], size);
		printf("ok\n");
	}
	fflush(stdout);
}

/* The requests every harness answers alike (reset, save N, restore N, explain), the host state
 * being size bytes at state: 1 if op was one of them (answered), else 0. */
static NO_TRACE int common_request(const char *op, int a, void *state, size_t size)
{
	if (!strcmp(op, "reset")) {
		host_reset();
		printf("ok\n");
		fflush(stdout);
	} else if (!strcmp(op, "save") || !strcmp(op, "restore")) {
		snapshot(op[0] == 's', a, state, size);
	} else if (!strcmp(op, "explain")) {
		explain();
	} else {
		return 0;
	}
	return 1;
}
