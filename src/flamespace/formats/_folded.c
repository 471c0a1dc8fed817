/* The folded reader's inner loop: split a buffer into lines, parse each line's count and add
 * it to a dict keyed by the stack text ("a;b;c"), without splitting stacks into frames.
 *
 * sum_lines(data, start, counts, lineno, final, ints_only=False) -> (stop, lineno, status, added, plain)
 *
 * Reads the lines of ``data`` from offset ``start``; ``lineno`` is the number of the line that
 * starts there. A line ends at '\n'; without one, the rest of ``data`` is a line only when
 * ``final`` (the end of the input), else status 0 asks for more input from ``stop``.
 * ``added``: lines added to ``counts``; ``plain``: how many of them have a stack that cannot end
 * in a count (its last byte is no digit or point, or it has no space or tab), so the input is
 * not differential (two counts per line) unless ``plain`` stays 0. ``ints_only``: a decimal
 * count goes to the Python reader too (a merge adds integer counts straight into its sum).
 *
 * Only lines that are plainly "stack SP count" with an ASCII count are handled here. Any other
 * line (the first line, which may hold a BOM; '#' headers; a '\r' that is no "\r\n" (universal
 * newlines make it a line break); a count that is no plain count, too long or out of range;
 * no space or tab) stops the loop with status 1 at that line's start, and the Python reader
 * (formats/folded.py) reads that one line with its own rules and messages, then calls again.
 * So errors, diagnostics and headers come from one place; this loop only makes the common
 * line cheap. Values are summed in line order, exactly as the Python loop sums them.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_INT_DIGITS 18   /* below 2**63: parsed as a C integer */
#define MAX_FLOAT_CHARS 64  /* longer decimal counts go to the Python reader */
#define MAX_VALUE 1e300     /* core.vector.MAX_VALUE: counts must be below it */

/* str.rstrip()'s ASCII whitespace, less '\n' and '\r' (handled as line ends). */
static inline int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f);
}

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The count in [p, end) as folded reads it: COUNT_INT with *whole, COUNT_REAL with *real
 * (DIGITS "." *DIGIT, as folded._is_decimal accepts), or COUNT_PYTHON when Python must read it. */
enum { COUNT_PYTHON, COUNT_INT, COUNT_REAL };
static int read_count(const unsigned char *p, const unsigned char *end, long long *whole, double *real) {
    Py_ssize_t n = end - p;
    const unsigned char *point = memchr(p, '.', (size_t)n);
    if (point == NULL) {
        if (n == 0 || n > MAX_INT_DIGITS) return COUNT_PYTHON;
        long long value = 0;
        for (const unsigned char *q = p; q < end; q++) {
            if (!is_digit(*q)) return COUNT_PYTHON;
            value = value * 10 + (*q - '0');
        }
        *whole = value;
        return COUNT_INT;
    }
    if (point == p || n >= MAX_FLOAT_CHARS) return COUNT_PYTHON;
    for (const unsigned char *q = p; q < end; q++) {
        if (q != point && !is_digit(*q)) return COUNT_PYTHON;
    }
    char text[MAX_FLOAT_CHARS];
    memcpy(text, p, (size_t)n);
    text[n] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return COUNT_PYTHON;
    }
    if (!(value < MAX_VALUE)) return COUNT_PYTHON;
    *real = value;
    return COUNT_REAL;
}

/* The value of the count in [p, end), or NULL with no exception when Python must read it. */
static PyObject *parse_count(const unsigned char *p, const unsigned char *end) {
    long long whole = 0;
    double real = 0.0;
    switch (read_count(p, end, &whole, &real)) {
    case COUNT_INT: return PyLong_FromLongLong(whole);
    case COUNT_REAL: return PyFloat_FromDouble(real);
    default: return NULL;
    }
}

/* What the loops of sum_lines and add_columns do with the line at pos. */
enum { LINE_STACK, LINE_BLANK, LINE_MORE, LINE_PYTHON };

/* Scans the line at pos (see the top of this file for which lines Python reads): LINE_MORE when
 * it continues in the next chunk; else *next is where the next line starts, and for LINE_STACK
 * [*cut, *end) is its count (the stack is [pos, *cut - 1)). */
