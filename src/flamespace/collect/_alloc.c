/* Sampled allocation profiling: which Python stacks allocate how many bytes.
 *
 * start() wraps the interpreter's allocators of the MEM and OBJ domains (called with the
 * GIL held, so one global state is enough; the RAW domain is left alone: it runs without
 * the GIL and without a Python stack). Every allocation passes through a countdown of
 * bytes drawn from an exponential distribution with mean `interval`: the allocation that
 * crosses zero is sampled, so an allocation of s bytes is sampled with probability
 * p = 1 - exp(-s / interval), whatever happened before it (a Poisson process over bytes).
 * A sample is weighted 1/p: s/p bytes and 1/p allocations, which makes the totals unbiased
 * estimates of the bytes and the number of allocations per stack.
 *
 * A sample records the stack as (code object, line) pairs read from the interpreter's own
 * frame records, as tracemalloc does: no frame object is created and nothing is allocated
 * from the Python heap inside an allocator. Code objects are kept alive with a reference
 * (Py_INCREF allocates nothing). Samples go to buffers from the C library's malloc and are
 * handed to Python by drain().
 *
 * interval 0 records every allocation at its exact size.
 */

#define PY_SSIZE_T_CLEAN
#include <patchlevel.h>
#if PY_VERSION_HEX >= 0x030B0000
/* The interpreter's frame records are internal from 3.11 on; as a stdlib module would. */
#  define Py_BUILD_CORE_MODULE 1
#endif
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if PY_VERSION_HEX >= 0x030B0000
#  include "internal/pycore_frame.h"
#else
#  include "frameobject.h"
#endif

typedef struct {
    PyObject *code;  /* strong reference */
    int line;
} FrameRecord;

typedef struct {
    double bytes;      /* estimated bytes this sample stands for */
    double count;      /* estimated allocations */
    size_t first;      /* index of the leaf frame in the frame buffer */
    uint32_t depth;    /* frames recorded (leaf first) */
    uint32_t truncated;
} SampleRecord;

static struct {
    int running;
    int busy;                 /* inside our own bookkeeping: let allocations through */
    double interval;
    double countdown;
    uint64_t rng;
    uint32_t max_frames;
    PyMemAllocatorEx original_mem, original_obj;
    SampleRecord *samples;
    size_t n_samples, cap_samples;
    FrameRecord *frames;
    size_t n_frames, cap_frames;
    uint64_t lost;            /* samples dropped because the C library had no memory */
} state;

/* xorshift64*: a small, fast generator; uniform in (0, 1). */
static double uniform(void)
{
    state.rng ^= state.rng >> 12;
    state.rng ^= state.rng << 25;
    state.rng ^= state.rng >> 27;
    uint64_t x = state.rng * 2685821657736338717ULL;
    return ((double)(x >> 11) + 0.5) / 9007199254740992.0;
}

static double next_countdown(void)
{
    return state.interval > 0 ? -state.interval * log(uniform()) : 0.0;
}

static int grow(void **buffer, size_t *capacity, size_t needed, size_t item)
{
    if (needed <= *capacity) {
        return 1;
    }
    size_t capacity2 = *capacity ? *capacity * 2 : 1024;
    while (capacity2 < needed) {
        capacity2 *= 2;
    }
    void *grown = realloc(*buffer, capacity2 * item);
    if (grown == NULL) {
        return 0;
    }
    *buffer = grown;
    *capacity = capacity2;
    return 1;
}

