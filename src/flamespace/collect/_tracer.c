/* A deterministic tracer: every call and return of Python functions (and, optionally, of
 * builtins and other C functions, and the lines that run), per thread, with integer nanoseconds.
 *
 * Why C: a profile function written in Python costs microseconds per event, ten times what
 * the call it measures costs; cProfile's C hook is the yardstick (issue 16). The hook here
 * does as little as it can: read CLOCK_MONOTONIC (the clock of time.monotonic_ns, so the
 * Python side can align), turn the code object (or the C function's PyMethodDef) into a small
 * integer through an open-addressing table, and append a 16-byte event to the thread's chunk.
 *
 * Bounded memory: a full chunk (CHUNK_EVENTS events, 128 KiB) is written to the session's
 * event file, which is unlinked as soon as it is open (nothing is left behind, whatever ends
 * the process), or with keep_path at stop (its directory, the launcher's, is removed however
 * the process ends). Memory is then one chunk per thread, however long the run; the file grows
 * by 16 bytes an event up to max_events (all threads together). Past the bound, or when the file
 * cannot be written (a full disk), recording stops: later events are only counted (dropped),
 * and the time of the first lost one is kept so the analysis closes every open frame there.
 *
 * Turning events into a call tree (calls, inclusive, exclusive, longest call per node,
 * exclusive time per line, and optionally the time-ordered segments of a flame chart) is
 * Stream.analyse(), also in C, reading the file back: a Python loop over a million events
 * would cost more than the tracing did. Integer nanoseconds throughout: sums of floats
 * drift, sums of integers are exact, so inclusive = exclusive + callees' inclusive holds to
 * the nanosecond for every node. Calls deeper than max_depth are folded into their caller at
 * that depth (their time is its exclusive time; they are counted as ``deep``).
 *
 * Three backends. The profile backend (every version) is a PyEval_SetProfile function: yield
 * and exceptions give PyTrace_RETURN there, so generators, coroutines and unwinding keep the
 * stack consistent; lines come from a PyEval_SetTrace function that keeps PyTrace_LINE only.
 * Threads started after start() install the hooks themselves (install_thread, called by
 * threading.setprofile's first event); stop() removes them from every thread state that has
 * them. On 3.12+ the interpreter serves that hook through sys.monitoring and makes a frame
 * object for every event; the monitoring backend (PEP 669) registers the on_* functions as
 * sys.monitoring callbacks instead (PY_START/RESUME/THROW are calls, PY_RETURN/YIELD/UNWIND
 * returns), which is cheaper there (docs/performance.md). On 3.11 the frame backend replaces
 * the interpreter's frame evaluation function (PEP 523) and sees Python frames only, at a
 * fraction of the profile hook's cost (see its section). trace_engine.py chooses.
 *
 * The program's descriptors are its own. A program may close every descriptor it inherited
 * (os.closerange, a daemon closing all up to its limit) and then open files of its own, which
 * take the freed numbers: the event file's number, kept as a plain int, would then name the
 * program's file. So the file sits on a high number (FD_HIGH and up: programs' own files take
 * the lowest free ones), and before every write, and before the analysis reads it, fstat
 * checks that the number still names the event file (its device and inode; one system call a
 * 128 KiB chunk). When not, that number is never written, read or closed again (it may be the
 * program's now): the file is reopened by its path, when start() was asked to keep one until
 * stop (the launcher's private directory, which it removes however the program ends), or else
 * it is lost, and stop() says so (``file_lost``, and from when: the analysis has nothing).
 *
 * Fork: the child inherits the session, the buffers and the file descriptor, whose offset it
 * shares with the parent. It never writes there (every write checks the pid): its events are
 * dropped, and stop() in it says so (``forked``) instead of reading the parent's file.
 *
 * All state is global and guarded by the GIL (the hooks always run with it held).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <structmember.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <pthread.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The frame backend (3.11) needs the interpreter frame's layout. */
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define HAVE_FRAME_BACKEND 1
#define Py_BUILD_CORE 1
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE
#endif

#define KIND_CALL 0
#define KIND_RETURN 1
#define KIND_LINE 2 /* key: the code's key; the line number is kind >> 2 */
#define KIND_MASK 3
#define CHUNK_EVENTS 8192
/* The event file's descriptor is moved to this number or above (below the limit of open files):
 * a program's own files take the lowest free numbers, so they rarely reach it. */
#define FD_HIGH 768

typedef struct {
    int64_t t;
    int32_t kind;
    int32_t key;
} Event;

typedef struct {
    int32_t thread;
    int32_t count;
    int64_t reserved;
} BlockHeader; /* before each chunk in the file: whose events, how many (16 bytes: aligned) */

typedef struct {
    PyObject_HEAD
    Event *chunk;
    Py_ssize_t used;
    int32_t index; /* the thread's number in the session */
    int named;     /* its name is known (monitoring: threading may not know the thread yet); < 0: calls
                      left to ask threading at (a _thread.start_new_thread thread never registers) */
    uintptr_t stack_floor; /* the frame backend pauses below this C stack address (0: unknown) */
} Buffer;

static PyTypeObject BufferType;
static PyTypeObject StreamType;

/* ---- the session ------------------------------------------------------------------- */

static int active = 0;
/* How events arrive (start's ``backend``): the profile hook of each thread, sys.monitoring callbacks
 * (3.12+), or the frame evaluation function of the interpreter (PEP 523; 3.11). */
#define BACKEND_PROFILE 0
#define BACKEND_MONITORING 1
#define BACKEND_FRAME 2
static int backend = BACKEND_PROFILE;
static long session_id = 0;          /* which session a thread's buffer belongs to */
static _Thread_local Buffer *tl_buffer = NULL;
static _Thread_local long tl_session = 0;
static int builtins = 0;
static int lines = 0;
static long long max_events = 0;
static long long recorded = 0;
static long long dropped = 0;
static int64_t full_at = 0;
static int write_errno = 0;          /* the first failed write's errno */
static int fd = -1;                  /* the event file (-1: none, or lost) */
static dev_t file_dev = 0;           /* ... which is the file of this device and inode */
static ino_t file_ino = 0;
static char *file_path = NULL;       /* its path, kept until stop to reopen it (NULL: unlinked at once) */
static int file_lost = 0;            /* the program closed or reused its descriptor, and it could not be reopened */
static int64_t lost_at = 0;          /* then: the first event that could not be written */
static long long reopens = 0;        /* how often it was reopened */
static pid_t session_pid = 0;        /* the process that started the session (owns the file) */
static PyObject *entries = NULL;     /* list: code objects and C function names, by key */
static PyObject *buffers = NULL;     /* list of every Buffer of the session, by index */
static PyObject *threads = NULL;     /* list of (name, ident), by index */

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

