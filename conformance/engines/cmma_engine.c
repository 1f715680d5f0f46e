/*
 * cmma-engine: a second, independent engine for the conformance suite, in C.
 *
 * It implements the CMM2 page-state machine of spec/PageStates.tla (every Variant, both
 * HostService settings, both UnusedAccess answers, 1 to 64 pages) and speaks the JSON-lines
 * protocol of conformance/PROTOCOL.md on stdin/stdout.  It shares no code with the Python
 * reference implementation: it is written from the spec, so the suite passing it shows that the
 * protocol is enough to test an engine in another language.
 *
 * Build: make engines (cc -std=c11, no library beyond libc).
 * Run:   conformance/engines/build/cmma-engine [--no-clear-dirty]
 *        --no-clear-dirty leaves out the optional operation ClearDirty (to show the suite
 *        skipping what an engine does not implement).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAGES 64
#define MAX_LINE 4096

/* ------------------------------------------------------------------ the machine */

enum { FULL, ONE_DISCARDED_STATE, NO_VP, NO_PP, NO_P, ZVM_PROTOTYPE, N_VARIANTS };
static const char *const VARIANT_NAMES[N_VARIANTS] = {
    "Full", "OneDiscardedState", "NoVp", "NoPp", "NoP", "ZVMPrototype",
};

struct profile {
    int variant;
    bool host_service;
    bool reads_zero; /* UnusedAccess = "ReadsZero"; else "AddressingException" */
    int pages;
};

/* What a variant removes (spec: HasUp, HasVp, HasPp, HasP, CollapseDiscarded). */
struct features {
    bool has_up, has_vp, has_pp, has_p, collapse;
};

struct page {
    char usage; /* 'S' 'U' 'V' 'P' */
    char resid; /* 'r' 'p' 'z' */
    bool dirty;
    long data; /* the frame's or the backing copy's content; 0 when logically zero */
};

static struct profile prof = {FULL, true, false, 2};
static struct features feat;
static struct page pages[MAX_PAGES];
static bool clear_dirty_implemented = true;

static struct features features_of(int variant)
{
    struct features f = {true, true, true, true, false};
    switch (variant) {
    case ONE_DISCARDED_STATE: f.collapse = true; break;
    case NO_VP: f.has_vp = false; break;
    case NO_PP: f.has_pp = false; break;
    case NO_P: f.has_p = false; break;
    case ZVM_PROTOTYPE:
        f.has_up = f.has_vp = f.has_pp = false;
        f.collapse = true;
        break;
    default: break;
    }
    return f;
}

static bool has_state(char u, char r)
{
    if (u == 'P' && !feat.has_p) return false;
    if (u == 'U' && r == 'p' && !feat.has_up) return false;
    if (u == 'V' && r == 'p' && !feat.has_vp) return false;
    if (u == 'P' && r == 'p' && !feat.has_pp) return false;
    if (u == 'P' && r == 'z' && feat.collapse) return false;
    return true;
}

static bool discarded(char u, char r) { return (u == 'V' || u == 'P') && r == 'z'; }

/* U: "at will"; V: "can tolerate the loss"; P: "as long as the page has not been modified". */
static bool discardable(char u, bool dirty) { return u == 'U' || u == 'V' || (u == 'P' && !dirty); }

struct target {
    char u, r;
    bool dropped;
};

static struct target discard_to(char u)
{
    struct target t = {(u == 'P' && feat.collapse) ? 'V' : u, 'z', true};
    return t;
}

/* A state the machine lacks becomes the one the paper names for it. */
static struct target normalise(char u, char r, bool dirty)
{
    struct target keep = {u, r, false};
    if (has_state(u, r)) return keep;
    if (u == 'P' && r == 'z') { keep.u = 'V'; return keep; }
    if (u == 'P' && r == 'p' && dirty) { keep.u = 'S'; return keep; }
    if (r == 'p' && discardable(u, dirty)) return discard_to(u);
    return keep;
}

/* A step's result: the outcome, the value read, or a refusal with its reason. */
struct result {
    const char *outcome; /* NULL: refused */
    long value;          /* -1 unless outcome is "Value" */
    const char *reason;
};

static struct result done(const char *outcome)
{
    struct result res = {outcome, -1, NULL};
    return res;
}

static struct result refused(const char *reason)
{
    struct result res = {NULL, -1, reason};
    return res;
}

