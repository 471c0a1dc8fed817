/* Native stacks of another process's threads, for `record --pid --native` (docs/attach.md, "Native frames").
 *
 * Two jobs, both small:
 *   - stop(tid) / resume(tid, signal): stop one thread with ptrace (PTRACE_SEIZE, then PTRACE_INTERRUPT)
 *     and read its registers; let it go again (PTRACE_DETACH). The thread is stopped only while the
 *     caller reads its native and Python stacks (microseconds), never the whole process.
 *   - unwind(pid, registers, modules, max_frames): walk the stack from those registers with the
 *     call-frame information (CFI) of each module's .eh_frame, found through its .eh_frame_hdr search
 *     table, exactly as the C++ exception unwinder does: the caller hands in the files' bytes (read
 *     once), the stack is read from the target with process_vm_readv, a page at a time.
 *
 * Our own CFI interpreter rather than libunwind-ptrace: no new system dependency, and the stack is
 * read with one process_vm_readv per 4 KiB page instead of one PTRACE_PEEKDATA per word. It knows
 * the CFA rules GCC and clang emit on x86-64 (register + offset, and the DWARF expressions of PLT
 * stubs and signal trampolines); anything else ends the walk with a status, never a crash.
 * x86-64 Linux only: elsewhere the functions raise NotImplementedError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#if defined(__linux__) && defined(__x86_64__)
#define NATIVE_SUPPORTED 1
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#endif

/* DWARF register numbers on x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then the return address. */
#define NREGS 17
#define REG_SP 7
#define REG_RA 16

/* How an unwind ended (the second item of unwind()'s result). */
enum {
    UNWIND_COMPLETE = 0,   /* reached the outermost frame (its return address is undefined) */
    UNWIND_NO_MODULE = 1,  /* an address in no module we have tables for (JIT code, a stale map) */
    UNWIND_NO_FDE = 2,     /* the module has no unwind entry for that address */
    UNWIND_BAD_CFI = 3,    /* an entry this interpreter does not understand */
    UNWIND_READ_FAILED = 4,/* the stack could not be read */
    UNWIND_TOO_DEEP = 5,   /* more frames than max_frames */
    UNWIND_BAD_STACK = 6,  /* the next frame would not be above this one: a corrupt or foreign stack */
};

#ifdef NATIVE_SUPPORTED

/* ---- reading the target's memory, a page at a time ------------------------------------------ */

#define PAGE 4096
#define CACHED_PAGES 32

typedef struct {
    pid_t pid;
    int used;
    uint64_t address[CACHED_PAGES];
    unsigned char data[CACHED_PAGES][PAGE];
} Memory;

static int read_remote(pid_t pid, uint64_t address, void *buffer, size_t size) {
    struct iovec local = {buffer, size};
    struct iovec remote = {(void *)(uintptr_t)address, size};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    return got == (ssize_t)size ? 0 : -1;
}

/* The 8 bytes at address, through the page cache (one process_vm_readv per page touched). */
static int read_word(Memory *memory, uint64_t address, uint64_t *value) {
    uint64_t page = address & ~(uint64_t)(PAGE - 1);
    size_t within = (size_t)(address - page);
    if (within > PAGE - 8) {
        return read_remote(memory->pid, address, value, 8);
    }
    for (int i = 0; i < memory->used; i++) {
        if (memory->address[i] == page) {
            memcpy(value, memory->data[i] + within, 8);
            return 0;
        }
    }
    int slot = memory->used < CACHED_PAGES ? memory->used++ : (int)((page / PAGE) % CACHED_PAGES);
    if (read_remote(memory->pid, page, memory->data[slot], PAGE) < 0) {
        memory->address[slot] = 0;
        return read_remote(memory->pid, address, value, 8);
    }
    memory->address[slot] = page;
    memcpy(value, memory->data[slot] + within, 8);
    return 0;
}

/* ---- a module's tables: bytes of the file, and where they are ---------------------------------- */

typedef struct {
    const unsigned char *data; /* the whole file */
    Py_ssize_t size;
    uint64_t delta;            /* file offset = virtual address - delta (the segment holding the tables) */
    uint64_t hdr;              /* .eh_frame_hdr's virtual address */
} Tables;

/* A cursor over the tables' bytes, by virtual address; every read checks the bounds. */
typedef struct {
    const Tables *tables;
    uint64_t at; /* virtual address */
    int bad;
} Cursor;