static inline size_t hash_u64(uint64_t x)
{
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
        size_t j = hash_u64((uintptr_t)table_ptr[i]) & (cap - 1);
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

/* The name of a C function (or of a method descriptor: the unbound list.append that
 * sys.monitoring's CALL event gives for items.append(x)), as "module.name" or "type.name"
 * (the entry for its key). */
static PyObject *c_function_name(PyObject *callable)
{
    if (PyObject_TypeCheck(callable, &PyMethodDescr_Type)) {
        PyMethodDescrObject *descr = (PyMethodDescrObject *)callable;
        return PyUnicode_FromFormat("%s.%s", PyDescr_TYPE(descr)->tp_name, descr->d_method->ml_name);
    }
    PyCFunctionObject *fn = (PyCFunctionObject *)callable;
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

/* key_of's first sight of ``ptr``. */
static int32_t new_key(const void *ptr, PyObject *entry, PyObject *fn)
{
    if ((table_len + 1) * 2 > table_cap && table_grow() < 0) {
        Py_XDECREF(entry);
        return -1;
    }
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (entry == NULL) {
        entry = c_function_name(fn);
    }
    int32_t key = entry != NULL ? (int32_t)PyList_GET_SIZE(entries) : -1;
    if (entry != NULL && PyList_Append(entries, entry) < 0) {
        key = -1;
    }
    Py_XDECREF(entry);
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
    if (key < 0) {
        return -1;
    }
    size_t j = hash_u64((uintptr_t)ptr) & (table_cap - 1);
    while (table_ptr[j] != NULL) {
        j = (j + 1) & (table_cap - 1);
    }
    table_ptr[j] = ptr;
    table_key[j] = key;
    table_len++;
    last_ptr = ptr;
    return last_key = key;
}

/* The key of ``ptr``; on first sight ``entry`` (a new reference, or NULL: make the C name from
 * ``fn``) is appended to entries. -1 on failure. The exception state is left as it was (the
 * frame backend sees frames entered with an exception to throw). */
static int32_t key_of(const void *ptr, PyObject *entry, PyObject *fn)
{
    if (ptr == last_ptr) {
        Py_XDECREF(entry);
        return last_key;
    }
    if (table_cap) {
        size_t j = hash_u64((uintptr_t)ptr) & (table_cap - 1);
        while (table_ptr[j] != NULL) {
            if (table_ptr[j] == ptr) {
                Py_XDECREF(entry);
                last_ptr = ptr;
                return last_key = table_key[j];
            }
            j = (j + 1) & (table_cap - 1);
        }
    }
    return new_key(ptr, entry, fn);
}

/* Stop recording from ``t`` on (the bound was reached, memory ran out, a write failed). */
static void stop_recording(int64_t t)
{
    if (full_at == 0 || t < full_at) {
        full_at = t;
    }
}

/* Whether descriptor ``d`` names the file of ``dev`` and ``ino``. */
static int names_file(int d, dev_t dev, ino_t ino)
{
    struct stat s;
    return d >= 0 && fstat(d, &s) == 0 && s.st_dev == dev && s.st_ino == ino;
}

/* ``d`` on the lowest free number from FD_HIGH up (close-on-exec; ``d`` is closed), or ``d``
 * itself when there is none below the limit of open files. */
static int move_high(int d)
{
    if (d >= FD_HIGH) {
        return d;
    }
    int high = fcntl(d, F_DUPFD_CLOEXEC, FD_HIGH);
    if (high < 0) {
        return d;
    }
    close(d);
    return high;
}

/* Reopen the event file by its kept path after the program closed (or reused) its descriptor:
 * the same file (device and inode), appended to, moved high. 0 on success. */
static int reopen_file(void)
{
    if (file_path == NULL) {
        return -1;
    }
    int d = open(file_path, O_RDWR | O_CLOEXEC);
    if (d < 0) {
        return -1;
    }
    if (!names_file(d, file_dev, file_ino) || lseek(d, 0, SEEK_END) < 0) {
        close(d);
        return -1;
    }
    fd = move_high(d);
    reopens++;
    return 0;
}

/* Whether the event file may be written: its descriptor still names it, or it was reopened.
 * Else it is lost from ``t`` on: the descriptor (the program's now, or closed) is forgotten,
 * never written, read or closed. */
static int file_ready(int64_t t)
{
    if (names_file(fd, file_dev, file_ino)) {
        return 1;
    }
    fd = -1;
    if (!file_lost && reopen_file() == 0) {
        return 1;
    }
    if (!file_lost) {
        file_lost = 1;
        lost_at = t;
    }
    return 0;
}

static int write_all(const char *data, size_t size)
{
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Write the buffer's chunk to the event file (only from the process that owns the file). */
static void flush(Buffer *b)
{
    if (b->used == 0) {
        return;
    }
    Py_ssize_t n = b->used;
    b->used = 0;
    if (getpid() != session_pid || file_lost) { /* a forked child (the file is the parent's), or no file */
        recorded -= n;
        dropped += n;
        return;
    }
    BlockHeader header = {b->index, (int32_t)n, 0};
    if (write_errno == 0 && !file_ready(b->chunk[0].t)) {
        stop_recording(b->chunk[0].t);
        recorded -= n;
        dropped += n;
        return;
    }
    if (write_errno == 0 && (write_all((const char *)&header, sizeof header) < 0 ||
                             write_all((const char *)b->chunk, (size_t)n * sizeof(Event)) < 0)) {
        write_errno = errno ? errno : EIO;
        /* a block may be cut short: the analysis reads whole blocks only */
    }
    if (write_errno) {
        stop_recording(b->chunk[0].t);
        recorded -= n;
        dropped += n;
    }
}

static inline void record(Buffer *b, int32_t kind, int32_t key, int64_t t)
{
    if (recorded >= max_events || full_at) {
        stop_recording(t);
        dropped++;
        return;
    }
    if (b->chunk == NULL) {
        b->chunk = PyMem_RawMalloc(CHUNK_EVENTS * sizeof(Event));
        if (b->chunk == NULL) {
            stop_recording(t);
            dropped++;
            return;
        }
    }
    Event *e = &b->chunk[b->used++];
    e->t = t;
    e->kind = kind;
    e->key = key;
    recorded++;
    if (b->used == CHUNK_EVENTS) {
        flush(b);
    }
}

/* Record an event of ``code`` (borrowed). */
static inline void record_code(Buffer *b, PyObject *code, int32_t kind, int64_t t)
{
    if (recorded >= max_events || full_at) {
        stop_recording(t);
        dropped++;
        return;
    }
    Py_INCREF(code); /* the entry's, if it is new (key_of drops it otherwise) */
    int32_t key = key_of(code, code, NULL);
    if (key < 0) {
        stop_recording(t);
        dropped++;
        return;
    }
    record(b, kind, key, t);
}

/* Whether ``callable`` is a C function the tracer times (with builtins). */
static inline int is_c_function(PyObject *callable)
{
    return PyCFunction_Check(callable) || Py_IS_TYPE(callable, &PyMethodDescr_Type);
}

/* Record a call of the C function ``fn`` (keyed by its PyMethodDef, whether bound or not). */
static void record_c_call(Buffer *b, PyObject *fn, int64_t t)
{
    if (recorded >= max_events || full_at) {
        stop_recording(t);
        dropped++;
        return;
    }
    PyMethodDef *def = PyCFunction_Check(fn) ? ((PyCFunctionObject *)fn)->m_ml : ((PyMethodDescrObject *)fn)->d_method;
    int32_t key = key_of(def, NULL, fn);
    if (key < 0) {
        stop_recording(t);
        dropped++;
        return;
    }
    record(b, KIND_CALL, key, t);
}

static int hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    int64_t t = now_ns();
    Buffer *b = (Buffer *)obj;
    switch (what) {
    case PyTrace_CALL: {
        PyCodeObject *code = PyFrame_GetCode(frame); /* a new reference (3.9+) */
        record_code(b, (PyObject *)code, KIND_CALL, t);
        Py_DECREF(code);
        return 0;
    }
    case PyTrace_RETURN:
        record(b, KIND_RETURN, 0, t);
        return 0;
    case PyTrace_C_CALL:
        if (builtins && arg != NULL && PyCFunction_Check(arg)) {
            record_c_call(b, arg, t);
        }
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

/* The trace function of --lines: line events only (calls and returns are the profile hook's). */
static int line_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    if (what != PyTrace_LINE) {
        return 0;
    }
    int64_t t = now_ns();
    int line = PyFrame_GetLineNumber(frame);
    if (line < 0 || line > (INT32_MAX >> 2)) {
        line = 0;
    }
    PyCodeObject *code = PyFrame_GetCode(frame);
    record_code((Buffer *)obj, (PyObject *)code, KIND_LINE | (line << 2), t);
    Py_DECREF(code);
    return 0;
}

/* ---- Buffer: one thread's chunk ---------------------------------------------------- */

/* The lowest C stack address the frame backend lets the calling thread's frames reach: a
 * quarter of its stack, at most 1 MiB, is kept for whatever the deepest frame then needs (C
 * code, the interpreter's own recursion check). 0 when the stack's bounds are unknown. */
static uintptr_t stack_floor(void)
{
#ifndef __GLIBC__
    return 0; /* trace_engine.py offers the frame backend on Linux (glibc) only */
#else
    pthread_attr_t attr;
    void *low = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) {
        return 0;
    }
    int failed = pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    if (failed || low == NULL || size == 0) {
        return 0;
    }
    size_t margin = size / 4 < ((size_t)1 << 20) ? size / 4 : ((size_t)1 << 20);
    return (uintptr_t)low + margin;
#endif
}

static Buffer *buffer_new(int32_t index)
{
    Buffer *b = PyObject_New(Buffer, &BufferType);
    if (b == NULL) {
        return NULL;
    }
    b->chunk = NULL;
    b->used = 0;
    b->index = index;
    b->named = 1;
    b->stack_floor = backend == BACKEND_FRAME ? stack_floor() : 0; /* the main thread's reads /proc/self/maps */
    return b;
}

static void Buffer_dealloc(Buffer *b)
{
    PyMem_RawFree(b->chunk);
    PyObject_Free(b);
}

static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flamespace.collect._tracer.Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_dealloc = (destructor)Buffer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One thread's chunk of events (see _tracer.c).",
};

/* ---- the analysis ------------------------------------------------------------------ */

/* uint64 -> int32 index, open addressing; the key 0 marks an empty slot. */
typedef struct {
    uint64_t *keys;
    int32_t *values;
    size_t slots, len;
} Map;

static void map_free(Map *m)
{
    PyMem_RawFree(m->keys);
    PyMem_RawFree(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->slots = m->len = 0;
}

static void map_put(Map *m, uint64_t k, int32_t value)
{
    size_t j = hash_u64(k) & (m->slots - 1);
    while (m->keys[j] != 0) {
        j = (j + 1) & (m->slots - 1);
    }
    m->keys[j] = k;
    m->values[j] = value;
    m->len++;
}

static int map_grow(Map *m)
{
    Map old = *m;
    m->slots = old.slots ? old.slots * 2 : 1024;
    m->len = 0;
    m->keys = PyMem_RawCalloc(m->slots, sizeof(uint64_t));
    m->values = PyMem_RawMalloc(m->slots * sizeof(int32_t));
    if (m->keys == NULL || m->values == NULL) {
        PyMem_RawFree(m->keys);
        PyMem_RawFree(m->values);
        *m = old;
        return -1;
    }
    for (size_t i = 0; i < old.slots; i++) {
        if (old.keys[i]) {
            map_put(m, old.keys[i], old.values[i]);
        }
    }
    map_free(&old);
    return 0;
}

/* The value of ``k``, or -1; with ``add`` >= 0 a missing key gets that value (-2: no memory). */
static int32_t map_get(Map *m, uint64_t k, int32_t add)
{
    if (m->slots) {
        size_t j = hash_u64(k) & (m->slots - 1);
        while (m->keys[j] != 0) {
            if (m->keys[j] == k) {
                return m->values[j];
            }
            j = (j + 1) & (m->slots - 1);
        }
    }
    if (add < 0) {
        return -1;
    }
    if ((m->len + 1) * 2 > m->slots && map_grow(m) < 0) {
        return -2;
    }
    map_put(m, k, add);
    return add;
}

typedef struct {
    int32_t parent;
    int32_t key;
    int64_t calls, inclusive, exclusive, longest;
} Node;

typedef struct {
    int32_t node, line;
    int64_t exclusive, hits;
} LineStat;

typedef struct {
    int32_t node;
    int32_t line; /* the line running in this frame: its LineStat index, -1 before the first */
    int64_t since;
} Open;

/* One thread's analysis, fed its blocks in file order. */
typedef struct {
    Node *nodes;
    size_t len, cap;
    Map children; /* 1 << 63 | (parent + 1) << 32 | key -> node */
    Open *stack;
    size_t depth, stack_cap;
    int64_t skip;  /* calls open beyond max_depth, folded into the top frame */
    int64_t deep;  /* calls folded so */
    int64_t last;  /* the time of the last event (0: none yet) */
    int started;
    int done;
    LineStat *line_stats;
    size_t nlines, lines_cap;
    Map line_index; /* 1 << 63 | node << 32 | line -> LineStat index */
    int64_t *seg_t, *seg_n, *seg_w;
    size_t nseg, seg_cap;
} Analysis;

typedef struct {
    int segments;
    int lines;
    int64_t end_ns;
    Py_ssize_t max_depth;
} Settings;

static void analysis_free(Analysis *a)
{
    PyMem_RawFree(a->nodes);
    map_free(&a->children);
    PyMem_RawFree(a->stack);
    PyMem_RawFree(a->line_stats);
    map_free(&a->line_index);
    PyMem_RawFree(a->seg_t);
    PyMem_RawFree(a->seg_n);
    PyMem_RawFree(a->seg_w);
}

/* The child of ``parent`` for ``key``, made on first sight; -1 when memory ran out. */
static int32_t tree_child(Analysis *a, int32_t parent, int32_t key)
{
    uint64_t k = (1ULL << 63) | ((uint64_t)(uint32_t)(parent + 1) << 32) | (uint32_t)key; /* never 0 */
    int32_t found = map_get(&a->children, k, -1);
    if (found >= 0) {
        return found;
    }
    if (a->len == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 256;
        Node *nodes = PyMem_RawRealloc(a->nodes, cap * sizeof(Node));
        if (nodes == NULL) {
            return -1;
        }
        a->nodes = nodes;
        a->cap = cap;
    }
    if (map_get(&a->children, k, (int32_t)a->len) < 0) {
        return -1;
    }
    int32_t node = (int32_t)a->len++;
    Node *n = &a->nodes[node];
    n->parent = parent;
    n->key = key;
    n->calls = n->inclusive = n->exclusive = n->longest = 0;
    return node;
}

static int32_t line_stat(Analysis *a, int32_t node, int32_t line)
{
    uint64_t k = (1ULL << 63) | ((uint64_t)(uint32_t)node << 32) | (uint32_t)line;
    int32_t found = map_get(&a->line_index, k, -1);
    if (found >= 0) {
        return found;
    }
    if (a->nlines == a->lines_cap) {
        size_t cap = a->lines_cap ? a->lines_cap * 2 : 256;
        LineStat *grown = PyMem_RawRealloc(a->line_stats, cap * sizeof(LineStat));
        if (grown == NULL) {
            return -1;
        }
        a->line_stats = grown;
        a->lines_cap = cap;
    }
    if (map_get(&a->line_index, k, (int32_t)a->nlines) < 0) {
        return -1;
    }
    LineStat *s = &a->line_stats[a->nlines];
    s->node = node;
    s->line = line;
    s->exclusive = s->hits = 0;
    return (int32_t)a->nlines++;
}

static int add_segment(Analysis *a, int64_t t, int32_t node, int64_t w)
{
    if (a->nseg == a->seg_cap) {
        size_t cap = a->seg_cap ? a->seg_cap * 2 : 4096;
        int64_t *st = PyMem_RawRealloc(a->seg_t, cap * sizeof(int64_t));
        if (st == NULL) {
            return -1;
        }
        a->seg_t = st;
        int64_t *sn = PyMem_RawRealloc(a->seg_n, cap * sizeof(int64_t));
        if (sn == NULL) {
            return -1;
        }
        a->seg_n = sn;
        int64_t *sw = PyMem_RawRealloc(a->seg_w, cap * sizeof(int64_t));
        if (sw == NULL) {
            return -1;
        }
        a->seg_w = sw;
        a->seg_cap = cap;
    }
    a->seg_t[a->nseg] = t;
    a->seg_n[a->nseg] = node;
    a->seg_w[a->nseg++] = w;
    return 0;
}

/* Time passes from a->last to t: the top frame's exclusive time (and its line's). */
static int advance(Analysis *a, int64_t t, const Settings *s)
{
    if (!a->started) {
        a->started = 1;
        a->last = t;
        return 0;
    }
    if (t < a->last) {
        t = a->last; /* never let time run backwards */
    }
    if (a->depth && t > a->last) {
        Open *top = &a->stack[a->depth - 1];
        a->nodes[top->node].exclusive += t - a->last;
        if (top->line >= 0) {
            a->line_stats[top->line].exclusive += t - a->last;
        }
        if (s->segments && add_segment(a, t, top->node, t - a->last) < 0) {
            return -1;
        }
    }
    a->last = t;
    return 0;
}

static void close_top(Analysis *a, int64_t t)
{
    Open *o = &a->stack[--a->depth];
    int64_t d = t - o->since;
    a->nodes[o->node].inclusive += d;
    if (d > a->nodes[o->node].longest) {
        a->nodes[o->node].longest = d;
    }
}

/* Feed events in time order. A return with nothing open (a frame entered before tracing
 * started) is skipped; events after the session's end (end_ns) are left out. */
static int feed(Analysis *a, const Event *events, Py_ssize_t n, const Settings *s)
{
    for (Py_ssize_t i = 0; i < n && !a->done; i++) {
        const Event *e = &events[i];
        if (e->t > s->end_ns) {
            a->done = 1;
            break;
        }
        if (advance(a, e->t, s) < 0) {
            return -1;
        }
        int64_t t = a->last;
        int kind = e->kind & KIND_MASK;
        if (kind == KIND_CALL) {
            if (a->skip || (s->max_depth > 0 && (Py_ssize_t)a->depth >= s->max_depth)) {
                a->skip++;
                a->deep++;
                continue;
            }
            int32_t parent = a->depth ? a->stack[a->depth - 1].node : -1;
            int32_t node = tree_child(a, parent, e->key);
            if (node < 0) {
                return -1;
            }
            if (a->depth == a->stack_cap) {
                size_t cap = a->stack_cap ? a->stack_cap * 2 : 256;
                Open *grown = PyMem_RawRealloc(a->stack, cap * sizeof(Open));
                if (grown == NULL) {
                    return -1;
                }
                a->stack = grown;
                a->stack_cap = cap;
            }
            a->nodes[node].calls++;
            Open *o = &a->stack[a->depth++];
            o->node = node;
            o->line = -1;
            o->since = t;
            if (s->lines && (o->line = line_stat(a, node, 0)) < 0) { /* line 0: before its first line event */
                return -1;
            }
        } else if (kind == KIND_RETURN) {
            if (a->skip) {
                a->skip--;
            } else if (a->depth) {
                close_top(a, t);
            }
        } else if (kind == KIND_LINE && a->depth && !a->skip) {
            Open *top = &a->stack[a->depth - 1];
            if (a->nodes[top->node].key == e->key) { /* else a line of a frame not traced */
                int32_t index = line_stat(a, top->node, e->kind >> 2);
                if (index < 0) {
                    return -1;
                }
                a->line_stats[index].hits++;
                top->line = index;
            }
        }
    }
    return 0;
}

static int finish(Analysis *a, const Settings *s)
{
    if (!a->started) {
        return 0;
    }
    if (advance(a, s->end_ns, s) < 0) {
        return -1;
    }
    while (a->depth) {
        close_top(a, a->last);
    }
    return 0;
}

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

static PyObject *int32_list(Node *nodes, size_t len, size_t offset)
{
    PyObject *list = PyList_New((Py_ssize_t)len);
    if (list == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        PyObject *item = PyLong_FromLong(*(int32_t *)((char *)&nodes[i] + offset));
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *bytes_or_none(int64_t *data, size_t n, int want)
{
    if (!want) {
        Py_RETURN_NONE;
    }
    return PyBytes_FromStringAndSize(n ? (char *)data : "", (Py_ssize_t)(n * sizeof(int64_t)));
}

static PyObject *analysis_result(Analysis *a, const Settings *s)
{
    PyObject *line_list = PyList_New((Py_ssize_t)a->nlines);
    if (line_list == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < a->nlines; i++) {
        LineStat *ls = &a->line_stats[i];
        PyObject *item = Py_BuildValue("(iiLL)", ls->node, ls->line, (long long)ls->exclusive, (long long)ls->hits);
        if (item == NULL) {
            Py_DECREF(line_list);
            return NULL;
        }
        PyList_SET_ITEM(line_list, (Py_ssize_t)i, item);
    }
    return Py_BuildValue("(NNNNNNNNNNL)", int32_list(a->nodes, a->len, offsetof(Node, parent)),
                         int32_list(a->nodes, a->len, offsetof(Node, key)),
                         int64_list(a->nodes, a->len, offsetof(Node, calls)),
                         int64_list(a->nodes, a->len, offsetof(Node, inclusive)),
                         int64_list(a->nodes, a->len, offsetof(Node, exclusive)),
                         int64_list(a->nodes, a->len, offsetof(Node, longest)),
                         bytes_or_none(a->seg_t, a->nseg, s->segments), bytes_or_none(a->seg_n, a->nseg, s->segments),
                         bytes_or_none(a->seg_w, a->nseg, s->segments), line_list, (long long)a->deep);
}

/* ---- Stream: a stopped session's event file ---------------------------------------- */

typedef struct {
    PyObject_HEAD
    int fd; /* -1: no events (a forked child's, or the file was lost) */
    dev_t dev;
    ino_t ino;
    char lost; /* the program closed or reused the descriptor after stop(): nothing could be read */
    Py_ssize_t nthreads;
} Stream;

/* Whether the stream's descriptor still names its file (the program's threads run on after
 * stop()); if not it is forgotten, never read or closed. */
static int stream_ready(Stream *st)
{
    if (st->fd >= 0 && !names_file(st->fd, st->dev, st->ino)) {
        st->fd = -1;
        st->lost = 1;
    }
    return st->fd >= 0;
}

static void Stream_dealloc(Stream *st)
{
    if (stream_ready(st)) {
        close(st->fd);
    }
    PyObject_Free(st);
}

static int read_full(int from, off_t offset, void *into, size_t size)
{
    char *p = into;
    while (size) {
        ssize_t n = pread(from, p, size, offset);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        offset += n;
        size -= (size_t)n;
    }
    return 0;
}

/* analyse(end_ns, segments, max_depth, lines) -> one tuple per thread:
 * (parents, keys, calls, inclusive, exclusive, longest, times, nodes, weights, lines, deep)
 *
 * Node i is a full stack (its parent's stack plus entry keys[i]; parent -1 is the root).
 * Frames still open at end_ns are closed there. Exclusive time is counted between events,
 * inclusive time from call to return, separately: the identity inclusive = exclusive +
 * callees' inclusive is a check, not a definition. With segments, times, nodes and weights
 * are the bytes of three int64 arrays: each stretch between two events while a frame was
 * open, as (end ns, node, length ns). lines: (node, line, exclusive ns, hits) per line of each
 * node (with lines; line 0: the time from the call to the frame's first line event). deep: calls folded into their caller beyond max_depth (0: none). */
static PyObject *Stream_analyse(Stream *st, PyObject *args)
{
    long long end_ns;
    int segments, with_lines;
    Py_ssize_t max_depth;
    if (!PyArg_ParseTuple(args, "Lpnp", &end_ns, &segments, &max_depth, &with_lines)) {
        return NULL;
    }
    Settings s = {segments, with_lines, end_ns, max_depth};
    Analysis *all = PyMem_RawCalloc(st->nthreads ? (size_t)st->nthreads : 1, sizeof(Analysis));
    Event *block = PyMem_RawMalloc(CHUNK_EVENTS * sizeof(Event));
    PyObject *result = NULL;
    if (all == NULL || block == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (stream_ready(st)) {
        off_t offset = 0;
        BlockHeader header;
        int failed = 0;
        Py_BEGIN_ALLOW_THREADS
        while (read_full(st->fd, offset, &header, sizeof header) == 0) {
            offset += sizeof header;
            if (header.count <= 0 || header.count > CHUNK_EVENTS || header.thread < 0 ||
                header.thread >= st->nthreads) {
                break; /* never written so: the rest is unreadable */
            }
            if (read_full(st->fd, offset, block, (size_t)header.count * sizeof(Event)) < 0) {
                break; /* a block cut short (the disk was full): the events before it stand */
            }
            offset += (off_t)header.count * (off_t)sizeof(Event);
            if (feed(&all[header.thread], block, header.count, &s) < 0) {
                failed = 1;
                break;
            }
        }
        Py_END_ALLOW_THREADS
        if (failed) {
            PyErr_NoMemory();
            goto done;
        }
        if (!stream_ready(st)) { /* the program's threads (running meanwhile) took the number: none of it counts */
            for (Py_ssize_t i = 0; i < st->nthreads; i++) {
                analysis_free(&all[i]);
                memset(&all[i], 0, sizeof all[i]);
            }
        }
    }
    result = PyList_New(st->nthreads);
    if (result == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < st->nthreads; i++) {
        if (finish(&all[i], &s) < 0) {
            Py_CLEAR(result);
            PyErr_NoMemory();
            goto done;
        }
        PyObject *one = analysis_result(&all[i], &s);
        if (one == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, one);
    }
done:
    if (all != NULL) {
        for (Py_ssize_t i = 0; i < st->nthreads; i++) {
            analysis_free(&all[i]);
        }
    }
    PyMem_RawFree(all);
    PyMem_RawFree(block);
    return result;
}

/* events() -> [(thread, kind, key, t)]: every event in the file (for tests: kind 0 call,
 * 1 return, 2 | line << 2 a line). */
static PyObject *Stream_events(Stream *st, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    if (list == NULL || !stream_ready(st)) {
        return list;
    }
    off_t offset = 0;
    BlockHeader header;
    Event e;
    while (read_full(st->fd, offset, &header, sizeof header) == 0 && header.count > 0 && header.count <= CHUNK_EVENTS) {
        offset += sizeof header;
        for (int32_t i = 0; i < header.count; i++, offset += sizeof e) {
            if (read_full(st->fd, offset, &e, sizeof e) < 0) {
                return list;
            }
            PyObject *item = Py_BuildValue("(iiiL)", header.thread, e.kind, e.key, (long long)e.t);
            if (item == NULL || PyList_Append(list, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(item);
        }
    }
    return list;
}

static PyMethodDef Stream_methods[] = {
    {"analyse", (PyCFunction)Stream_analyse, METH_VARARGS,
     "analyse(end_ns, segments, max_depth, lines) -> [(parents, keys, calls, inclusive, exclusive, longest, times, nodes, "
     "weights, lines, deep)] per thread"},
    {"events", (PyCFunction)Stream_events, METH_NOARGS, "events() -> [(thread, kind, key, t)]"},
    {NULL},
};

static PyMemberDef Stream_members[] = {
    {"lost", T_BOOL, offsetof(Stream, lost), READONLY,
     "whether the program closed or reused the file's descriptor after stop(), so that nothing could be read"},
    {NULL},
};

static PyTypeObject StreamType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flamespace.collect._tracer.Stream",
    .tp_basicsize = sizeof(Stream),
    .tp_dealloc = (destructor)Stream_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A stopped session's events, in their file (see _tracer.c).",
    .tp_methods = Stream_methods,
    .tp_members = Stream_members,
};

/* ---- the module -------------------------------------------------------------------- */

static void set_hooks(Buffer *b)
{
    PyEval_SetProfile(hook, (PyObject *)b); /* keeps its own reference */
    if (lines) {
        PyEval_SetTrace(line_hook, (PyObject *)b);
    }
}

/* Install the hooks on this thread with a new buffer for thread ``name``. */
static Buffer *install(PyObject *name)
{
    Py_ssize_t index = PyList_GET_SIZE(buffers);
    if (index >= INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "too many threads");
        return NULL;
    }
    Buffer *b = buffer_new((int32_t)index);
    if (b == NULL) {
        return NULL;
    }
    PyObject *thread = Py_BuildValue("(Ok)", name, PyThread_get_thread_ident());
    if (thread == NULL || PyList_Append(threads, thread) < 0 || PyList_Append(buffers, (PyObject *)b) < 0) {
        Py_XDECREF(thread);
        Py_DECREF(b);
        return NULL;
    }
    Py_DECREF(thread);
    if (backend == BACKEND_MONITORING) {
        tl_buffer = b;
        tl_session = session_id;
    } else if (backend == BACKEND_PROFILE) {
        set_hooks(b);
    }
    Py_DECREF(b); /* buffers keeps it */
    return b;
}

/* ---- sys.monitoring callbacks (3.12+) --------------------------------------------- *
 * Registered by trace_engine.py with sys.monitoring.register_callback: the interpreter calls them
 * through vectorcall, without the frame object the legacy profile hook makes for every event.
 * Events come from every thread (those that ran before start() are left out: existed_before);
 * each finds its buffer in a thread-local (made on its first event: the interpreter does not
 * call the tool from inside its own callback, so asking threading for the thread's name here is
 * not traced). */

/* The threads that ran before start(), by thread state id + 1: the monitoring and frame
 * backends hear of every thread's calls, and leave these out, so that every backend traces
 * the same threads: the one that started tracing and those started after it (the profile
 * hook is installed in those only). */
static Map existing_threads;

static void note_existing_threads(PyThreadState *current)
{
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(current->interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        if (ts != current && map_get(&existing_threads, ts->id + 1, 0) == -2) {
            stop_recording(now_ns()); /* no memory: nothing is recorded rather than the wrong threads */
        }
    }
}

static int existed_before(PyThreadState *ts)
{
    return existing_threads.len && map_get(&existing_threads, ts->id + 1, -1) >= 0;
}

/* This thread's name as threading knows it (threading._active, without side effects: asking
 * current_thread() of a thread threading has not registered yet would make a dummy one), or
 * NULL. Runs no Python code (the Thread's ``_name`` attribute is read by the generic lookup, not
 * through the ``name`` property), so that the frame backend does not trace the tracer, and leaves the
 * exception state as it found it (a frame may be entered with an exception to throw). */
static PyObject *registered_name(void)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *modules = PyImport_GetModuleDict();
    PyObject *threading = PyDict_GetItemString(modules, "threading"); /* borrowed */
    PyObject *name = NULL;
    PyObject *globals = threading != NULL && PyModule_Check(threading) ? PyModule_GetDict(threading) : NULL;
    PyObject *registry = globals != NULL ? PyDict_GetItemString(globals, "_active") : NULL; /* borrowed */
    if (registry != NULL && PyDict_Check(registry)) {
        PyObject *ident = PyLong_FromUnsignedLong(PyThread_get_thread_ident());
        PyObject *thread = ident != NULL ? PyDict_GetItemWithError(registry, ident) : NULL; /* borrowed */
        PyObject *attribute = thread != NULL ? PyUnicode_FromString("_name") : NULL;
        if (attribute != NULL) {
            name = PyObject_GenericGetAttr(thread, attribute); /* the instance's own, not a subclass's getattr */
            Py_DECREF(attribute);
        }
        Py_XDECREF(ident);
    }
    if (name != NULL && !PyUnicode_Check(name)) {
        Py_CLEAR(name);
    }
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
    return name;
}

/* A thread's name is looked up at its calls until threading has registered the thread. */
static void name_buffer(Buffer *b)
{
    PyObject *name = registered_name();
    if (name == NULL) {
        return;
    }
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *thread = Py_BuildValue("(Ok)", name, PyThread_get_thread_ident());
    Py_DECREF(name);
    if (thread != NULL) {
        PyList_SetItem(threads, b->index, thread); /* steals thread */
        b->named = 1;
    }
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
}

/* A new buffer for the calling thread, named as threading knows it (else "Thread-<ident>", and
 * its name is asked again at its next 64 calls); NULL when that failed. The exception state is
 * left as it was. */
static Buffer *thread_buffer(void)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *name = registered_name();
    int named = name != NULL;
    if (name == NULL) {
        name = PyUnicode_FromFormat("Thread-%lu", PyThread_get_thread_ident());
    }
    Buffer *b = name != NULL ? install(name) : NULL;
    Py_XDECREF(name);
    if (b != NULL) {
        b->named = named ? 1 : -64;
    }
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
    return b;
}

/* The monitoring backend's buffer of this thread (a thread-local, made on its first event; NULL
 * for a thread that ran before start()). */
static Buffer *this_buffer(void)
{
    if (tl_session == session_id) {
        return tl_buffer;
    }
    if (existed_before(PyThreadState_Get())) {
        tl_buffer = NULL;
        tl_session = session_id;
        return NULL;
    }
    return thread_buffer();
}

static PyObject *on_start(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t t = now_ns();
    Buffer *b;
    if (active && nargs >= 1 && (b = this_buffer()) != NULL) {
        record_code(b, args[0], KIND_CALL, t);
        if (b->named < 0) {
            b->named++;
            name_buffer(b);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *on_return(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t t = now_ns();
    Buffer *b;
    if (active && (b = this_buffer()) != NULL) {
        record(b, KIND_RETURN, 0, t);
    }
    Py_RETURN_NONE;
}

static PyObject *on_c_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t t = now_ns();
    Buffer *b;
    if (active && nargs >= 3 && is_c_function(args[2]) && (b = this_buffer()) != NULL) {
        record_c_call(b, args[2], t);
    }
    Py_RETURN_NONE;
}

static PyObject *on_c_return(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t t = now_ns();
    Buffer *b;
    if (active && nargs >= 3 && is_c_function(args[2]) && (b = this_buffer()) != NULL) {
        record(b, KIND_RETURN, 0, t);
    }
    Py_RETURN_NONE;
}

static PyObject *on_line(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t t = now_ns();
    Buffer *b;
    if (active && nargs >= 2 && (b = this_buffer()) != NULL) {
        long line = PyLong_AsLong(args[1]);
        if (line < 0 || line > (INT32_MAX >> 2)) {
            PyErr_Clear();
            line = 0;
        }
        record_code(b, args[0], KIND_LINE | (int32_t)(line << 2), t);
    }
    Py_RETURN_NONE;
}

/* ---- the frame backend (PEP 523; 3.11) -------------------------------------------- *
 * Why: on 3.11 a profile function makes the interpreter run every instruction through its
 * tracing path (unspecialised), make a frame object for every call and call the hook for every
 * C call too: that, not the hook, is most of what cProfile costs. The interpreter's frame
 * evaluation function (PEP 523) is called instead for every frame it runs (a call, or a
 * generator or coroutine resumed) and returns when the frame returns, yields or unwinds, and
 * the interpreter stays specialised (it only makes Python-to-Python calls through C, as 3.10
 * did). Calls and returns pair by construction: a return is recorded only for a call recorded
 * in the same session. No C calls and no lines here (those need the profile hook: trace_engine.py
 * chooses). 3.11.0-3.11.3 ran a class's __getitem__ without asking the function (gh-104405):
 * trace_engine.py does not use this backend there. Not on 3.12 either: there each frame entered
 * from C counts twice against the interpreter's C recursion limit, so a recursion 750 deep would
 * fail (sys.monitoring is as cheap there). Every thread's frames come here (those of threads
 * that ran before start() are run untraced: existed_before); a thread's buffer is found by its thread state's id (a cache of the last one: threads switch rarely).
 * A frame run by another profiler's hook (the thread state's ``tracing``) is not recorded, as
 * the profile hook would not see it. */
#ifdef HAVE_FRAME_BACKEND
/* The first run of a generator's, coroutine's or async generator's frame only makes the object
 * (RETURN_GENERATOR) and returns it: no call as the profile hook and sys.monitoring see calls
 * (those start at RESUME), so not recorded (its time is the caller's). */
static inline int makes_generator(struct _PyInterpreterFrame *frame)
{
    PyCodeObject *code = frame->f_code;
    return (code->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR)) &&
           frame->prev_instr == _PyCode_CODE(code) - 1;
}

static _PyFrameEvalFunction previous_eval = NULL; /* what evaluated frames before start (chained) */
static Map thread_buffers;                         /* thread state id + 1 -> buffer index */
static uint64_t cached_thread = 0;                 /* thread state id + 1 of cached_buffer; 0: none */
static Buffer *cached_buffer = NULL;
static int installing = 0; /* making a thread's buffer: frames run meanwhile (a finaliser) are the tracer's */
static int paused = 0;     /* the hook is out while a thread's stack is too deep (see frame_hook) */
static long long pauses = 0;
static int64_t paused_ns = 0, paused_since = 0;

/* Remember ``b`` as the buffer of the thread with state ``ts``. */
static void frame_cache(PyThreadState *ts, Buffer *b)
{
    if (map_get(&thread_buffers, ts->id + 1, b->index) < 0) {
        stop_recording(now_ns()); /* no memory: later events are dropped (and counted) */
    }
    cached_thread = ts->id + 1;
    cached_buffer = b;
}

static Buffer *frame_buffer(PyThreadState *ts)
{
    if (!active || installing) {
        return NULL;
    }
    if (existed_before(ts)) {
        cached_thread = ts->id + 1;
        cached_buffer = NULL; /* its frames run untraced */
        return NULL;
    }
    int32_t index = map_get(&thread_buffers, ts->id + 1, -1);
    Buffer *b;
    if (index >= 0) {
        b = (Buffer *)PyList_GET_ITEM(buffers, index);
    } else {
        installing = 1;
        b = thread_buffer();
        installing = 0;
        if (b == NULL) {
            return NULL;
        }
    }
    frame_cache(ts, b);
    return b;
}

static PyObject *frame_hook(PyThreadState *ts, struct _PyInterpreterFrame *frame, int throwflag);

/* Run ``frame`` with the hook out. With a frame evaluation function every Python call recurses
 * in C (3.11 makes them in one C frame otherwise), so a deep recursion the program survives
 * untraced (a raised recursion limit) would overflow the C stack here: below the thread's
 * stack floor the hook takes itself out until this frame returns, and the calls made meanwhile,
 * in every thread, are not recorded (their time is their callers'): stop() says how long. */
static PyObject *run_paused(PyThreadState *ts, struct _PyInterpreterFrame *frame, int throwflag)
{
    long session = session_id;
    paused = 1;
    pauses++;
    paused_since = now_ns();
    _PyInterpreterState_SetEvalFrameFunc(ts->interp, previous_eval);
    PyObject *result = previous_eval(ts, frame, throwflag);
    if (active && session_id == session && _PyInterpreterState_GetEvalFrameFunc(ts->interp) == previous_eval) {
        _PyInterpreterState_SetEvalFrameFunc(ts->interp, frame_hook);
    }
    if (session_id == session && paused) {
        paused_ns += now_ns() - paused_since;
        paused = 0;
    }
    return result;
}

static PyObject *frame_hook(PyThreadState *ts, struct _PyInterpreterFrame *frame, int throwflag)
{
    Buffer *b = ts->id + 1 == cached_thread ? cached_buffer : frame_buffer(ts);
    if (b == NULL || ts->tracing || makes_generator(frame)) {
        return previous_eval(ts, frame, throwflag);
    }
    if ((uintptr_t)__builtin_frame_address(0) < b->stack_floor && !paused) {
        return run_paused(ts, frame, throwflag);
    }
    long session = session_id;
    record_code(b, (PyObject *)frame->f_code, KIND_CALL, now_ns());
    if (b->named < 0) {
        b->named++;
        name_buffer(b);
    }
    PyObject *result = previous_eval(ts, frame, throwflag);
    int64_t t = now_ns();
    if (session_id == session && active) {
        record(b, KIND_RETURN, 0, t);
    }
    return result;
}
#endif

static void session_clear(void)
{
    map_free(&existing_threads);
    Py_CLEAR(buffers);
    Py_CLEAR(threads);
    Py_CLEAR(entries);
    table_free();
    if (names_file(fd, file_dev, file_ino)) { /* else the number is the program's, or closed */
        close(fd);
    }
    fd = -1;
    if (file_path != NULL) {
        if (getpid() == session_pid) { /* a forked child leaves the parent's file alone */
            unlink(file_path);
        }
        PyMem_RawFree(file_path);
        file_path = NULL;
    }
}

static PyObject *tracer_start(PyObject *module, PyObject *args)
{
    int with_builtins, with_lines, mode = BACKEND_PROFILE, keep_path = 0;
    long long limit;
    PyObject *name;
    PyObject *path;
    if (!PyArg_ParseTuple(args, "ppLUO&|ip", &with_builtins, &with_lines, &limit, &name, PyUnicode_FSConverter, &path,
                          &mode, &keep_path)) {
        return NULL;
    }
    const char *unavailable = NULL;
    if (mode < BACKEND_PROFILE || mode > BACKEND_FRAME) {
        unavailable = "backend must be 0 (profile), 1 (monitoring) or 2 (frame)";
    }
#if PY_VERSION_HEX < 0x030C0000
    if (mode == BACKEND_MONITORING) {
        unavailable = "sys.monitoring is Python 3.12+";
    }
#endif
#ifndef HAVE_FRAME_BACKEND
    if (mode == BACKEND_FRAME) {
        unavailable = "the frame backend is for Python 3.11";
    }
#endif
    if (mode == BACKEND_FRAME && (with_builtins || with_lines)) {
        unavailable = "the frame backend sees Python frames only: builtins and lines need the profile backend";
    }
    if (unavailable != NULL) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_ValueError, unavailable);
        return NULL;
    }
    if (active) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_RuntimeError, "the tracer is already running in this process");
        return NULL;
    }
    if (limit <= 0) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_ValueError, "max_events must be positive");
        return NULL;
    }
    PyThreadState *tstate = PyThreadState_Get();
    if (mode == BACKEND_PROFILE && (tstate->c_profilefunc != NULL || (with_lines && tstate->c_tracefunc != NULL))) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_RuntimeError, "another profiler or tracer (sys.setprofile, sys.settrace) is active on this thread");
        return NULL;
    }
    session_clear();
    int opened = open(PyBytes_AS_STRING(path), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (opened < 0) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
        Py_DECREF(path);
        return NULL;
    }
    struct stat file;
    char *kept = NULL;
    int failed = fstat(opened, &file) < 0;
    if (failed) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
    } else if (keep_path && (kept = PyMem_RawMalloc((size_t)PyBytes_GET_SIZE(path) + 1)) == NULL) {
        failed = 1;
        PyErr_NoMemory();
    }
    if (failed) {
        close(opened);
        unlink(PyBytes_AS_STRING(path));
        Py_DECREF(path);
        return NULL;
    }
    if (kept != NULL) { /* kept until stop, to reopen it (see the top of this file) */
        memcpy(kept, PyBytes_AS_STRING(path), (size_t)PyBytes_GET_SIZE(path) + 1);
    } else {
        unlink(PyBytes_AS_STRING(path)); /* lives while open: nothing is left behind */
    }
    Py_DECREF(path);
    fd = move_high(opened);
    file_dev = file.st_dev;
    file_ino = file.st_ino;
    file_path = kept;
    session_pid = getpid();
    entries = PyList_New(0);
    buffers = PyList_New(0);
    threads = PyList_New(0);
    if (entries == NULL || buffers == NULL || threads == NULL) {
        session_clear();
        return NULL;
    }
    builtins = with_builtins;
    lines = with_lines;
    max_events = limit;
    recorded = dropped = 0;
    full_at = 0;
    write_errno = 0;
    file_lost = 0;
    lost_at = 0;
    reopens = 0;
    backend = mode;
