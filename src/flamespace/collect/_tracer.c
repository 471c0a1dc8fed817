/* A deterministic tracer: every call and return of Python functions (and, optionally, of
 * builtins and other C functions), per thread, with integer nanoseconds.
 *
 * Why C: a profile function written in Python costs microseconds per event, ten times what
 * the call it measures costs; cProfile's C hook is the yardstick (issue 16). The hook here
 * does as little as it can: read CLOCK_MONOTONIC (the clock of time.monotonic_ns, so the
 * Python side can align), turn the code object (or the C function's PyMethodDef) into a small
 * integer through an open-addressing table, and append a 16-byte event to the thread's
 * chunked buffer. Turning events into a call tree (calls, inclusive, exclusive, longest call
 * per node, and optionally the time-ordered segments of a flame chart) is Buffer.analyse(),
 * also in C: a Python loop over a million events would cost more than the tracing did.
 *
 * Integer nanoseconds throughout: sums of floats drift, sums of integers are exact, so
 * inclusive = exclusive + callees' inclusive holds to the nanosecond for every node.
 *
 * Interpreters: the hook is a PyEval_SetProfile function (3.9-3.11). Yield and exceptions
 * give PyTrace_RETURN there, so generators, coroutines and unwinding keep the stack
 * consistent. Threads started after start() install the hook themselves (install_thread,
 * called by threading.setprofile's first event); stop() removes it from every thread state
 * that has it. 3.12+ (PEP 669, sys.monitoring) is the planned path there: start() refuses.
 *
 * Bounded memory: after max_events events (all threads together) recording stops; later
 * events are only counted (dropped) and the time of the first dropped one is kept, so the
 * analysis closes every open frame there.
 *
 * All state is global and guarded by the GIL (the hook always runs with it held).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define KIND_CALL 0
#define KIND_RETURN 1
#define CHUNK_EVENTS 65536

typedef struct {
    int64_t t;
    int32_t kind;
    int32_t key;
} Event;

typedef struct {
    PyObject_HEAD
    Event **chunks;
    Py_ssize_t nchunks;  /* chunks allocated; the last is being filled */
    Py_ssize_t used;     /* events in the last chunk */
    Py_ssize_t events;
    PyObject *name;
    unsigned long ident;
} Buffer;

static PyTypeObject BufferType;

/* ---- the session ------------------------------------------------------------------- */

static int active = 0;
static int builtins = 0;
static long long max_events = 0;
static long long recorded = 0;
static long long dropped = 0;
static int64_t full_at = 0;
static PyObject *entries = NULL;  /* list: code objects and C function names, by key */
static PyObject *buffers = NULL;  /* list of every Buffer of the session */

/* The key table: pointer -> key, open addressing, capacity a power of two, at most half full. */
static const void **table_ptr = NULL;
static int32_t *table_key = NULL;
static size_t table_cap = 0, table_len = 0;
static const void *last_ptr = NULL;
static int32_t last_key = -1;

static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline size_t hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static void table_free(void)
{
    PyMem_RawFree(table_ptr);
    PyMem_RawFree(table_key);
    table_ptr = NULL;
    table_key = NULL;
    table_cap = table_len = 0;
    last_ptr = NULL;
    last_key = -1;
}

static int table_grow(void)
{
    size_t cap = table_cap ? table_cap * 2 : 1024;
    const void **ptrs = PyMem_RawCalloc(cap, sizeof(void *));
    int32_t *keys = PyMem_RawMalloc(cap * sizeof(int32_t));
    if (ptrs == NULL || keys == NULL) {
        PyMem_RawFree(ptrs);
        PyMem_RawFree(keys);
        return -1;
    }
    for (size_t i = 0; i < table_cap; i++) {
        if (table_ptr[i] == NULL) {
            continue;
        }
        size_t j = hash_ptr(table_ptr[i]) & (cap - 1);
        while (ptrs[j] != NULL) {
            j = (j + 1) & (cap - 1);
        }
        ptrs[j] = table_ptr[i];
        keys[j] = table_key[i];
    }
    PyMem_RawFree(table_ptr);
    PyMem_RawFree(table_key);
    table_ptr = ptrs;
    table_key = keys;
    table_cap = cap;
    return 0;
}