static const unsigned char *cursor_bytes(Cursor *c, size_t n) {
    uint64_t offset = c->at - c->tables->delta;
    if (c->bad || c->at < c->tables->delta || offset + n > (uint64_t)c->tables->size || offset + n < offset) {
        c->bad = 1;
        return NULL;
    }
    c->at += n;
    return c->tables->data + offset;
}

static uint64_t u8(Cursor *c) {
    const unsigned char *p = cursor_bytes(c, 1);
    return p ? p[0] : 0;
}

static uint64_t fixed(Cursor *c, size_t n) {
    const unsigned char *p = cursor_bytes(c, n);
    uint64_t value = 0;
    if (p) {
        memcpy(&value, p, n); /* little-endian */
    }
    return value;
}

static int64_t sfixed(Cursor *c, size_t n) {
    uint64_t value = fixed(c, n);
    if (n < 8 && (value >> (8 * n - 1)) & 1) {
        value |= ~(uint64_t)0 << (8 * n);
    }
    return (int64_t)value;
}

static uint64_t uleb(Cursor *c) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint64_t byte = u8(c);
        value |= (byte & 0x7f) << shift;
        if (!(byte & 0x80) || c->bad) {
            return value;
        }
    }
    c->bad = 1;
    return 0;
}

static int64_t sleb(Cursor *c) {
    uint64_t value = 0;
    int shift = 0;
    uint64_t byte;
    do {
        byte = u8(c);
        if (shift < 64) {
            value |= (byte & 0x7f) << shift;
        }
        shift += 7;
    } while ((byte & 0x80) && !c->bad && shift < 70);
    if (shift < 64 && (byte & 0x40)) {
        value |= ~(uint64_t)0 << shift;
    }
    return (int64_t)value;
}

/* A pointer encoded as DW_EH_PE_*: relative to its own address (pcrel) or to .eh_frame_hdr (datarel). */
static uint64_t encoded(Cursor *c, int encoding) {
    if (encoding == 0xff) {
        return 0;
    }
    uint64_t place = c->at;
    uint64_t value;
    switch (encoding & 0x0f) {
    case 0x00: value = fixed(c, 8); break;
    case 0x01: value = uleb(c); break;
    case 0x02: value = fixed(c, 2); break;
    case 0x03: value = fixed(c, 4); break;
    case 0x04: value = fixed(c, 8); break;
    case 0x09: value = (uint64_t)sleb(c); break;
    case 0x0a: value = (uint64_t)sfixed(c, 2); break;
    case 0x0b: value = (uint64_t)sfixed(c, 4); break;
    case 0x0c: value = (uint64_t)sfixed(c, 8); break;
    default: c->bad = 1; return 0;
    }
    switch (encoding & 0x70) {
    case 0x00: break;
    case 0x10: value += place; break;
    case 0x30: value += c->tables->hdr; break;
    default: c->bad = 1; return 0; /* textrel, funcrel, aligned: not emitted on x86-64 Linux */
    }
    if (encoding & 0x80) {
        c->bad = 1; /* indirect: a pointer in the target's memory; only personality routines use it */
    }
    return value;
}

/* The FDE covering vaddr, by binary search of .eh_frame_hdr's sorted table; 0 if none. */
static uint64_t find_fde(const Tables *tables, uint64_t vaddr) {
    Cursor c = {tables, tables->hdr, 0};
    int version = (int)u8(&c);
    int frame_encoding = (int)u8(&c);
    int count_encoding = (int)u8(&c);
    int table_encoding = (int)u8(&c);
    encoded(&c, frame_encoding);
    uint64_t count = encoded(&c, count_encoding);
    if (c.bad || version != 1 || table_encoding != 0x3b || count == 0) {
        return 0; /* 0x3b: datarel sdata4 pairs, what every GNU and LLVM linker writes */
    }
    uint64_t table = c.at;
    uint64_t low = 0, high = count;
    while (high - low > 1) {
        uint64_t middle = (low + high) / 2;
        Cursor entry = {tables, table + middle * 8, 0};
        uint64_t start = tables->hdr + (uint64_t)sfixed(&entry, 4);
        if (entry.bad) {
            return 0;
        }
        if (start <= vaddr) {
            low = middle;
        } else {
            high = middle;
        }
    }
    Cursor entry = {tables, table + low * 8, 0};
    uint64_t start = tables->hdr + (uint64_t)sfixed(&entry, 4);
    uint64_t fde = tables->hdr + (uint64_t)sfixed(&entry, 4);
    if (entry.bad || start > vaddr) {
        return 0;
    }
    return fde;
}