static int scan_line(const unsigned char *pos, const unsigned char *limit, int final, Py_ssize_t lineno,
                     const unsigned char **cut_out, const unsigned char **end_out, const unsigned char **next_out) {
    const unsigned char *newline = memchr(pos, '\n', (size_t)(limit - pos));
    const unsigned char *end = newline ? newline : limit;
    if (newline == NULL && !final) return LINE_MORE;
    *next_out = newline ? newline + 1 : limit;
    if (lineno == 1) return LINE_PYTHON;
    if (end > pos && end[-1] == '\r') end--;
    if (end > pos && memchr(pos, '\r', (size_t)(end - pos)) != NULL) return LINE_PYTHON;
    while (end > pos && is_space(end[-1])) end--;
    if (end == pos) return LINE_BLANK;
    if (*pos == '#') return LINE_PYTHON;
    const unsigned char *cut = end;
    while (cut > pos && cut[-1] != ' ' && cut[-1] != '\t') cut--;
    if (cut == pos) return LINE_PYTHON; /* no space or tab before the count */
    *cut_out = cut;
    *end_out = end;
    return LINE_STACK;
}

/* 1 if the stack [pos, stack_end) cannot end in a count (so the input is not differential). */
static int is_plain(const unsigned char *pos, const unsigned char *stack_end) {
    return stack_end == pos || !(is_digit(stack_end[-1]) || stack_end[-1] == '.')
        || (memchr(pos, ' ', (size_t)(stack_end - pos)) == NULL && memchr(pos, '\t', (size_t)(stack_end - pos)) == NULL);
}

/* counts[key] = counts.get(key, 0) + value; steals nothing. -1 on error. */
static int add(PyObject *counts, PyObject *key, PyObject *value) {
    PyObject *old = PyDict_GetItemWithError(counts, key); /* borrowed */
    if (old == NULL) {
        if (PyErr_Occurred()) return -1;
        return PyDict_SetItem(counts, key, value);
    }
    PyObject *sum = PyNumber_Add(old, value);
    if (sum == NULL) return -1;
    int result = PyDict_SetItem(counts, key, sum);
    Py_DECREF(sum);
    return result;
}