/* The frames of the running thread, leaf first, appended to the frame buffer. */
static int capture_stack(uint32_t *depth, uint32_t *truncated)
{
    PyThreadState *tstate = PyGILState_GetThisThreadState();
    *depth = 0;
    *truncated = 0;
    if (tstate == NULL) {
        return 1;
    }
#if PY_VERSION_HEX >= 0x030C0000
    _PyInterpreterFrame *frame = _PyThreadState_GetFrame(tstate);
#elif PY_VERSION_HEX >= 0x030B0000
    _PyInterpreterFrame *frame = tstate->cframe->current_frame;
#else
    PyFrameObject *frame = tstate->frame;
#endif
    while (frame != NULL) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
        if (_PyFrame_IsIncomplete(frame)) {  /* not started yet: no line to show */
            frame = frame->previous;
            continue;
        }
#endif
        if (*depth >= state.max_frames) {
            *truncated = 1;
            break;
        }
        PyObject *code;
        int line;
#if PY_VERSION_HEX >= 0x030D0000
        code = frame->f_executable;
        line = PyUnstable_InterpreterFrame_GetLine(frame);
#elif PY_VERSION_HEX >= 0x030C0000
        code = (PyObject *)frame->f_code;
        line = PyUnstable_InterpreterFrame_GetLine(frame);
#elif PY_VERSION_HEX >= 0x030B0000
        code = (PyObject *)frame->f_code;
        line = PyCode_Addr2Line(frame->f_code, _PyInterpreterFrame_LASTI(frame) * (int)sizeof(_Py_CODEUNIT));
#else
        code = (PyObject *)frame->f_code;
        line = PyFrame_GetLineNumber(frame);
#endif
        if (code != NULL && PyCode_Check(code)) {
            if (!grow((void **)&state.frames, &state.cap_frames, state.n_frames + 1, sizeof(FrameRecord))) {
                return 0;
            }
            Py_INCREF(code);
            state.frames[state.n_frames].code = code;
            state.frames[state.n_frames].line = line;
            state.n_frames++;
            (*depth)++;
        }
#if PY_VERSION_HEX >= 0x030C0000
        frame = _PyFrame_GetFirstComplete(frame->previous);
#elif PY_VERSION_HEX >= 0x030B0000
        frame = frame->previous;
#else
        frame = frame->f_back;
#endif
    }
    return 1;
}

/* Called when the countdown (already lowered by `size`) crossed zero, or for every
 * allocation when the interval is 0. */
static void record(size_t size)
{
    double bytes, count;
    if (state.interval > 0) {
        double p = -expm1(-(double)size / state.interval);  /* 1 - exp(-s/R), exact for small s */
        if (p <= 0) {
            state.countdown = next_countdown();
            return;
        }
        bytes = (double)size / p;
        count = 1.0 / p;
        /* Memoryless: the next sample is an exponential draw away from here. */
        state.countdown = next_countdown();
    }
    else {
        bytes = (double)size;
        count = 1.0;
    }
    state.busy = 1;
    size_t first = state.n_frames;
    uint32_t depth, truncated;
    if (!capture_stack(&depth, &truncated)
        || !grow((void **)&state.samples, &state.cap_samples, state.n_samples + 1, sizeof(SampleRecord))) {
        for (size_t i = first; i < state.n_frames; i++) {
            Py_DECREF(state.frames[i].code);
        }
        state.n_frames = first;
        state.lost++;
        state.busy = 0;
        return;
    }
    SampleRecord *sample = &state.samples[state.n_samples++];
    sample->bytes = bytes;
    sample->count = count;
    sample->first = first;
    sample->depth = depth;
    sample->truncated = truncated;
    state.busy = 0;
}

/* One set of hooks per domain. Each keeps the domain's own context, so `free` is the
 * original function itself (no wrapper on the hottest path) and the allocating hooks call
 * the saved original directly. */
#define SAMPLE_SIZE(size) \
    do { \
        if (!state.busy) { /* our own bookkeeping allocates too: not counted */ \
            state.countdown -= (double)(size); \
            if (__builtin_expect(state.countdown <= 0, 0)) { \
                record(size); \
            } \
        } \
    } while (0)

#define DOMAIN_HOOKS(domain, original) \
    static void *domain##_malloc(void *ctx, size_t size) \
    { \
        void *ptr = original.malloc(ctx, size); \
        if (ptr != NULL) { SAMPLE_SIZE(size); } \
        return ptr; \
    } \
    static void *domain##_calloc(void *ctx, size_t nelem, size_t elsize) \
    { \
        void *ptr = original.calloc(ctx, nelem, elsize); \
        if (ptr != NULL) { SAMPLE_SIZE(nelem * elsize); } \
        return ptr; \
    } \
    static void *domain##_realloc(void *ctx, void *old, size_t size) \
    { \
        void *ptr = original.realloc(ctx, old, size); \
        /* a new block of `size` bytes, as memray and tcmalloc count it */ \
        if (ptr != NULL) { SAMPLE_SIZE(size); } \
        return ptr; \
    }

DOMAIN_HOOKS(mem, state.original_mem)
DOMAIN_HOOKS(obj, state.original_obj)