/* ---- the CFI rules of one frame ------------------------------------------------------------- */

enum { RULE_SAME = 0, RULE_UNDEFINED, RULE_OFFSET, RULE_VAL_OFFSET, RULE_REGISTER, RULE_EXPRESSION, RULE_VAL_EXPRESSION };

typedef struct {
    int kind;
    int64_t value;      /* the offset, or the other register */
    uint64_t expression;/* where a DWARF expression is (virtual address), and its length */
    uint64_t length;
} Rule;

typedef struct {
    int cfa_register;
    int64_t cfa_offset;
    uint64_t cfa_expression, cfa_length; /* cfa_length > 0: the CFA is this expression */
    Rule rules[NREGS];
} Row;

#define STATE_DEPTH 16

typedef struct {
    uint64_t code_align;
    int64_t data_align;
    int ra_register;
    int fde_encoding;
    int signal_frame;
    int augmented; /* 'z': every FDE of this CIE has augmentation data, with its size first */
    uint64_t instructions, end;
} Cie;

static int parse_cie(const Tables *tables, uint64_t address, Cie *cie) {
    Cursor c = {tables, address, 0};
    uint64_t length = fixed(&c, 4);
    if (length == 0xffffffff || length == 0) {
        return -1;
    }
    uint64_t end = c.at + length;
    if (fixed(&c, 4) != 0) {
        return -1; /* not a CIE */
    }
    int version = (int)u8(&c);
    char augmentation[8];
    int n = 0;
    for (;;) {
        int ch = (int)u8(&c);
        if (c.bad || ch == 0) {
            break;
        }
        if (n < 7) {
            augmentation[n++] = (char)ch;
        }
    }
    augmentation[n] = 0;
    cie->code_align = uleb(&c);
    cie->data_align = sleb(&c);
    cie->ra_register = version == 1 ? (int)u8(&c) : (int)uleb(&c);
    cie->fde_encoding = 0;
    cie->signal_frame = 0;
    cie->augmented = augmentation[0] == 'z';
    if (cie->augmented) {
        uint64_t size = uleb(&c);
        uint64_t after = c.at + size;
        for (int i = 1; augmentation[i] && !c.bad; i++) {
            switch (augmentation[i]) {
            case 'R': cie->fde_encoding = (int)u8(&c); break;
            case 'L': u8(&c); break;
            case 'P': {
                int encoding = (int)u8(&c);
                Cursor skip = c;
                encoded(&skip, encoding & 0x7f); /* the personality pointer: skipped, its encoding may be indirect */
                c.at = skip.at;
                c.bad |= skip.bad;
                break;
            }
            case 'S': cie->signal_frame = 1; break;
            default: break; /* the size tells where the data ends */
            }
        }
        c.at = after;
    } else if (augmentation[0] != 0) {
        return -1;
    }
    cie->instructions = c.at;
    cie->end = end;
    return c.bad || cie->ra_register >= NREGS ? -1 : 0;
}

