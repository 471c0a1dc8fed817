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
#include <string.h>

#define MAX_INT_DIGITS 18   /* below 2**63: parsed as a C integer */
#define MAX_FLOAT_CHARS 64  /* longer decimal counts go to the Python reader */
#define MAX_VALUE 1e300     /* core.vector.MAX_VALUE: counts must be below it */

/* str.rstrip()'s ASCII whitespace, less '\n' and '\r' (handled as line ends). */
static inline int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f);
}

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The value of the count in [p, end), or NULL with no exception when Python must read it. */
static PyObject *parse_count(const unsigned char *p, const unsigned char *end) {
    Py_ssize_t n = end - p;
    const unsigned char *point = memchr(p, '.', (size_t)n);
    if (point == NULL) {
        if (n == 0 || n > MAX_INT_DIGITS) return NULL;
        long long value = 0;
        for (const unsigned char *q = p; q < end; q++) {
            if (!is_digit(*q)) return NULL;
            value = value * 10 + (*q - '0');
        }
        return PyLong_FromLongLong(value);
    }
    /* DIGITS "." *DIGIT, as folded._is_decimal accepts */
    if (point == p || n >= MAX_FLOAT_CHARS) return NULL;
    for (const unsigned char *q = p; q < end; q++) {
        if (q != point && !is_digit(*q)) return NULL;
    }
    char text[MAX_FLOAT_CHARS];
    memcpy(text, p, (size_t)n);
    text[n] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    if (!(value < MAX_VALUE)) return NULL;
    return PyFloat_FromDouble(value);
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
        const unsigned char *newline = memchr(pos, '\n', (size_t)(limit - pos));
        const unsigned char *end = newline ? newline : limit;
        if (newline == NULL && !final) break; /* status 0: the line continues in the next chunk */
        const unsigned char *next = newline ? newline + 1 : limit;
        if (lineno == 1) { status = 1; break; }
        if (end > pos && end[-1] == '\r') end--;
        if (end > pos && memchr(pos, '\r', (size_t)(end - pos)) != NULL) { status = 1; break; }
        while (end > pos && is_space(end[-1])) end--;
        if (end == pos) { /* blank line */
            pos = next;
            lineno++;
            continue;
        }
        if (*pos == '#') { status = 1; break; }
        const unsigned char *cut = end;
        while (cut > pos && cut[-1] != ' ' && cut[-1] != '\t') cut--;
        if (cut == pos) { status = 1; break; } /* no space or tab before the count */
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
        const unsigned char *stack_end = cut - 1;
        if (stack_end == pos || !(is_digit(stack_end[-1]) || stack_end[-1] == '.')
            || (memchr(pos, ' ', (size_t)(stack_end - pos)) == NULL && memchr(pos, '\t', (size_t)(stack_end - pos)) == NULL))
            plain++;
        pos = next;
        lineno++;
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("nninn", (Py_ssize_t)(pos - base), lineno, status, added, plain);
error:
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef methods[] = {
    {"sum_lines", sum_lines, METH_VARARGS,
     "sum_lines(data, start, counts, lineno, final, ints_only=False) -> (stop, lineno, status, added, plain): "
     "add the plain 'stack count' lines of data to counts; status 1 stops at a line for the Python reader, "
     "0 at the end of the data (or of its last whole line)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_folded", "The folded reader's inner loop (see formats/folded.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__folded(void) { return PyModule_Create(&module); }