/* The name of a C function, as "module.name" or "type.name" (the entry for its key). */
static PyObject *c_function_name(PyCFunctionObject *fn)
{
    const char *name = fn->m_ml->ml_name;
    PyObject *self = fn->m_self;
    if (self != NULL && !PyModule_Check(self)) {
        PyTypeObject *type = PyType_Check(self) ? (PyTypeObject *)self : Py_TYPE(self);
        return PyUnicode_FromFormat("%s.%s", type->tp_name, name);
    }
    if (fn->m_module != NULL && PyUnicode_Check(fn->m_module)) {
        return PyUnicode_FromFormat("%U.%s", fn->m_module, name);
    }
    return PyUnicode_FromString(name);
}

/* The key of ``ptr``; on first sight ``entry`` (a new reference, or NULL: make the C name from
 * ``fn``) is appended to entries. -1 on failure (no exception is left set). */
static int32_t key_of(const void *ptr, PyObject *entry, PyCFunctionObject *fn)
{
    if (ptr == last_ptr) {
        Py_XDECREF(entry);
        return last_key;
    }
    if (table_cap) {
        size_t j = hash_ptr(ptr) & (table_cap - 1);
        while (table_ptr[j] != NULL) {
            if (table_ptr[j] == ptr) {
                Py_XDECREF(entry);
                last_ptr = ptr;
                return last_key = table_key[j];
            }
            j = (j + 1) & (table_cap - 1);
        }
    }
    if ((table_len + 1) * 2 > table_cap && table_grow() < 0) {
        Py_XDECREF(entry);
        return -1;
    }
    if (entry == NULL) {
        entry = c_function_name(fn);
        if (entry == NULL) {
            PyErr_Clear();
            return -1;
        }
    }
    int32_t key = (int32_t)PyList_GET_SIZE(entries);
    if (PyList_Append(entries, entry) < 0) {
        Py_DECREF(entry);
        PyErr_Clear();
        return -1;
    }
    Py_DECREF(entry);
    size_t j = hash_ptr(ptr) & (table_cap - 1);
    while (table_ptr[j] != NULL) {
        j = (j + 1) & (table_cap - 1);
    }
    table_ptr[j] = ptr;
    table_key[j] = key;
    table_len++;
    last_ptr = ptr;
    return last_key = key;
}

/* Stop recording from now on (the bound was reached, or memory ran out). */
static void stop_recording(int64_t t)
{
    if (full_at == 0) {
        full_at = t;
    }
    dropped++;
}

static inline void record(Buffer *b, int32_t kind, int32_t key, int64_t t)
{
    if (recorded >= max_events || full_at) {
        stop_recording(t);
        return;
    }
    if (b->nchunks == 0 || b->used == CHUNK_EVENTS) {
        Event **chunks = PyMem_RawRealloc(b->chunks, (b->nchunks + 1) * sizeof(Event *));
        if (chunks == NULL) {
            stop_recording(t);
            return;
        }
        b->chunks = chunks;
        Event *chunk = PyMem_RawMalloc(CHUNK_EVENTS * sizeof(Event));
        if (chunk == NULL) {
            stop_recording(t);
            return;
        }
        b->chunks[b->nchunks++] = chunk;
        b->used = 0;
    }
    Event *e = &b->chunks[b->nchunks - 1][b->used++];
    e->t = t;
    e->kind = kind;
    e->key = key;
    b->events++;
    recorded++;
}

static int hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    int64_t t = now_ns();
    Buffer *b = (Buffer *)obj;
    int32_t key;
    switch (what) {
    case PyTrace_CALL: {
        if (recorded >= max_events || full_at) {
            stop_recording(t);
            return 0;
        }
        PyCodeObject *code = PyFrame_GetCode(frame);  /* a new reference (3.9+) */
        Py_INCREF(code);  /* one more: the entry's, if it is new (key_of drops it otherwise) */
        key = key_of(code, (PyObject *)code, NULL);
        Py_DECREF(code);
        if (key < 0) {
            stop_recording(t);
            return 0;
        }
        record(b, KIND_CALL, key, t);
        return 0;
    }
    case PyTrace_RETURN:
        record(b, KIND_RETURN, 0, t);
        return 0;
    case PyTrace_C_CALL:
        if (!builtins || arg == NULL || !PyCFunction_Check(arg)) {
            return 0;
        }
        if (recorded >= max_events || full_at) {
            stop_recording(t);
            return 0;
        }
        key = key_of(((PyCFunctionObject *)arg)->m_ml, NULL, (PyCFunctionObject *)arg);
        if (key < 0) {
            stop_recording(t);
            return 0;
        }
        record(b, KIND_CALL, key, t);
        return 0;
    case PyTrace_C_RETURN:
    case PyTrace_C_EXCEPTION:
        if (!builtins || arg == NULL || !PyCFunction_Check(arg)) {
            return 0;
        }
        record(b, KIND_RETURN, 0, t);
        return 0;
    default:
        return 0;
    }
}