/* Run CFI instructions [from, to) until the location passes target; initial is the CIE's row (for restore). */
static int run_cfi(const Tables *tables, const Cie *cie, uint64_t from, uint64_t to, uint64_t location, uint64_t target,
                   Row *row, const Row *initial) {
    Row saved[STATE_DEPTH];
    int depth = 0;
    Cursor c = {tables, from, 0};
    while (c.at < to && !c.bad) {
        int op = (int)u8(&c);
        int high = op & 0xc0, low = op & 0x3f;
        uint64_t reg;
        if (high == 0x40) { /* advance_loc */
            location += (uint64_t)low * cie->code_align;
            if (location > target) {
                return 0;
            }
            continue;
        }
        if (high == 0x80) { /* offset */
            int64_t offset = (int64_t)uleb(&c) * cie->data_align;
            if (low < NREGS) {
                row->rules[low] = (Rule){RULE_OFFSET, offset, 0, 0};
            }
            continue;
        }
        if (high == 0xc0) { /* restore */
            if (low < NREGS) {
                row->rules[low] = initial ? initial->rules[low] : (Rule){RULE_SAME, 0, 0, 0};
            }
            continue;
        }
        switch (op) {
        case 0x00: break; /* nop */
        case 0x01: location = encoded(&c, cie->fde_encoding); if (location > target) return 0; break; /* set_loc */
        case 0x02: location += fixed(&c, 1) * cie->code_align; if (location > target) return 0; break;
        case 0x03: location += fixed(&c, 2) * cie->code_align; if (location > target) return 0; break;
        case 0x04: location += fixed(&c, 4) * cie->code_align; if (location > target) return 0; break;
        case 0x05: /* offset_extended */
            reg = uleb(&c);
            {
                int64_t offset = (int64_t)uleb(&c) * cie->data_align;
                if (reg < NREGS) row->rules[reg] = (Rule){RULE_OFFSET, offset, 0, 0};
            }
            break;
        case 0x06: /* restore_extended */
            reg = uleb(&c);
            if (reg < NREGS) row->rules[reg] = initial ? initial->rules[reg] : (Rule){RULE_SAME, 0, 0, 0};
            break;
        case 0x07: reg = uleb(&c); if (reg < NREGS) row->rules[reg] = (Rule){RULE_UNDEFINED, 0, 0, 0}; break;
        case 0x08: reg = uleb(&c); if (reg < NREGS) row->rules[reg] = (Rule){RULE_SAME, 0, 0, 0}; break;
        case 0x09: /* register */
            reg = uleb(&c);
            {
                uint64_t other = uleb(&c);
                if (reg < NREGS) row->rules[reg] = (Rule){RULE_REGISTER, (int64_t)other, 0, 0};
            }
            break;
        case 0x0a: /* remember_state */
            if (depth >= STATE_DEPTH) return -1;
            saved[depth++] = *row;
            break;
        case 0x0b: /* restore_state */
            if (depth == 0) return -1;
            *row = saved[--depth];
            break;
        case 0x0c: row->cfa_register = (int)uleb(&c); row->cfa_offset = (int64_t)uleb(&c); row->cfa_length = 0; break;
        case 0x0d: row->cfa_register = (int)uleb(&c); row->cfa_length = 0; break;
        case 0x0e: row->cfa_offset = (int64_t)uleb(&c); break;
        case 0x0f: /* def_cfa_expression */
            row->cfa_length = uleb(&c);
            row->cfa_expression = c.at;
            c.at += row->cfa_length;
            break;
        case 0x10: /* expression */
        case 0x16: /* val_expression */
            reg = uleb(&c);
            {
                uint64_t length = uleb(&c);
                if (reg < NREGS) {
                    row->rules[reg] = (Rule){op == 0x10 ? RULE_EXPRESSION : RULE_VAL_EXPRESSION, 0, c.at, length};
                }
                c.at += length;
            }
            break;
        case 0x11: /* offset_extended_sf */
            reg = uleb(&c);
            {
                int64_t offset = sleb(&c) * cie->data_align;
                if (reg < NREGS) row->rules[reg] = (Rule){RULE_OFFSET, offset, 0, 0};
            }
            break;
        case 0x12: row->cfa_register = (int)uleb(&c); row->cfa_offset = sleb(&c) * cie->data_align; row->cfa_length = 0; break;
        case 0x13: row->cfa_offset = sleb(&c) * cie->data_align; break;
        case 0x14: /* val_offset */
            reg = uleb(&c);
            {
                int64_t offset = (int64_t)uleb(&c) * cie->data_align;
                if (reg < NREGS) row->rules[reg] = (Rule){RULE_VAL_OFFSET, offset, 0, 0};
            }
            break;
        case 0x15: /* val_offset_sf */
            reg = uleb(&c);
            {
                int64_t offset = sleb(&c) * cie->data_align;
                if (reg < NREGS) row->rules[reg] = (Rule){RULE_VAL_OFFSET, offset, 0, 0};
            }
            break;
        case 0x2e: uleb(&c); break; /* GNU_args_size */
        case 0x2f: /* GNU_negative_offset_extended */
            reg = uleb(&c);
            {
                int64_t offset = -(int64_t)uleb(&c) * cie->data_align;
                if (reg < NREGS) row->rules[reg] = (Rule){RULE_OFFSET, offset, 0, 0};
            }
            break;
        default: return -1;
        }
    }
    return c.bad || row->cfa_register < 0 || row->cfa_register >= NREGS ? -1 : 0;
}