static PyObject *sum_lines(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, lineno;
    PyObject *counts;
    int final, ints_only = 0;
    Py_ssize_t added = 0, plain = 0;
    if (!PyArg_ParseTuple(args, "y*nO!np|p:sum_lines", &view, &start, &PyDict_Type, &counts, &lineno, &final, &ints_only))
        return NULL;
    const unsigned char *base = (const unsigned char *)view.buf;
    const unsigned char *limit = base + view.len;
    if (start < 0 || start > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "start is outside the buffer");
        return NULL;
    }
    const unsigned char *pos = base + start;
    int status = 0;
    while (pos < limit) {
        const unsigned char *cut = NULL, *end = NULL, *next = NULL;
        int kind = scan_line(pos, limit, final, lineno, &cut, &end, &next);
        if (kind == LINE_MORE) break; /* status 0: the line continues in the next chunk */
        if (kind == LINE_PYTHON) { status = 1; break; }
        if (kind == LINE_BLANK) { pos = next; lineno++; continue; }
        PyObject *value = (ints_only && memchr(cut, '.', (size_t)(end - cut)) != NULL) ? NULL : parse_count(cut, end);
        if (value == NULL) {
            if (PyErr_Occurred()) goto error;
            status = 1;
            break;
        }
        PyObject *key = PyUnicode_DecodeUTF8((const char *)pos, cut - 1 - pos, "surrogateescape");
        if (key == NULL) { Py_DECREF(value); goto error; }
        int failed = add(counts, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (failed) goto error;
        added++;
        plain += is_plain(pos, cut - 1);
        pos = next;
        lineno++;
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("nninn", (Py_ssize_t)(pos - base), lineno, status, added, plain);
error:
    PyBuffer_Release(&view);
    return NULL;
}


/* ---- Columns: the runs of a sample read against one table of stack texts kept across runs ----
 *
 * A table maps each stack text (its UTF-8 bytes) to a column of the runs x stacks matrix; it
 * only grows. add_columns reads lines as sum_lines does (same lines taken, same stops) but adds
 * each value to the current run's cell of its stack, found by a hash of the bytes: no str and
 * no dict per run for a stack seen before. take_run ends the run: its stacks with a non-zero
 * sum, in first-appearance order, get columns (a new stack: index.setdefault(text, len(index)),
 * the Python dict of the caller, so runs read another way share the columns) and come back as
 * (columns as intp bytes, values as a list of int/float, summed exactly as the Python dict
 * sums them). A sum that would overflow a C integer stops at that line like any other line
 * for the Python reader, whose add_text then refuses it (the caller reads the run another way).
 */

typedef struct {
    char *text;
    Py_ssize_t len;
    uint64_t hash;
    Py_ssize_t column; /* -1 until the stack is non-zero in some run */
    Py_ssize_t run;    /* the run whose cell is `cell` */
    Py_ssize_t cell;
} Entry;

typedef struct {
    long long whole;
    double real;
    int is_real;
    Py_ssize_t entry;
} Cell;

typedef struct {
    Entry *entries;
    Py_ssize_t count, capacity;
    Py_ssize_t *buckets; /* entry index + 1; 0 is empty */
    Py_ssize_t mask;
    Cell *cells;
    Py_ssize_t cells_used, cells_capacity;
    Py_ssize_t run;
} Table;

#define TABLE_NAME "flamespace.formats._folded.Table"

static void table_free(PyObject *capsule) {
    Table *t = PyCapsule_GetPointer(capsule, TABLE_NAME);
    if (t == NULL) return;
    for (Py_ssize_t i = 0; i < t->count; i++) PyMem_Free(t->entries[i].text);
    PyMem_Free(t->entries);
    PyMem_Free(t->buckets);
    PyMem_Free(t->cells);
    PyMem_Free(t);
}

static PyObject *table_new(PyObject *self, PyObject *args) {
    Table *t = PyMem_Calloc(1, sizeof(Table));
    if (t == NULL) return PyErr_NoMemory();
    t->mask = 1023;
    t->buckets = PyMem_Calloc((size_t)t->mask + 1, sizeof(Py_ssize_t));
    if (t->buckets == NULL) { PyMem_Free(t); return PyErr_NoMemory(); }
    PyObject *capsule = PyCapsule_New(t, TABLE_NAME, table_free);
    if (capsule == NULL) { PyMem_Free(t->buckets); PyMem_Free(t); }
    return capsule;
}

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, (size_t)n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 32);
}

static int table_grow(Table *t) {
    Py_ssize_t size = (t->mask + 1) * 2;
    Py_ssize_t *buckets = PyMem_Calloc((size_t)size, sizeof(Py_ssize_t));
    if (buckets == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < t->count; i++) {
        Py_ssize_t b = (Py_ssize_t)(t->entries[i].hash & (uint64_t)(size - 1));
        while (buckets[b]) b = (b + 1) & (size - 1);
        buckets[b] = i + 1;
    }
    PyMem_Free(t->buckets);
    t->buckets = buckets;
    t->mask = size - 1;
    return 0;
}

/* The cell of the stack [p, p + n) in the current run, made on first sight; NULL on error. */
static Cell *cell_of(Table *t, const unsigned char *p, Py_ssize_t n) {
    uint64_t h = hash_bytes(p, n);
    Py_ssize_t b = (Py_ssize_t)(h & (uint64_t)t->mask);
    Entry *e = NULL;
    for (;;) {
        Py_ssize_t i = t->buckets[b];
        if (i == 0) break;
        Entry *candidate = &t->entries[i - 1];
        if (candidate->hash == h && candidate->len == n && memcmp(candidate->text, p, (size_t)n) == 0) {
            e = candidate;
            break;
        }
        b = (b + 1) & t->mask;
    }
    if (e == NULL) {
        if (t->count == t->capacity) {
            Py_ssize_t capacity = t->capacity ? t->capacity * 2 : 1024;
            Entry *entries = PyMem_Realloc(t->entries, (size_t)capacity * sizeof(Entry));
            if (entries == NULL) { PyErr_NoMemory(); return NULL; }
            t->entries = entries;
            t->capacity = capacity;
        }
        char *text = PyMem_Malloc(n ? (size_t)n : 1);
        if (text == NULL) { PyErr_NoMemory(); return NULL; }
        memcpy(text, p, (size_t)n);
        e = &t->entries[t->count];
        e->text = text;
        e->len = n;
        e->hash = h;
        e->column = -1;
        e->run = -1;
        e->cell = 0;
        t->buckets[b] = ++t->count;
        if (t->count * 2 > t->mask) {
            Py_ssize_t index = t->count - 1;
            if (table_grow(t)) return NULL;
            e = &t->entries[index];
        }
    }
    if (e->run == t->run) return &t->cells[e->cell];
    if (t->cells_used == t->cells_capacity) {
        Py_ssize_t capacity = t->cells_capacity ? t->cells_capacity * 2 : 1024;
        Cell *cells = PyMem_Realloc(t->cells, (size_t)capacity * sizeof(Cell));
        if (cells == NULL) { PyErr_NoMemory(); return NULL; }
        t->cells = cells;
        t->cells_capacity = capacity;
    }
    e->run = t->run;
    e->cell = t->cells_used++;
    Cell *c = &t->cells[e->cell];
    c->whole = 0;
    c->real = 0.0;
    c->is_real = 0;
    c->entry = e - t->entries;
    return c;
}