static struct result set_usage(struct page *pg, char target, const char *outcome)
{
    if (target == 'P' && !feat.has_p) return refused("this machine has no potentially volatile usage");
    struct target t;
    /* A host service tags the implicit host discard onto the call (D3). */
    if (prof.host_service && pg->resid == 'p' && discardable(target, pg->dirty))
        t = discard_to(target);
    else
        t = normalise(target, pg->resid, pg->dirty);
    pg->usage = t.u;
    pg->resid = t.r;
    if (t.dropped) {
        pg->dirty = false;
        pg->data = 0;
    }
    return done(outcome);
}

/* What an access sees: 'A' addressing exception, '0' zero, 'F' discard fault, 'V' the content,
 * 'W' wait for the host. */
static char access(const struct page *pg)
{
    if (pg->usage == 'U') return prof.reads_zero ? '0' : 'A';
    if (discarded(pg->usage, pg->resid)) return 'F';
    if (pg->resid == 'r') return 'V';
    return 'W';
}

static const char *const WAIT = "the page is not resident: the access waits for the host";

static struct result perform(const char *op, struct page *pg, long arg)
{
    if (!strcmp(op, "SetStable")) return set_usage(pg, 'S', "Done");
    if (!strcmp(op, "SetUnused")) return set_usage(pg, 'U', "Done");
    if (!strcmp(op, "SetVolatile")) return set_usage(pg, 'V', "Done");
    if (!strcmp(op, "SetPotentialVolatile")) return set_usage(pg, 'P', "Done");
    if (!strcmp(op, "SetStableIfNotDiscarded")) {
        if (discarded(pg->usage, pg->resid)) return done("Failure");
        return set_usage(pg, 'S', "Success");
    }
    /* Extract reports the two-letter state (D15): the caller prints the page's state. */
    if (!strcmp(op, "Extract")) return done("Extract");
    if (!strcmp(op, "Read")) {
        switch (access(pg)) {
        case 'A': return done("AddressingException");
        case 'F': return done("DiscardFault");
        case 'W': return refused(WAIT);
        default: {
            struct result res = done("Value");
            res.value = access(pg) == '0' ? 0 : pg->data;
            return res;
        }
        }
    }
    if (!strcmp(op, "Write")) {
        switch (access(pg)) {
        case 'A': return done("AddressingException");
        case 'F': return done("DiscardFault");
        case 'W': return refused(WAIT);
        case '0': return done("Ignored");
        default:
            pg->data = arg;
            pg->dirty = true;
            return done("Done");
        }
    }
    if (!strcmp(op, "ClearDirty")) {
        if (!pg->dirty) return refused("the page is clean");
        pg->dirty = false;
        return done("Done");
    }
    if (!strcmp(op, "HostPreserve")) {
        if (pg->resid != 'r') return refused("only a resident page is paged out");
        struct target t = normalise(pg->usage, 'p', pg->dirty);
        if (t.r != 'p') return refused("this machine has no preserved state for the page");
        pg->usage = t.u;
        pg->resid = 'p';
        return done("Done");
    }
    if (!strcmp(op, "HostDiscard")) {
        if (pg->resid == 'z') return refused("the page holds nothing");
        if (!discardable(pg->usage, pg->dirty)) return refused("the page is not discardable");
        pg->usage = discard_to(pg->usage).u;
        pg->resid = 'z';
        pg->dirty = false;
        pg->data = 0;
        return done("Done");
    }
    if (!strcmp(op, "HostPageIn")) {
        if (pg->resid != 'p' || pg->usage == 'U') return refused("only a preserved page that is not unused is paged in");
        pg->resid = 'r';
        return done("Done");
    }
    if (!strcmp(op, "HostZeroFill")) {
        if (pg->resid != 'z' || pg->usage != 'S') return refused("only an Sz page gets a zero frame");
        pg->resid = 'r';
        pg->data = 0;
        pg->dirty = false;
        return done("Done");
    }
    return refused(NULL); /* not an operation: the caller answers with an error */
}

static void reset_pages(void)
{
    for (int i = 0; i < prof.pages; i++) {
        pages[i].usage = 'S';
        pages[i].resid = 'z';
        pages[i].dirty = false;
        pages[i].data = 0;
    }
}

/* ------------------------------------------------------------------ a small JSON reader
 * Enough for the requests of PROTOCOL.md: one object whose values are strings, integers,
 * booleans, null, or (for "profile") one nested object of such values.  Keys are looked up by
 * scanning; a request the reader cannot make sense of is answered with a BadRequest error.
 */

struct field {
    char key[32];
    char str[64];  /* a string value, unescaped (escapes other than \" and \\ are kept as is) */
    long num;
    int kind;      /* 's' string, 'n' number, 't' true, 'f' false, '0' null, 'o' object */
    const char *obj; /* start of a nested object */
};

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