/* The row of CFI rules in force at vaddr (the FDE's instructions run up to it). */
static int row_at(const Tables *tables, uint64_t vaddr, Row *row, int *signal_frame, int *ra_register) {
    uint64_t fde = find_fde(tables, vaddr);
    if (fde == 0) {
        return UNWIND_NO_FDE;
    }
    Cursor c = {tables, fde, 0};
    uint64_t length = fixed(&c, 4);
    if (length == 0 || length == 0xffffffff) {
        return UNWIND_BAD_CFI;
    }
    uint64_t end = c.at + length;
    uint64_t pointer_at = c.at;
    uint64_t cie_pointer = fixed(&c, 4);
    Cie cie;
    if (c.bad || cie_pointer == 0 || parse_cie(tables, pointer_at - cie_pointer, &cie) < 0) {
        return UNWIND_BAD_CFI;
    }
    uint64_t start = encoded(&c, cie.fde_encoding);
    uint64_t range = encoded(&c, cie.fde_encoding & 0x0f);
    if (c.bad || vaddr < start || vaddr >= start + range) {
        return UNWIND_NO_FDE;
    }
    if (cie.augmented) {
        uint64_t size = uleb(&c);
        c.at += size;
    }
    if (c.bad) {
        return UNWIND_BAD_CFI;
    }
    Row initial;
    memset(&initial, 0, sizeof(initial));
    initial.cfa_register = -1;
    if (run_cfi(tables, &cie, cie.instructions, cie.end, 0, UINT64_MAX, &initial, NULL) < 0) {
        return UNWIND_BAD_CFI;
    }
    *row = initial;
    if (run_cfi(tables, &cie, c.at, end, start, vaddr, row, &initial) < 0) {
        return UNWIND_BAD_CFI;
    }
    *signal_frame = cie.signal_frame;
    *ra_register = cie.ra_register;
    return UNWIND_COMPLETE;
}

/* ---- DWARF expressions (PLT stubs, signal trampolines) ------------------------------------------ */

static int evaluate(const Tables *tables, Memory *memory, uint64_t at, uint64_t length, const uint64_t *regs,
                    const int *known, int push_cfa, uint64_t cfa, uint64_t *result) {
    uint64_t stack[32];
    int top = 0;
    if (push_cfa) {
        stack[top++] = cfa;
    }
    Cursor c = {tables, at, 0};
    uint64_t end = at + length;
    while (c.at < end && !c.bad) {
        int op = (int)u8(&c);
        uint64_t a, b;
        if (top > 30) {
            return -1;
        }
        if (op >= 0x30 && op <= 0x4f) { /* lit0..lit31 */
            stack[top++] = (uint64_t)(op - 0x30);
            continue;
        }
        if (op >= 0x70 && op <= 0x80) { /* breg0..breg16 */
            int reg = op - 0x70;
            int64_t offset = sleb(&c);
            if (!known[reg]) return -1;
            stack[top++] = regs[reg] + (uint64_t)offset;
            continue;
        }
        switch (op) {
        case 0x08: stack[top++] = fixed(&c, 1); break;
        case 0x09: stack[top++] = (uint64_t)sfixed(&c, 1); break;
        case 0x0a: stack[top++] = fixed(&c, 2); break;
        case 0x0b: stack[top++] = (uint64_t)sfixed(&c, 2); break;
        case 0x0c: stack[top++] = fixed(&c, 4); break;
        case 0x0d: stack[top++] = (uint64_t)sfixed(&c, 4); break;
        case 0x0e: stack[top++] = fixed(&c, 8); break;
        case 0x0f: stack[top++] = (uint64_t)sfixed(&c, 8); break;
        case 0x10: stack[top++] = uleb(&c); break;
        case 0x11: stack[top++] = (uint64_t)sleb(&c); break;
        case 0x12: if (top < 1) return -1; stack[top] = stack[top - 1]; top++; break; /* dup */
        case 0x13: if (top < 1) return -1; top--; break;                                /* drop */
        case 0x16: if (top < 2) return -1; a = stack[top - 1]; stack[top - 1] = stack[top - 2]; stack[top - 2] = a; break;
        case 0x06: /* deref */
            if (top < 1 || read_word(memory, stack[top - 1], &stack[top - 1]) < 0) return -1;
            break;
        case 0x23: if (top < 1) return -1; stack[top - 1] += uleb(&c); break; /* plus_uconst */
        case 0x1a: case 0x1c: case 0x1e: case 0x21: case 0x22: case 0x24: case 0x25:
        case 0x29: case 0x2a: case 0x2b: case 0x2c: case 0x2d: case 0x2e:
            if (top < 2) return -1;
            b = stack[--top];
            a = stack[top - 1];
            switch (op) {
            case 0x1a: a &= b; break;
            case 0x1c: a -= b; break;
            case 0x1e: a *= b; break;
            case 0x21: a |= b; break;
            case 0x22: a += b; break;
            case 0x24: a = b < 64 ? a << b : 0; break;
            case 0x25: a = b < 64 ? a >> b : 0; break;
            case 0x29: a = a == b; break;
            case 0x2a: a = (int64_t)a >= (int64_t)b; break;
            case 0x2b: a = (int64_t)a > (int64_t)b; break;
            case 0x2c: a = (int64_t)a <= (int64_t)b; break;
            case 0x2d: a = (int64_t)a < (int64_t)b; break;
            case 0x2e: a = a != b; break;
            }
            stack[top - 1] = a;
            break;
        default: return -1;
        }
    }
    if (c.bad || top < 1) {
        return -1;
    }
    *result = stack[top - 1];
    return 0;
}