/* Add a count to a cell as Python adds int and float; 0 when an int sum would overflow (cell unchanged). */
static int cell_add(Cell *c, int is_real, long long whole, double real) {
    if (is_real) {
        c->real = (c->is_real ? c->real : (double)c->whole) + real;
        c->is_real = 1;
    } else if (c->is_real) {
        c->real += (double)whole;
    } else {
        long long sum;
        if (__builtin_add_overflow(c->whole, whole, &sum)) return 0;
        c->whole = sum;
    }
    return 1;
}

static Table *get_table(PyObject *capsule) { return PyCapsule_GetPointer(capsule, TABLE_NAME); }

static PyObject *add_columns(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, lineno;
    PyObject *capsule;
    int final;
    Py_ssize_t added = 0, plain = 0;
    if (!PyArg_ParseTuple(args, "y*nOnp:add_columns", &view, &start, &capsule, &lineno, &final)) return NULL;
    Table *t = get_table(capsule);
    if (t == NULL) { PyBuffer_Release(&view); return NULL; }
    const unsigned char *base = (const unsigned char *)view.buf;
    const unsigned char *limit = base + view.len;
    if (start < 0 || start > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "start is outside the buffer");
        return NULL;
    }
    const unsigned char *pos = base + start;
    int status = 0;
    while (pos < limit) { /* the lines sum_lines takes, and no others */
        const unsigned char *cut = NULL, *end = NULL, *next = NULL;
        int kind = scan_line(pos, limit, final, lineno, &cut, &end, &next);
        if (kind == LINE_MORE) break; /* status 0: the line continues in the next chunk */
        if (kind == LINE_PYTHON) { status = 1; break; }
        if (kind == LINE_BLANK) { pos = next; lineno++; continue; }
        long long whole = 0;
        double real = 0.0;
        int count = read_count(cut, end, &whole, &real); /* as parse_count reads it, without an object */
        if (count == COUNT_PYTHON) { status = 1; break; }
        Cell *c = cell_of(t, pos, cut - 1 - pos);
        if (c == NULL) goto error;
        if (!cell_add(c, count == COUNT_REAL, whole, real)) { status = 1; break; } /* Python reads it, and refuses it */
        added++;
        plain += is_plain(pos, cut - 1);
        pos = next;
        lineno++;
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("nninn", (Py_ssize_t)(pos - base), lineno, status, added, plain);
error:
    PyBuffer_Release(&view);
    return NULL;
}