#ifdef HAVE_FRAME_BACKEND
    paused = 0;
    pauses = 0;
    paused_ns = 0;
#endif
    session_id++;
    active = 1;
    Buffer *b = install(name);
    if (b == NULL) {
        active = 0;
        session_clear();
        return NULL;
    }
    if (backend != BACKEND_PROFILE) {
        note_existing_threads(tstate);
    }
#ifdef HAVE_FRAME_BACKEND
    if (backend == BACKEND_FRAME) {
        frame_cache(tstate, b);
        previous_eval = _PyInterpreterState_GetEvalFrameFunc(tstate->interp);
        _PyInterpreterState_SetEvalFrameFunc(tstate->interp, frame_hook);
    }
#endif
    Py_RETURN_NONE;
}

static PyObject *tracer_install_thread(PyObject *module, PyObject *args)
{
    PyObject *name, *code;
    if (!PyArg_ParseTuple(args, "UO", &name, &code)) {
        return NULL;
    }
    if (!active || backend != BACKEND_PROFILE || PyThreadState_Get()->c_profilefunc == hook) {
        Py_RETURN_FALSE;
    }
    Buffer *b = install(name);
    if (b == NULL) {
        return NULL;
    }
    if (PyCode_Check(code)) {
        int64_t t = now_ns();
        if (recorded >= max_events || full_at) {
            stop_recording(t);
            dropped++;
        } else {
            Py_INCREF(code);
            int32_t key = key_of(code, code, NULL);
            if (key < 0) {
                stop_recording(t);
                dropped++;
            } else {
                record(b, KIND_CALL, key, t);
            }
        }
    }
    Py_RETURN_TRUE;
}