/* ---- one step: the caller's registers from the callee's ------------------------------------------ */

static int step(const Tables *tables, uint64_t bias, Memory *memory, uint64_t *regs, int *known, int *signal_frame) {
    Row row;
    int ra_register = REG_RA;
    uint64_t pc = regs[REG_RA];
    /* a return address points after the call: look up the call itself (not in a signal frame's resumed pc) */
    uint64_t lookup = (*signal_frame ? pc : pc - 1) - bias;
    int status = row_at(tables, lookup, &row, signal_frame, &ra_register);
    if (status != UNWIND_COMPLETE) {
        return status;
    }
    uint64_t cfa;
    if (row.cfa_length > 0) {
        if (evaluate(tables, memory, row.cfa_expression, row.cfa_length, regs, known, 0, 0, &cfa) < 0) {
            return UNWIND_BAD_CFI;
        }
    } else {
        if (!known[row.cfa_register]) {
            return UNWIND_BAD_CFI;
        }
        cfa = regs[row.cfa_register] + (uint64_t)row.cfa_offset;
    }
    uint64_t next[NREGS];
    int next_known[NREGS];
    for (int reg = 0; reg < NREGS; reg++) {
        Rule *rule = &row.rules[reg];
        next[reg] = regs[reg];
        next_known[reg] = known[reg];
        uint64_t address;
        switch (rule->kind) {
        case RULE_SAME: break;
        case RULE_UNDEFINED: next_known[reg] = 0; break;
        case RULE_OFFSET:
            if (read_word(memory, cfa + (uint64_t)rule->value, &next[reg]) < 0) return UNWIND_READ_FAILED;
            next_known[reg] = 1;
            break;
        case RULE_VAL_OFFSET: next[reg] = cfa + (uint64_t)rule->value; next_known[reg] = 1; break;
        case RULE_REGISTER:
            if (rule->value < 0 || rule->value >= NREGS) return UNWIND_BAD_CFI;
            next[reg] = regs[rule->value];
            next_known[reg] = known[rule->value];
            break;
        case RULE_EXPRESSION:
        case RULE_VAL_EXPRESSION:
            if (evaluate(tables, memory, rule->expression, rule->length, regs, known, 1, cfa, &address) < 0) {
                return UNWIND_BAD_CFI;
            }
            if (rule->kind == RULE_EXPRESSION) {
                if (read_word(memory, address, &next[reg]) < 0) return UNWIND_READ_FAILED;
            } else {
                next[reg] = address;
            }
            next_known[reg] = 1;
            break;
        }
    }
    if (row.rules[ra_register].kind == RULE_UNDEFINED || row.rules[ra_register].kind == RULE_SAME) {
        return -1; /* the outermost frame: nothing called it */
    }
    uint64_t return_address = next[ra_register];
    if (row.rules[REG_SP].kind == RULE_SAME) {
        next[REG_SP] = cfa; /* the CFA is by definition the caller's stack pointer */
        next_known[REG_SP] = 1;
    }
    if (!*signal_frame && next[REG_SP] <= regs[REG_SP]) {
        return UNWIND_BAD_STACK;
    }
    memcpy(regs, next, sizeof(next));
    memcpy(known, next_known, sizeof(next_known));
    regs[REG_RA] = return_address;
    known[REG_RA] = 1;
    return UNWIND_COMPLETE;
}