/* ---- Buffer ------------------------------------------------------------------------ */

static Buffer *buffer_new(PyObject *name)
{
    Buffer *b = PyObject_New(Buffer, &BufferType);
    if (b == NULL) {
        return NULL;
    }
    b->chunks = NULL;
    b->nchunks = b->used = b->events = 0;
    Py_INCREF(name);
    b->name = name;
    b->ident = PyThread_get_thread_ident();
    return b;
}

static void Buffer_dealloc(Buffer *b)
{
    for (Py_ssize_t i = 0; i < b->nchunks; i++) {
        PyMem_RawFree(b->chunks[i]);
    }
    PyMem_RawFree(b->chunks);
    Py_XDECREF(b->name);
    PyObject_Free(b);
}

static Py_ssize_t Buffer_len(Buffer *b)
{
    return b->events;
}

static inline Event *event_at(Buffer *b, Py_ssize_t i)
{
    return &b->chunks[i / CHUNK_EVENTS][i % CHUNK_EVENTS];
}

static PyObject *Buffer_events(Buffer *b, PyObject *unused)
{
    PyObject *list = PyList_New(b->events);
    if (list == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < b->events; i++) {
        Event *e = event_at(b, i);
        PyObject *item = Py_BuildValue("(iiL)", e->kind, e->key, (long long)e->t);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

typedef struct {
    int32_t parent;
    int32_t key;
    int64_t calls, inclusive, exclusive, longest;
} Node;

typedef struct {
    Node *nodes;
    size_t len, cap;
    uint64_t *slot_key;  /* 1 << 63 | (parent + 1) << 32 | key; 0 = empty */
    int32_t *slot_node;
    size_t slots;
} Tree;

static int tree_add_slot(Tree *tr, uint64_t k, int32_t node)
{
    size_t j = hash_ptr((const void *)(uintptr_t)k) & (tr->slots - 1);
    while (tr->slot_key[j] != 0) {
        j = (j + 1) & (tr->slots - 1);
    }
    tr->slot_key[j] = k;
    tr->slot_node[j] = node;
    return 0;
}

static int tree_grow_slots(Tree *tr)
{
    size_t old = tr->slots;
    uint64_t *old_keys = tr->slot_key;
    int32_t *old_nodes = tr->slot_node;
    tr->slots = old ? old * 2 : 1024;
    tr->slot_key = PyMem_RawCalloc(tr->slots, sizeof(uint64_t));
    tr->slot_node = PyMem_RawMalloc(tr->slots * sizeof(int32_t));
    if (tr->slot_key == NULL || tr->slot_node == NULL) {
        PyMem_RawFree(old_keys);
        PyMem_RawFree(old_nodes);
        return -1;
    }
    for (size_t i = 0; i < old; i++) {
        if (old_keys[i]) {
            tree_add_slot(tr, old_keys[i], old_nodes[i]);
        }
    }
    PyMem_RawFree(old_keys);
    PyMem_RawFree(old_nodes);
    return 0;
}

/* The child of ``parent`` for ``key``, made on first sight; -1 when memory ran out. */
static int32_t tree_child(Tree *tr, int32_t parent, int32_t key)
{
    uint64_t k = (1ULL << 63) | ((uint64_t)(uint32_t)(parent + 1) << 32) | (uint32_t)key;  /* never 0: 0 is an empty slot */
    if (tr->slots) {
        size_t j = hash_ptr((const void *)(uintptr_t)k) & (tr->slots - 1);
        while (tr->slot_key[j] != 0) {
            if (tr->slot_key[j] == k) {
                return tr->slot_node[j];
            }
            j = (j + 1) & (tr->slots - 1);
        }
    }
    if ((tr->len + 1) * 2 > tr->slots && tree_grow_slots(tr) < 0) {
        return -1;
    }
    if (tr->len == tr->cap) {
        size_t cap = tr->cap ? tr->cap * 2 : 256;
        Node *nodes = PyMem_RawRealloc(tr->nodes, cap * sizeof(Node));
        if (nodes == NULL) {
            return -1;
        }
        tr->nodes = nodes;
        tr->cap = cap;
    }
    int32_t node = (int32_t)tr->len++;
    Node *n = &tr->nodes[node];
    n->parent = parent;
    n->key = key;
    n->calls = n->inclusive = n->exclusive = n->longest = 0;
    tree_add_slot(tr, k, node);
    return node;
}

typedef struct {
    int32_t node;
    int64_t since;
} Open;

static PyObject *int64_list(Node *nodes, size_t len, size_t offset)
{
    PyObject *list = PyList_New((Py_ssize_t)len);
    if (list == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        int64_t value = *(int64_t *)((char *)&nodes[i] + offset);
        PyObject *item = PyLong_FromLongLong(value);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* analyse(end_ns, segments) -> (parents, keys, calls, inclusive, exclusive, longest, times, nodes, weights)
 *
 * The call tree of this thread's events: node i is a full stack (its parent's stack plus
 * entry keys[i]; parent -1 is the root). A return with nothing open (a frame entered before
 * tracing started) is skipped; frames still open at end_ns are closed there. Exclusive time
 * is counted between events, inclusive time from call to return, separately: the identity
 * inclusive = exclusive + callees' inclusive is a check, not a definition. With segments,
 * times, nodes and weights are the bytes of three int64 arrays: each stretch between two
 * events while a frame was open, as (end ns, node, length ns). */
static PyObject *Buffer_analyse(Buffer *b, PyObject *args)
{
    long long end_ns;
    int want_segments;
    if (!PyArg_ParseTuple(args, "Lp", &end_ns, &want_segments)) {
        return NULL;
    }
    Tree tr = {0};
    Open *stack = NULL;
    size_t depth = 0, stack_cap = 0;
    int64_t *seg_t = NULL, *seg_n = NULL, *seg_w = NULL;
    size_t nseg = 0;
    PyObject *result = NULL;
    if (want_segments) {
        seg_t = PyMem_RawMalloc((b->events + 1) * sizeof(int64_t));
        seg_n = PyMem_RawMalloc((b->events + 1) * sizeof(int64_t));
        seg_w = PyMem_RawMalloc((b->events + 1) * sizeof(int64_t));
        if (seg_t == NULL || seg_n == NULL || seg_w == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    int64_t last = b->events ? event_at(b, 0)->t : end_ns;
    for (Py_ssize_t i = 0; i <= b->events; i++) {
        int is_end = i == b->events;
        Event *e = is_end ? NULL : event_at(b, i);
        int64_t t = is_end ? end_ns : e->t;
        if (t < last) {
            t = last;  /* end_ns before the last event: never let time run backwards */
        }
        if (depth) {
            int32_t top = stack[depth - 1].node;
            tr.nodes[top].exclusive += t - last;
            if (want_segments && t > last) {
                seg_t[nseg] = t;
                seg_w[nseg] = t - last;
                seg_n[nseg++] = top;
            }
        }
        last = t;
        if (is_end) {
            while (depth) {
                Open *o = &stack[--depth];
                int64_t d = t - o->since;
                tr.nodes[o->node].inclusive += d;
                if (d > tr.nodes[o->node].longest) {
                    tr.nodes[o->node].longest = d;
                }
            }
            break;
        }
        if (e->kind == KIND_CALL) {
            int32_t parent = depth ? stack[depth - 1].node : -1;
            int32_t node = tree_child(&tr, parent, e->key);
            if (node < 0) {
                PyErr_NoMemory();
                goto done;
            }
            if (depth == stack_cap) {
                size_t cap = stack_cap ? stack_cap * 2 : 256;
                Open *grown = PyMem_RawRealloc(stack, cap * sizeof(Open));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                stack = grown;
                stack_cap = cap;
            }
            tr.nodes[node].calls++;
            stack[depth].node = node;
            stack[depth++].since = t;
        } else if (depth) {
            Open *o = &stack[--depth];
            int64_t d = t - o->since;
            tr.nodes[o->node].inclusive += d;
            if (d > tr.nodes[o->node].longest) {
                tr.nodes[o->node].longest = d;
            }
        }
    }
    PyObject *parents = PyList_New((Py_ssize_t)tr.len);
    PyObject *keys = PyList_New((Py_ssize_t)tr.len);
    if (parents == NULL || keys == NULL) {
        Py_XDECREF(parents);
        Py_XDECREF(keys);
        goto done;
    }
    for (size_t i = 0; i < tr.len; i++) {
        PyList_SET_ITEM(parents, (Py_ssize_t)i, PyLong_FromLong(tr.nodes[i].parent));
        PyList_SET_ITEM(keys, (Py_ssize_t)i, PyLong_FromLong(tr.nodes[i].key));
    }
    PyObject *times = want_segments ? PyBytes_FromStringAndSize((char *)seg_t, (Py_ssize_t)(nseg * sizeof(int64_t)))
                                    : (Py_INCREF(Py_None), Py_None);
    PyObject *seg_nodes = want_segments ? PyBytes_FromStringAndSize((char *)seg_n, (Py_ssize_t)(nseg * sizeof(int64_t)))
                                        : (Py_INCREF(Py_None), Py_None);
    PyObject *seg_weights = want_segments ? PyBytes_FromStringAndSize((char *)seg_w, (Py_ssize_t)(nseg * sizeof(int64_t)))
                                          : (Py_INCREF(Py_None), Py_None);
    result = Py_BuildValue("(NNNNNNNNN)", parents, keys, int64_list(tr.nodes, tr.len, offsetof(Node, calls)),
                           int64_list(tr.nodes, tr.len, offsetof(Node, inclusive)),
                           int64_list(tr.nodes, tr.len, offsetof(Node, exclusive)),
                           int64_list(tr.nodes, tr.len, offsetof(Node, longest)), times, seg_nodes,
                           seg_weights);
done:
    PyMem_RawFree(tr.nodes);
    PyMem_RawFree(tr.slot_key);
    PyMem_RawFree(tr.slot_node);
    PyMem_RawFree(stack);
    PyMem_RawFree(seg_t);
    PyMem_RawFree(seg_n);
    PyMem_RawFree(seg_w);
    return result;
}

static PyObject *Buffer_get_name(Buffer *b, void *closure)
{
    Py_INCREF(b->name);
    return b->name;
}

static PyObject *Buffer_get_ident(Buffer *b, void *closure)
{
    return PyLong_FromUnsignedLong(b->ident);
}

static PyMethodDef Buffer_methods[] = {
    {"analyse", (PyCFunction)Buffer_analyse, METH_VARARGS,
     "analyse(end_ns, segments) -> (parents, keys, calls, inclusive, exclusive, longest, times, nodes, weights)"},
    {"events", (PyCFunction)Buffer_events, METH_NOARGS, "events() -> [(kind, key, t)]: 0 call, 1 return"},
    {NULL},
};

static PyGetSetDef Buffer_getset[] = {
    {"name", (getter)Buffer_get_name, NULL, "the thread's name when it started to be traced", NULL},
    {"ident", (getter)Buffer_get_ident, NULL, "the thread's threading.get_ident()", NULL},
    {NULL},
};

static PySequenceMethods Buffer_as_sequence = {
    .sq_length = (lenfunc)Buffer_len,
};

static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flamespace.collect._tracer.Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_dealloc = (destructor)Buffer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One thread's events (see _tracer.c).",
    .tp_methods = Buffer_methods,
    .tp_getset = Buffer_getset,
    .tp_as_sequence = &Buffer_as_sequence,
};

/* ---- the module -------------------------------------------------------------------- */

/* Install the hook on this thread with a new buffer named ``name``. */
static int install(PyObject *name)
{
    Buffer *b = buffer_new(name);
    if (b == NULL) {
        return -1;
    }
    if (PyList_Append(buffers, (PyObject *)b) < 0) {
        Py_DECREF(b);
        return -1;
    }
    PyEval_SetProfile(hook, (PyObject *)b);  /* keeps its own reference */
    Py_DECREF(b);
    return 0;
}

static PyObject *tracer_start(PyObject *module, PyObject *args)
{
    int with_builtins;
    long long limit;
    PyObject *name;
    if (!PyArg_ParseTuple(args, "pLU", &with_builtins, &limit, &name)) {
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetString(PyExc_RuntimeError,
                    "the tracer supports Python 3.9 to 3.11 so far (on 3.12+ it is to use sys.monitoring, PEP 669)");
    return NULL;
#else
    if (active) {
        PyErr_SetString(PyExc_RuntimeError, "the tracer is already running in this process");
        return NULL;
    }
    if (limit <= 0) {
        PyErr_SetString(PyExc_ValueError, "max_events must be positive");
        return NULL;
    }
    PyThreadState *tstate = PyThreadState_Get();
    if (tstate->c_profilefunc != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "another profiler (sys.setprofile) is active on this thread");
        return NULL;
    }
    Py_CLEAR(entries);
    Py_CLEAR(buffers);
    table_free();
    entries = PyList_New(0);
    buffers = PyList_New(0);
    if (entries == NULL || buffers == NULL) {
        return NULL;
    }
    builtins = with_builtins;
    max_events = limit;
    recorded = dropped = 0;
    full_at = 0;
    active = 1;
    if (install(name) < 0) {
        active = 0;
        return NULL;
    }
    Py_RETURN_NONE;
#endif
}

static PyObject *tracer_install_thread(PyObject *module, PyObject *args)
{
    PyObject *name, *code;
    if (!PyArg_ParseTuple(args, "UO", &name, &code)) {
        return NULL;
    }
    if (!active || PyThreadState_Get()->c_profilefunc == hook) {
        Py_RETURN_FALSE;
    }
    if (install(name) < 0) {
        return NULL;
    }
    if (PyCode_Check(code)) {
        int64_t t = now_ns();
        if (recorded >= max_events || full_at) {
            stop_recording(t);
        } else {
            Py_INCREF(code);
            int32_t key = key_of(code, code, NULL);
            if (key < 0) {
                stop_recording(t);
            } else {
                Buffer *b = (Buffer *)PyList_GET_ITEM(buffers, PyList_GET_SIZE(buffers) - 1);
                record(b, KIND_CALL, key, t);
            }
        }
    }
    Py_RETURN_TRUE;
}

static PyObject *tracer_stop(PyObject *module, PyObject *unused)
{
    if (!active) {
        PyErr_SetString(PyExc_RuntimeError, "the tracer is not running");
        return NULL;
    }
    int64_t t = now_ns();
    active = 0;
#if PY_VERSION_HEX < 0x030C0000
    PyThreadState *current = PyThreadState_Get();
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(current->interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        if (ts->c_profilefunc == hook) {
            _PyEval_SetProfile(ts, NULL, NULL);
        }
    }
#endif
    PyObject *result = Py_BuildValue("(OOLLL)", buffers, entries, recorded, dropped, (long long)(full_at ? full_at : t));
    Py_CLEAR(buffers);
    Py_CLEAR(entries);
    table_free();
    return result;
}

static PyObject *tracer_active(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(active);
}

static PyObject *tracer_now(PyObject *module, PyObject *unused)
{
    return PyLong_FromLongLong(now_ns());
}

static PyMethodDef module_methods[] = {
    {"start", tracer_start, METH_VARARGS,
     "start(builtins, max_events, thread_name): trace this thread (and those that install_thread)"},
    {"install_thread", tracer_install_thread, METH_VARARGS,
     "install_thread(thread_name, code) -> installed: trace the calling thread too, from a call of code (or None)"},
    {"stop", tracer_stop, METH_NOARGS,
     "stop() -> (buffers, entries, recorded, dropped, end_ns): remove the hook from every thread"},
    {"active", tracer_active, METH_NOARGS, "active() -> whether the tracer runs"},
    {"now", tracer_now, METH_NOARGS, "now() -> the tracer's clock, ns (CLOCK_MONOTONIC, as time.monotonic_ns)"},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_tracer", "A deterministic call/return tracer (see _tracer.c).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__tracer(void)
{
    if (PyType_Ready(&BufferType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&BufferType);
    if (PyModule_AddObject(module, "Buffer", (PyObject *)&BufferType) < 0) {
        Py_DECREF(&BufferType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