static void remove_hooks(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyThreadState *current = PyThreadState_Get();
    int ours = 0;
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(current->interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        ours |= ts->c_profilefunc == hook || ts->c_tracefunc == line_hook;
    }
    if (ours) { /* 3.12+ offers no per-thread removal: every thread's (start refused a foreign one here) */
        PyEval_SetProfileAllThreads(NULL, NULL);
        if (lines) {
            PyEval_SetTraceAllThreads(NULL, NULL);
        }
    }
#else
    PyThreadState *current = PyThreadState_Get();
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(current->interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        if (ts->c_profilefunc == hook) {
            _PyEval_SetProfile(ts, NULL, NULL);
        }
        if (ts->c_tracefunc == line_hook) {
            _PyEval_SetTrace(ts, NULL, NULL);
        }
    }
#endif
}

/* stop() -> (stream, threads, entries, recorded, dropped, end_ns, write_errno, forked, pauses, paused_ns, lost_at,
 * reopens): lost_at, when not 0, the time the event file was found lost (the program closed or reused its
 * descriptor and it could not be reopened: nothing was kept); reopens, how often it was reopened. */
static PyObject *tracer_stop(PyObject *module, PyObject *unused)
{
    if (!active) {
        PyErr_SetString(PyExc_RuntimeError, "the tracer is not running");
        return NULL;
    }
    int64_t t = now_ns();
    if (backend == BACKEND_PROFILE) {
        remove_hooks(); /* the monitoring callbacks are unregistered by the caller (trace_engine.py) */
    }
#ifdef HAVE_FRAME_BACKEND
    if (backend == BACKEND_FRAME) {
        PyInterpreterState *interp = PyThreadState_Get()->interp;
        if (_PyInterpreterState_GetEvalFrameFunc(interp) == frame_hook) { /* else another tool chained over it */
            _PyInterpreterState_SetEvalFrameFunc(interp, previous_eval);
        }
        map_free(&thread_buffers);
        cached_thread = 0;
        cached_buffer = NULL;
        if (paused) { /* stopped from inside the frame that paused the hook */
            paused_ns += t - paused_since;
            paused = 0;
        }
    }
#endif
    active = 0;
    int forked = getpid() != session_pid;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(buffers); i++) {
        flush((Buffer *)PyList_GET_ITEM(buffers, i));
    }
    if (!forked && !file_lost && !file_ready(t)) { /* the analysis must read the event file, none other */
        stop_recording(t);
    }
    if (file_lost && !forked) { /* what was written went with the file */
        dropped += recorded;
        recorded = 0;
    }
    Stream *st = PyObject_New(Stream, &StreamType);
    if (st == NULL) {
        session_clear();
        return NULL;
    }
    st->fd = forked || file_lost ? -1 : fd;
    st->dev = file_dev;
    st->ino = file_ino;
    st->lost = 0;
    if (st->fd >= 0) {
        fd = -1; /* the stream owns it now */
    }
    st->nthreads = PyList_GET_SIZE(threads);