/* ---- the modules handed in from Python ---------------------------------------------------------- */

/* modules: a list sorted by start of (start, end, bias, data: bytes, delta, hdr) tuples. Borrowed tuple or NULL. */
static PyObject *module_at(PyObject *modules, uint64_t pc) {
    Py_ssize_t low = 0, high = PyList_GET_SIZE(modules);
    while (low < high) {
        Py_ssize_t middle = (low + high) / 2;
        PyObject *item = PyList_GET_ITEM(modules, middle);
        uint64_t start = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 0));
        uint64_t end = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 1));
        if (pc < start) {
            high = middle;
        } else if (pc >= end) {
            low = middle + 1;
        } else {
            return item;
        }
    }
    return NULL;
}

static int module_tables(PyObject *item, Tables *tables, uint64_t *bias) {
    PyObject *data = PyTuple_GET_ITEM(item, 3);
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "unwind(): a module's data must be bytes");
        return -1;
    }
    *bias = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 2));
    tables->data = (const unsigned char *)PyBytes_AS_STRING(data);
    tables->size = PyBytes_GET_SIZE(data);
    tables->delta = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 4));
    tables->hdr = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 5));
    return PyErr_Occurred() ? -1 : 0;
}

static int check_modules(PyObject *modules) {
    if (!PyList_Check(modules)) {
        PyErr_SetString(PyExc_TypeError, "unwind(): modules must be a list");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(modules); i++) {
        PyObject *item = PyList_GET_ITEM(modules, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 6) {
            PyErr_SetString(PyExc_TypeError, "unwind(): each module is (start, end, bias, data, delta, hdr)");
            return -1;
        }
    }
    return 0;
}

static PyObject *unwind(PyObject *self, PyObject *args) {
    int pid;
    PyObject *registers, *modules;
    Py_ssize_t max_frames;
    if (!PyArg_ParseTuple(args, "iO!On:unwind", &pid, &PyTuple_Type, &registers, &modules, &max_frames)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(registers) != NREGS || max_frames < 1 || check_modules(modules) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "unwind(): 17 registers (DWARF order) and max_frames >= 1");
        }
        return NULL;
    }
    uint64_t regs[NREGS];
    int known[NREGS];
    for (int i = 0; i < NREGS; i++) {
        regs[i] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(registers, i));
        known[i] = 1;
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    Memory *memory = PyMem_Malloc(sizeof(Memory));
    PyObject *frames = PyList_New(0);
    if (memory == NULL || frames == NULL) {
        PyMem_Free(memory);
        Py_XDECREF(frames);
        return PyErr_NoMemory();
    }
    memory->pid = (pid_t)pid;
    memory->used = 0;
    int status = UNWIND_COMPLETE;
    int signal_frame = 1; /* the first pc is where the thread stopped, not a return address */
    for (;;) {
        PyObject *pc = PyLong_FromUnsignedLongLong(regs[REG_RA]);
        if (pc == NULL || PyList_Append(frames, pc) < 0) {
            Py_XDECREF(pc);
            Py_DECREF(frames);
            PyMem_Free(memory);
            return NULL;
        }
        Py_DECREF(pc);
        if (PyList_GET_SIZE(frames) >= max_frames) {
            status = UNWIND_TOO_DEEP;
            break;
        }
        PyObject *item = module_at(modules, signal_frame ? regs[REG_RA] : regs[REG_RA] - 1);
        if (item == NULL) {
            status = UNWIND_NO_MODULE;
            break;
        }
        Tables tables;
        uint64_t bias;
        if (module_tables(item, &tables, &bias) < 0) {
            Py_DECREF(frames);
            PyMem_Free(memory);
            return NULL;
        }
        int result;
        Py_BEGIN_ALLOW_THREADS
        result = step(&tables, bias, memory, regs, known, &signal_frame);
        Py_END_ALLOW_THREADS
        if (result < 0) {
            status = UNWIND_COMPLETE; /* the outermost frame */
            break;
        }
        if (result != UNWIND_COMPLETE) {
            status = result;
            break;
        }
        if (regs[REG_RA] == 0) {
            break; /* a zero return address also ends a stack (some thread entry points) */
        }
    }
    PyMem_Free(memory);
    return Py_BuildValue("(Ni)", frames, status);
}