static const char *read_string(const char *p, char *out, size_t cap)
{
    size_t n = 0;
    if (*p != '"') return NULL;
    p++;
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\' && *p) c = *p++;
        if (n + 1 < cap) out[n++] = c;
    }
    if (*p != '"') return NULL;
    out[n] = 0;
    return p + 1;
}

static const char *skip_value(const char *p);

static const char *skip_object(const char *p)
{
    char tmp[64];
    p = skip_ws(p + 1);
    if (*p == '}') return p + 1;
    for (;;) {
        p = read_string(skip_ws(p), tmp, sizeof tmp);
        if (!p) return NULL;
        p = skip_ws(p);
        if (*p++ != ':') return NULL;
        p = skip_value(skip_ws(p));
        if (!p) return NULL;
        p = skip_ws(p);
        if (*p == ',') { p++; continue; }
        if (*p == '}') return p + 1;
        return NULL;
    }
}

static const char *skip_value(const char *p)
{
    char tmp[64];
    if (*p == '"') return read_string(p, tmp, sizeof tmp);
    if (*p == '{') return skip_object(p);
    if (*p == '[') {
        p = skip_ws(p + 1);
        if (*p == ']') return p + 1;
        for (;;) {
            p = skip_value(skip_ws(p));
            if (!p) return NULL;
            p = skip_ws(p);
            if (*p == ',') { p++; continue; }
            if (*p == ']') return p + 1;
            return NULL;
        }
    }
    if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        char *end;
        strtod(p, &end);
        return end == p ? NULL : end;
    }
    return NULL;
}

/* Find key in the object starting at obj ('{'); fills f. Returns false if absent or malformed. */
static bool get(const char *obj, const char *key, struct field *f)
{
    const char *p = skip_ws(obj);
    if (*p != '{') return false;
    p = skip_ws(p + 1);
    if (*p == '}') return false;
    for (;;) {
        p = read_string(skip_ws(p), f->key, sizeof f->key);
        if (!p) return false;
        p = skip_ws(p);
        if (*p++ != ':') return false;
        p = skip_ws(p);
        bool match = !strcmp(f->key, key);
        if (match) {
            if (*p == '"') { f->kind = 's'; return read_string(p, f->str, sizeof f->str) != NULL; }
            if (*p == '{') { f->kind = 'o'; f->obj = p; return true; }
            if (!strncmp(p, "true", 4)) { f->kind = 't'; return true; }
            if (!strncmp(p, "false", 5)) { f->kind = 'f'; return true; }
            if (!strncmp(p, "null", 4)) { f->kind = '0'; return true; }
            char *end;
            f->num = strtol(p, &end, 10);
            f->kind = 'n';
            return end != p && *end != '.' && *end != 'e' && *end != 'E';
        }
        p = skip_value(p);
        if (!p) return false;
        p = skip_ws(p);
        if (*p == ',') { p++; continue; }
        return false;
    }
}

static bool well_formed(const char *line)
{
    const char *p = skip_ws(line);
    if (*p != '{') return false;
    p = skip_object(p);
    return p && *skip_ws(p) == 0;
}

/* ------------------------------------------------------------------ replies */

static void reply_error(const char *id, const char *code, const char *message)
{
    printf("{\"id\":%s,\"error\":\"%s\",\"message\":\"%s\"}\n", id, code, message);
    fflush(stdout);
}

static const char *const OPS[] = {
    "SetStable", "SetUnused", "SetVolatile", "SetPotentialVolatile", "SetStableIfNotDiscarded",
    "Extract", "Read", "Write", "ClearDirty",
    "HostPreserve", "HostDiscard", "HostPageIn", "HostZeroFill",
};
#define N_OPS (sizeof OPS / sizeof OPS[0])