#ifdef HAVE_FRAME_BACKEND
    long long session_pauses = pauses, session_paused_ns = paused_ns;
#else
    long long session_pauses = 0, session_paused_ns = 0;
#endif
    PyObject *result = Py_BuildValue("(NOOLLLiiLLLL)", (PyObject *)st, threads, entries, recorded, dropped,
                                     (long long)(full_at ? full_at : t), write_errno, forked, session_pauses,
                                     session_paused_ns, (long long)(forked ? 0 : lost_at), reopens);
    session_clear();
    return result;
}

static PyObject *tracer_active(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(active);
}

static PyObject *tracer_frame_hooked(PyObject *module, PyObject *unused)
{
#ifdef HAVE_FRAME_BACKEND
    return PyBool_FromLong(_PyInterpreterState_GetEvalFrameFunc(PyThreadState_Get()->interp) == frame_hook);
#else
    Py_RETURN_FALSE;
#endif
}

static PyObject *tracer_now(PyObject *module, PyObject *unused)
{
    return PyLong_FromLongLong(now_ns());
}

static PyMethodDef module_methods[] = {
    {"start", tracer_start, METH_VARARGS,
     "start(builtins, lines, max_events, thread_name, path, backend=0, keep_path=False): trace this thread (and those "
     "that install_thread), events into a new file at path (unlinked at once, or with keep_path at stop: then it is "
     "reopened if the program closes its descriptor); backend 1 (monitoring): the on_* callbacks "
     "are the hooks (the caller registers them with sys.monitoring); 2 (frame, 3.11, Python frames only): every "
     "thread's frames through the interpreter's frame evaluation function"},
    {"install_thread", tracer_install_thread, METH_VARARGS,
     "install_thread(thread_name, code) -> installed: trace the calling thread too, from a call of code (or None)"},
    {"stop", tracer_stop, METH_NOARGS,
     "stop() -> (stream, threads, entries, recorded, dropped, end_ns, write_errno, forked, pauses, paused_ns, lost_at, "
     "reopens): remove the hooks"},
    {"active", tracer_active, METH_NOARGS, "active() -> whether the tracer runs"},
    {"frame_hooked", tracer_frame_hooked, METH_NOARGS,
     "frame_hooked() -> whether the frame backend's hook evaluates this interpreter's frames"},
    {"on_start", (PyCFunction)(void (*)(void))on_start, METH_FASTCALL, "sys.monitoring PY_START, PY_RESUME, PY_THROW"},
    {"on_return", (PyCFunction)(void (*)(void))on_return, METH_FASTCALL, "sys.monitoring PY_RETURN, PY_YIELD, PY_UNWIND"},
    {"on_c_call", (PyCFunction)(void (*)(void))on_c_call, METH_FASTCALL, "sys.monitoring CALL (C functions only)"},
    {"on_c_return", (PyCFunction)(void (*)(void))on_c_return, METH_FASTCALL, "sys.monitoring C_RETURN, C_RAISE"},
    {"on_line", (PyCFunction)(void (*)(void))on_line, METH_FASTCALL, "sys.monitoring LINE"},
    {"now", tracer_now, METH_NOARGS, "now() -> the tracer's clock, ns (CLOCK_MONOTONIC, as time.monotonic_ns)"},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_tracer", "A deterministic call/return tracer (see _tracer.c).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__tracer(void)
{
    if (PyType_Ready(&BufferType) < 0 || PyType_Ready(&StreamType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&StreamType);
    if (PyModule_AddObject(module, "Stream", (PyObject *)&StreamType) < 0) {
        Py_DECREF(&StreamType);
        Py_DECREF(module);
        return NULL;
    }
    PyModule_AddIntConstant(module, "CHUNK_EVENTS", CHUNK_EVENTS);
#ifdef Py_GIL_DISABLED
    /* Process-wide state (the interpreter's frame evaluation hook, one event file, one session): a free-threaded build keeps the GIL on while this module is loaded. */
    PyUnstable_Module_SetGIL(module, Py_MOD_GIL_USED);
#endif
    return module;
}