static void release_samples(void)
{
    for (size_t i = 0; i < state.n_frames; i++) {
        Py_DECREF(state.frames[i].code);
    }
    state.n_frames = 0;
    state.n_samples = 0;
}

static PyObject *alloc_start(PyObject *module, PyObject *args)
{
    double interval;
    unsigned int max_frames;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "dIK", &interval, &max_frames, &seed)) {
        return NULL;
    }
    if (state.running) {
        PyErr_SetString(PyExc_RuntimeError, "allocation sampling is already running in this process");
        return NULL;
    }
    if (interval < 0 || max_frames < 1) {
        PyErr_SetString(PyExc_ValueError, "interval must be >= 0 and max_frames >= 1");
        return NULL;
    }
    state.interval = interval;
    state.max_frames = max_frames;
    state.rng = seed ? seed : 0x9E3779B97F4A7C15ULL;
    state.countdown = next_countdown();
    state.lost = 0;
    PyMem_GetAllocator(PYMEM_DOMAIN_MEM, &state.original_mem);
    PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &state.original_obj);
    PyMemAllocatorEx mem = {state.original_mem.ctx, mem_malloc, mem_calloc, mem_realloc, state.original_mem.free};
    PyMemAllocatorEx obj = {state.original_obj.ctx, obj_malloc, obj_calloc, obj_realloc, state.original_obj.free};
    PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &mem);
    PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &obj);
    state.running = 1;
    Py_RETURN_NONE;
}

static PyObject *alloc_stop(PyObject *module, PyObject *unused)
{
    if (state.running) {
        PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &state.original_mem);
        PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &state.original_obj);
        state.running = 0;
    }
    Py_RETURN_NONE;
}

/* The samples so far as a list of (bytes, count, truncated, ((code, line), ...) leaf first);
 * the buffers start afresh. */
static PyObject *alloc_drain(PyObject *module, PyObject *unused)
{
    state.busy = 1;  /* what we allocate here is ours */
    size_t n = state.n_samples;
    PyObject *result = PyList_New((Py_ssize_t)n);
    if (result == NULL) {
        state.busy = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        SampleRecord *sample = &state.samples[i];
        PyObject *stack = PyTuple_New(sample->depth);
        if (stack == NULL) {
            goto error;
        }
        for (uint32_t j = 0; j < sample->depth; j++) {
            FrameRecord *frame = &state.frames[sample->first + j];
            PyObject *pair = Py_BuildValue("(Oi)", frame->code, frame->line);
            if (pair == NULL) {
                Py_DECREF(stack);
                goto error;
            }
            PyTuple_SET_ITEM(stack, j, pair);
        }
        PyObject *item = Py_BuildValue("(ddON)", sample->bytes, sample->count,
                                       sample->truncated ? Py_True : Py_False, stack);
        if (item == NULL) {
            goto error;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)i, item);
    }
    release_samples();
    state.busy = 0;
    return result;
error:
    Py_DECREF(result);
    state.busy = 0;
    return NULL;
}

/* Forget what was recorded (in a forked child, the parent's samples are the parent's). */
static PyObject *alloc_reset(PyObject *module, PyObject *unused)
{
    release_samples();
    state.lost = 0;
    Py_RETURN_NONE;
}

static PyObject *alloc_lost(PyObject *module, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(state.lost);
}

static PyObject *alloc_running(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(state.running);
}

static PyMethodDef methods[] = {
    {"start", alloc_start, METH_VARARGS, "start(interval, max_frames, seed): wrap the allocators"},
    {"stop", alloc_stop, METH_NOARGS, "stop(): restore the allocators"},
    {"drain", alloc_drain, METH_NOARGS, "drain() -> [(bytes, count, truncated, ((code, line), ...))]"},
    {"reset", alloc_reset, METH_NOARGS, "reset(): drop the samples recorded so far"},
    {"lost", alloc_lost, METH_NOARGS, "lost() -> samples dropped for lack of memory"},
    {"running", alloc_running, METH_NOARGS, "running() -> whether the allocators are wrapped"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_alloc", "Sampled allocation profiling (see _alloc.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__alloc(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
#ifdef Py_GIL_DISABLED
    /* Process-wide state (the wrapped allocators and their samples): a free-threaded build keeps the GIL on while this module is loaded. */
    PyUnstable_Module_SetGIL(module, Py_MOD_GIL_USED);
#endif
    return module;
}