static void hello(const char *line, const char *id)
{
    struct field f;
    struct profile want = {FULL, true, false, 2};
    if (get(line, "version", &f) && (f.kind != 'n' || f.num != 1)) {
        reply_error(id, "Version", "this engine speaks protocol version 1");
        return;
    }
    if (get(line, "profile", &f) && f.kind == 'o') {
        const char *obj = f.obj;
        if (get(obj, "Variant", &f)) {
            int v = -1;
            for (int i = 0; f.kind == 's' && i < N_VARIANTS; i++)
                if (!strcmp(f.str, VARIANT_NAMES[i])) v = i;
            if (v < 0) { reply_error(id, "Unsupported", "unknown Variant"); return; }
            want.variant = v;
        }
        if (get(obj, "HostService", &f)) {
            if (f.kind != 't' && f.kind != 'f') { reply_error(id, "BadRequest", "HostService must be true or false"); return; }
            want.host_service = f.kind == 't';
        }
        if (get(obj, "UnusedAccess", &f)) {
            if (f.kind == 's' && !strcmp(f.str, "ReadsZero")) want.reads_zero = true;
            else if (f.kind == 's' && !strcmp(f.str, "AddressingException")) want.reads_zero = false;
            else { reply_error(id, "Unsupported", "unknown UnusedAccess"); return; }
        }
        if (get(obj, "Pages", &f)) {
            if (f.kind != 'n' || f.num < 1 || f.num > MAX_PAGES) {
                reply_error(id, "Unsupported", "this engine runs 1 to 64 pages");
                return;
            }
            want.pages = (int)f.num;
        }
    }
    struct features wf = features_of(want.variant);
    if (!(wf.has_up && wf.has_vp && wf.has_pp) && !want.host_service) {
        /* The spec's ASSUME: removing a preserved state needs the implicit host transitions. */
        reply_error(id, "Unsupported", "a variant that removes a preserved state needs HostService");
        return;
    }
    prof = want;
    feat = wf;
    reset_pages();
    printf("{\"id\":%s,\"version\":1,\"engine\":\"cmma-engine (C)\",\"profile\":{\"Variant\":\"%s\","
           "\"HostService\":%s,\"UnusedAccess\":\"%s\",\"Pages\":%d},\"ops\":[",
           id, VARIANT_NAMES[prof.variant], prof.host_service ? "true" : "false",
           prof.reads_zero ? "ReadsZero" : "AddressingException", prof.pages);
    bool first = true;
    for (size_t i = 0; i < N_OPS; i++) {
        if (!clear_dirty_implemented && !strcmp(OPS[i], "ClearDirty")) continue;
        printf("%s\"%s\"", first ? "" : ",", OPS[i]);
        first = false;
    }
    printf("]}\n");
    fflush(stdout);
}

static void step(const char *line, const char *id)
{
    struct field f;
    char op[32];
    if (!get(line, "op", &f) || f.kind != 's') { reply_error(id, "BadRequest", "a step needs \"op\""); return; }
    strcpy(op, f.str);
    if (!get(line, "page", &f) || f.kind != 'n' || f.num < 0 || f.num >= prof.pages) {
        reply_error(id, "BadRequest", "\"page\" must be a page number of this profile");
        return;
    }
    struct page *pg = &pages[f.num];
    long arg = -1;
    if (!strcmp(op, "Write")) {
        if (!get(line, "arg", &f) || f.kind != 'n' || f.num < 0) {
            reply_error(id, "BadRequest", "Write needs \"arg\", a non-negative integer");
            return;
        }
        arg = f.num;
    }
    if (!clear_dirty_implemented && !strcmp(op, "ClearDirty")) {
        reply_error(id, "Unsupported", "this engine was started without ClearDirty");
        return;
    }
    struct result res = perform(op, pg, arg);
    if (!res.outcome && !res.reason) { reply_error(id, "BadRequest", "unknown operation"); return; }
    char state[3] = {pg->usage, pg->resid, 0};
    const char *outcome = !res.outcome ? "Refused" : !strcmp(res.outcome, "Extract") ? state : res.outcome;
    printf("{\"id\":%s,\"state\":\"%s\",\"dirty\":%s,\"outcome\":\"%s\"", id, state,
           pg->dirty ? "true" : "false", outcome);
    if (res.value >= 0) printf(",\"value\":%ld", res.value);
    if (!res.outcome) printf(",\"reason\":\"%s\"", res.reason);
    printf("}\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-clear-dirty")) clear_dirty_implemented = false;
        else {
            fprintf(stderr, "usage: %s [--no-clear-dirty]\n", argv[0]);
            return 2;
        }
    }
    feat = features_of(prof.variant);
    reset_pages();
    static char line[MAX_LINE];
    while (fgets(line, sizeof line, stdin)) {
        struct field f;
        char id[32] = "null";
        if (!well_formed(line)) { reply_error(id, "BadRequest", "not a JSON object"); continue; }
        if (get(line, "id", &f) && f.kind == 'n') snprintf(id, sizeof id, "%ld", f.num);
        if (!get(line, "type", &f) || f.kind != 's') { reply_error(id, "BadRequest", "no \"type\""); continue; }
        if (!strcmp(f.str, "step")) step(line, id);
        else if (!strcmp(f.str, "reset")) {
            reset_pages();
            printf("{\"id\":%s}\n", id);
            fflush(stdout);
        } else if (!strcmp(f.str, "hello")) hello(line, id);
        else reply_error(id, "BadRequest", "unknown request type");
    }
    return 0;
}