static PyObject *add_text(PyObject *self, PyObject *args) {
    PyObject *capsule, *text, *value;
    if (!PyArg_ParseTuple(args, "OUO:add_text", &capsule, &text, &value)) return NULL;
    Table *t = get_table(capsule);
    if (t == NULL) return NULL;
    int is_real = PyFloat_Check(value);
    long long whole = 0;
    double real = 0.0;
    if (is_real) {
        real = PyFloat_AS_DOUBLE(value);
    } else {
        int overflow = 0;
        whole = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (whole == -1 && PyErr_Occurred()) return NULL;
        if (overflow) Py_RETURN_FALSE;
    }
    PyObject *bytes = PyUnicode_AsEncodedString(text, "utf-8", "surrogateescape");
    if (bytes == NULL) return NULL;
    Cell *c = cell_of(t, (const unsigned char *)PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
    Py_DECREF(bytes);
    if (c == NULL) return NULL;
    if (!cell_add(c, is_real, whole, real)) Py_RETURN_FALSE;
    Py_RETURN_TRUE;
}

static PyObject *take_run(PyObject *self, PyObject *args) {
    PyObject *capsule, *index;
    if (!PyArg_ParseTuple(args, "OO!:take_run", &capsule, &PyDict_Type, &index)) return NULL;
    Table *t = get_table(capsule);
    if (t == NULL) return NULL;
    PyObject *values = PyList_New(0), *columns = NULL;
    if (values == NULL) return NULL;
    Py_ssize_t *out = PyMem_Malloc((size_t)(t->cells_used ? t->cells_used : 1) * sizeof(Py_ssize_t));
    if (out == NULL) { Py_DECREF(values); return PyErr_NoMemory(); }
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < t->cells_used; k++) {
        Cell *c = &t->cells[k];
        if (c->is_real ? c->real == 0.0 : c->whole == 0) continue; /* a run has no stack of value 0 */
        Entry *e = &t->entries[c->entry];
        if (e->column < 0) {
            PyObject *key = PyUnicode_DecodeUTF8(e->text, e->len, "surrogateescape");
            if (key == NULL) goto error;
            PyObject *next = PyLong_FromSsize_t(PyDict_GET_SIZE(index));
            if (next == NULL) { Py_DECREF(key); goto error; }
            PyObject *column = PyDict_SetDefault(index, key, next); /* borrowed */
            Py_DECREF(key);
            Py_DECREF(next);
            if (column == NULL) goto error;
            e->column = PyLong_AsSsize_t(column);
            if (e->column == -1 && PyErr_Occurred()) goto error;
        }
        PyObject *value = c->is_real ? PyFloat_FromDouble(c->real) : PyLong_FromLongLong(c->whole);
        if (value == NULL || PyList_Append(values, value)) { Py_XDECREF(value); goto error; }
        Py_DECREF(value);
        out[n++] = e->column;
    }
    columns = PyBytes_FromStringAndSize((const char *)out, n * (Py_ssize_t)sizeof(Py_ssize_t));
    if (columns == NULL) goto error;
    PyMem_Free(out);
    t->cells_used = 0;
    t->run++;
    PyObject *result = PyTuple_Pack(2, columns, values);
    Py_DECREF(columns);
    Py_DECREF(values);
    return result;
error:
    PyMem_Free(out);
    Py_DECREF(values);
    return NULL;
}

static PyObject *drop_run(PyObject *self, PyObject *args) {
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O:drop_run", &capsule)) return NULL;
    Table *t = get_table(capsule);
    if (t == NULL) return NULL;
    t->cells_used = 0;
    t->run++;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"table_new", table_new, METH_NOARGS, "table_new() -> a table of stack texts -> columns, kept across runs."},
    {"add_columns", add_columns, METH_VARARGS,
     "add_columns(data, start, table, lineno, final) -> (stop, lineno, status, added, plain): "
     "sum_lines, adding into the table's current run."},
    {"add_text", add_text, METH_VARARGS,
     "add_text(table, text, value) -> bool: add a line the Python reader read; False when the sum leaves a C integer."},
    {"take_run", take_run, METH_VARARGS,
     "take_run(table, index) -> (columns as intp bytes, values): end the run; new stacks get index.setdefault(text, len(index))."},
    {"drop_run", drop_run, METH_VARARGS, "drop_run(table): forget the current run."},

    {"sum_lines", sum_lines, METH_VARARGS,
     "sum_lines(data, start, counts, lineno, final, ints_only=False) -> (stop, lineno, status, added, plain): "
     "add the plain 'stack count' lines of data to counts; status 1 stops at a line for the Python reader, "
     "0 at the end of the data (or of its last whole line)."},
    {NULL, NULL, 0, NULL},
};

/* Multi-phase init and no state of its own: one module object per interpreter (subinterpreters
 * with their own GIL included), and no GIL needed on free-threaded builds (3.13t+): the functions
 * touch only their arguments. */
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
    PyModuleDef_HEAD_INIT, "_folded", "The folded reader's inner loop (see formats/folded.py).", 0, methods, slots,
};

PyMODINIT_FUNC PyInit__folded(void) { return PyModuleDef_Init(&module); }
