/* Sleep until a sample is due, then take the GIL at once.
 *
 * An in-process sampler needs the GIL to read stacks. A thread that wants the GIL waits one
 * switch interval (5 ms by default) before it asks the running thread to let go, so a sample
 * due while a thread runs Python code is taken up to that late, and often at the moment the
 * thread lets the GIL go by itself: when it starts to sleep or wait. That credits the sleep
 * with time that was spent running. Lowering the switch interval for the whole run cures it
 * but makes a program's own threads hand the GIL over more often (docs/performance.md).
 *
 * Waiter.wait(delay_ns, grab_us) sleeps without the GIL until the sample is due, then
 * lowers the switch interval to grab_us only for its own request of the GIL, and puts the
 * interval back as soon as it holds it. The interval is a plain field of the interpreter's
 * GIL state: 3.9-3.11 set it through _PyEval_SetSwitchInterval (no thread state needed);
 * 3.12+ keep a GIL per interpreter, whose field we locate while holding the GIL.
 *
 * Waiter.stop() wakes a waiting wait() at once (halt); reset() arms it again.
 */

#define PY_SSIZE_T_CLEAN
#include <patchlevel.h>
#if PY_VERSION_HEX >= 0x030C0000
#  define Py_BUILD_CORE_MODULE 1
#endif
#include <Python.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#if PY_VERSION_HEX >= 0x030C0000
#  include "internal/pycore_interp.h"
#endif

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int stopped;
    unsigned long *interval;  /* 3.12+: the switch interval (microseconds) of this interpreter */
} Waiter;

static void set_interval(Waiter *self, unsigned long microseconds)
{
#if PY_VERSION_HEX >= 0x030C0000
    *self->interval = microseconds;
#else
    (void)self;
    _PyEval_SetSwitchInterval(microseconds);
#endif
}

static unsigned long get_interval(Waiter *self)
{
#if PY_VERSION_HEX >= 0x030C0000
    return *self->interval;
#else
    (void)self;
    return _PyEval_GetSwitchInterval();
#endif
}

static int Waiter_init(Waiter *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "", keywords)) {
        return -1;
    }
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&self->mutex, NULL) != 0 || pthread_cond_init(&self->cond, &attributes) != 0) {
        pthread_condattr_destroy(&attributes);
        PyErr_SetString(PyExc_OSError, "cannot create the sampler's timer");
        return -1;
    }
    pthread_condattr_destroy(&attributes);
    self->stopped = 0;
#if PY_VERSION_HEX >= 0x030C0000
    self->interval = &PyInterpreterState_Get()->ceval.gil->interval;
#else
    self->interval = NULL;
#endif
    return 0;
}

static void Waiter_dealloc(Waiter *self)
{
    pthread_cond_destroy(&self->cond);
    pthread_mutex_destroy(&self->mutex);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Waiter_wait(Waiter *self, PyObject *args)
{
    long long delay_ns;
    unsigned long grab_us;
    if (!PyArg_ParseTuple(args, "Lk", &delay_ns, &grab_us)) {
        return NULL;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    long long nanoseconds = (long long)deadline.tv_nsec + (delay_ns > 0 ? delay_ns : 0);
    deadline.tv_sec += (time_t)(nanoseconds / 1000000000LL);
    deadline.tv_nsec = (long)(nanoseconds % 1000000000LL);
    unsigned long saved = 0;
    int stopped;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->mutex);
    while (!self->stopped) {
        if (pthread_cond_timedwait(&self->cond, &self->mutex, &deadline) == ETIMEDOUT) {
            break;
        }
    }
    stopped = self->stopped;
    pthread_mutex_unlock(&self->mutex);
    if (!stopped) {
        saved = get_interval(self);
        set_interval(self, grab_us);  /* for our request of the GIL, just below */
    }
    Py_END_ALLOW_THREADS
    if (!stopped && get_interval(self) == grab_us) {
        set_interval(self, saved);
    }
    return PyBool_FromLong(stopped);
}

static PyObject *Waiter_stop(Waiter *self, PyObject *unused)
{
    pthread_mutex_lock(&self->mutex);
    self->stopped = 1;
    pthread_cond_broadcast(&self->cond);
    pthread_mutex_unlock(&self->mutex);
    Py_RETURN_NONE;
}

static PyObject *Waiter_reset(Waiter *self, PyObject *unused)
{
    pthread_mutex_lock(&self->mutex);
    self->stopped = 0;
    pthread_mutex_unlock(&self->mutex);
    Py_RETURN_NONE;
}

static PyMethodDef Waiter_methods[] = {
    {"wait", (PyCFunction)Waiter_wait, METH_VARARGS,
     "wait(delay_ns, grab_us) -> stopped: sleep without the GIL, then take it within about grab_us"},
    {"stop", (PyCFunction)Waiter_stop, METH_NOARGS, "stop(): end a wait now, and every wait until reset()"},
    {"reset", (PyCFunction)Waiter_reset, METH_NOARGS, "reset(): let waits sleep again"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WaiterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flamespace.collect._waiter.Waiter",
    .tp_basicsize = sizeof(Waiter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Sleeps until a sample is due, then takes the GIL within a short switch interval.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Waiter_init,
    .tp_dealloc = (destructor)Waiter_dealloc,
    .tp_methods = Waiter_methods,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_waiter", "The sampler's punctual sleep (see _waiter.c).", -1, NULL,
};

PyMODINIT_FUNC PyInit__waiter(void)
{
    if (PyType_Ready(&WaiterType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&WaiterType);
    if (PyModule_AddObject(module, "Waiter", (PyObject *)&WaiterType) < 0) {
        Py_DECREF(&WaiterType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