/* ---- stopping a thread ------------------------------------------------------------------------ */

static PyObject *stop(PyObject *self, PyObject *args) {
    int tid;
    if (!PyArg_ParseTuple(args, "i:stop", &tid)) {
        return NULL;
    }
    struct user_regs_struct user;
    int failed = 0, error = 0, pending = 0, status = 0;
    Py_BEGIN_ALLOW_THREADS
    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
        failed = 1;
    } else if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
        failed = 2;
    } else {
        for (;;) {
            pid_t got = waitpid(tid, &status, __WALL);
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got != tid) {
                failed = 2;
            } else if (!WIFSTOPPED(status)) {
                failed = 3; /* it exited */
            } else {
                int event = status >> 16;
                /* a signal that arrived before our interrupt: deliver it when the thread goes on */
                if (event == 0 && WSTOPSIG(status) != SIGTRAP) {
                    pending = WSTOPSIG(status);
                }
                if (ptrace(PTRACE_GETREGS, tid, NULL, &user) < 0) {
                    failed = 2;
                }
            }
            break;
        }
    }
    error = errno;
    if (failed == 2) {
        ptrace(PTRACE_DETACH, tid, NULL, (void *)(uintptr_t)pending);
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        errno = failed == 3 ? ESRCH : error;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    unsigned long long values[NREGS] = {
        user.rax, user.rdx, user.rcx, user.rbx, user.rsi, user.rdi, user.rbp, user.rsp, user.r8,
        user.r9,  user.r10, user.r11, user.r12, user.r13, user.r14, user.r15, user.rip,
    };
    PyObject *registers = PyTuple_New(NREGS);
    if (registers == NULL) {
        ptrace(PTRACE_DETACH, tid, NULL, (void *)(uintptr_t)pending);
        return NULL;
    }
    for (int i = 0; i < NREGS; i++) {
        PyObject *value = PyLong_FromUnsignedLongLong(values[i]);
        if (value == NULL) {
            Py_DECREF(registers);
            ptrace(PTRACE_DETACH, tid, NULL, (void *)(uintptr_t)pending);
            return NULL;
        }
        PyTuple_SET_ITEM(registers, i, value);
    }
    return Py_BuildValue("(Ni)", registers, pending);
}

static PyObject *resume(PyObject *self, PyObject *args) {
    int tid, pending;
    if (!PyArg_ParseTuple(args, "ii:resume", &tid, &pending)) {
        return NULL;
    }
    if (ptrace(PTRACE_DETACH, tid, NULL, (void *)(uintptr_t)pending) < 0 && errno != ESRCH) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Py_RETURN_NONE;
}

#else /* not x86-64 Linux */

static PyObject *unsupported(PyObject *self, PyObject *args) {
    PyErr_SetString(PyExc_NotImplementedError, "native stacks are read on x86-64 Linux only");
    return NULL;
}
#define unwind unsupported
#define stop unsupported
#define resume unsupported

#endif

static PyMethodDef methods[] = {
    {"stop", stop, METH_VARARGS,
     "stop(tid) -> (registers, signal): stop thread tid (PTRACE_SEIZE + PTRACE_INTERRUPT) and read its 17 registers "
     "in DWARF order; signal is one that arrived meanwhile, to hand back to resume()."},
    {"resume", resume, METH_VARARGS, "resume(tid, signal): let a thread stopped by stop() go on (PTRACE_DETACH)."},
    {"unwind", unwind, METH_VARARGS,
     "unwind(pid, registers, modules, max_frames) -> (pcs, status): the program counters of a thread's native stack, "
     "innermost first, from its registers and the modules' .eh_frame tables; modules is a list sorted by start of "
     "(start, end, bias, file bytes, delta, eh_frame_hdr address)."},
    {NULL, NULL, 0, NULL},
};

/* Multi-phase init and no state of its own: one module object per interpreter, no GIL needed. */
static PyModuleDef_Slot slots[] = {
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_unwind", "Native stacks of another process's threads (see collect/remote/native.py).", 0,
    methods, slots,
};

PyMODINIT_FUNC PyInit__unwind(void) { return PyModuleDef_Init(&module); }
