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
 * Waiter.stop() wakes a waiting wait() at once (halt); reset() arms it again. woke_ns() is when
 * the last wait's sleep ended, before the GIL was taken: what a late sample lost to the
 * operating system's scheduler, against what it lost waiting for the GIL.
 *
 * watch_sigterm() and sigterm_handled() make sure a SIGTERM ends the process (see the section
 * "SIGTERM watchdog" below and _bootstrap._save_on_sigterm).
 *
 * save_on_crash(function) saves the profile when the program crashes (see "Saving on a crash").
 *
 * die_with_parent(pid) makes the profiled child, and the processes it started, die when the
 * launcher does (Linux): the launcher no longer needs a preexec_fn (ctypes, and Popen's slow fork
 * path) for it. See "Dying with the launcher" below.
 */

#define PY_SSIZE_T_CLEAN
#include <patchlevel.h>
#if PY_VERSION_HEX >= 0x030C0000
#  define Py_BUILD_CORE_MODULE 1
#endif
#include <Python.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <time.h>
#ifdef __linux__
#  include <sys/prctl.h>
#endif

#if PY_VERSION_HEX >= 0x030C0000
#  include "internal/pycore_interp.h"
#endif

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int stopped;
    long long woke_ns;        /* CLOCK_MONOTONIC when the last wait's sleep ended, before the GIL was taken */
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
    self->woke_ns = 0;
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
    struct timespec woke;
    clock_gettime(CLOCK_MONOTONIC, &woke);
    self->woke_ns = (long long)woke.tv_sec * 1000000000LL + woke.tv_nsec;
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

static PyObject *Waiter_woke_ns(Waiter *self, PyObject *unused)
{
    return PyLong_FromLongLong(self->woke_ns);
}

static PyMethodDef Waiter_methods[] = {
    {"wait", (PyCFunction)Waiter_wait, METH_VARARGS,
     "wait(delay_ns, grab_us) -> stopped: sleep without the GIL, then take it within about grab_us"},
    {"stop", (PyCFunction)Waiter_stop, METH_NOARGS, "stop(): end a wait now, and every wait until reset()"},
    {"reset", (PyCFunction)Waiter_reset, METH_NOARGS, "reset(): let waits sleep again"},
    {"woke_ns", (PyCFunction)Waiter_woke_ns, METH_NOARGS,
     "woke_ns() -> the monotonic time (ns) the last wait's sleep ended, before it took the GIL"},
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

/* SIGTERM watchdog.
 *
 * The recorder replaces the default action of SIGTERM with a Python handler that saves the
 * profile, then dies of the signal. A Python handler runs only when the main thread executes
 * bytecode: Python's C handler just notes the signal. A SIGTERM that comes after the main
 * thread's last check and before it blocks (in sem_wait, say) does not interrupt the call, so
 * it is noted and never acted on, and the process that the default action would have killed
 * lives on (a multiprocessing.Pool waiting for its worker hangs).
 *
 * watch_sigterm() wraps Python's C handler: ours notes the signal (async-signal-safe: a flag and
 * sem_post) and calls Python's. A watchdog thread (no GIL, all signals blocked) wakes on it and,
 * until the Python handler says it runs (sigterm_handled()), sends SIGTERM to the main thread
 * every WATCH_STEP_NS: that interrupts a blocking call (EINTR) and Python runs the handler. If it
 * still has not run after WATCH_GIVE_UP_NS (the main thread holds the GIL in C code, or blocks
 * where no signal interrupts it), the watchdog does what the default action would have done:
 * the process dies of SIGTERM, without its profile.
 *
 * A program that installs a SIGTERM handler of its own replaces the wrapper (Python's
 * signal.signal calls sigaction), so its handler is left alone. After a fork, watch_sigterm()
 * in the child starts the child's own watchdog (threads do not survive a fork).
 */

#define WATCH_STEP_NS 50000000LL       /* 50 ms between signals to the main thread */
#define WATCH_GIVE_UP_NS 5000000000LL  /* then, after 5 s, die as the default action would */

static struct sigaction python_action;    /* the action we wrap (Python's C handler) */
static volatile sig_atomic_t term_pending; /* a SIGTERM came; its Python handler has not run yet */
static sem_t term_arrived;                 /* posted by our handler: wakes the watchdog */
static pthread_t main_thread;
static pid_t watched_pid;                  /* the process whose watchdog runs (0: none) */

static void on_sigterm(int signum, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    term_pending = 1;
    sem_post(&term_arrived);
    errno = saved_errno;
    if (python_action.sa_flags & SA_SIGINFO) {
        python_action.sa_sigaction(signum, info, context);
    } else if (python_action.sa_handler != SIG_DFL && python_action.sa_handler != SIG_IGN) {
        python_action.sa_handler(signum);
    }
}

static void sleep_ns(long long nanoseconds)
{
    struct timespec delay = {(time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL)};
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR) {
    }
}

/* Die of ``signum`` now: its default action restored and unblocked in this thread, then raised. */
static void die_of(int signum)
{
    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(signum, &default_action, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signum);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(signum);
    _exit(128 + signum);  /* (a signal whose default action is not to die: cannot be one of ours) */
}

static void *watch(void *unused)
{
    (void)unused;
    for (;;) {
        while (sem_wait(&term_arrived) != 0) {  /* EINTR: wait again */
        }
        for (long long waited = 0; term_pending; waited += WATCH_STEP_NS) {
            sleep_ns(WATCH_STEP_NS);
            if (!term_pending) {
                break;
            }
            if (waited >= WATCH_GIVE_UP_NS) {
                die_of(SIGTERM);  /* in this thread, which no longer blocks it: the process dies */
            }
            pthread_kill(main_thread, SIGTERM);
        }
    }
    return NULL;
}

static PyObject *watch_sigterm(PyObject *module, PyObject *unused)
{
    struct sigaction current;
    if (sigaction(SIGTERM, NULL, &current) != 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    int wrapped = (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigterm;
    if (!wrapped && (current.sa_flags & SA_SIGINFO || current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) {
        Py_RETURN_FALSE;  /* not Python's handler: not ours to watch */
    }
    pid_t pid = getpid();
    if (watched_pid != pid) {  /* first call, or a forked child: no watchdog runs here */
        if (sem_init(&term_arrived, 0, 0) != 0) {
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        term_pending = 0;
        main_thread = pthread_self();
        sigset_t all, saved;
        sigfillset(&all);
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attributes, 256 * 1024);  /* it needs little; the default is 8 MiB */
        pthread_sigmask(SIG_BLOCK, &all, &saved);  /* the watchdog inherits a mask that blocks all */
        pthread_t thread;
        int error = pthread_create(&thread, &attributes, watch, NULL);
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        pthread_attr_destroy(&attributes);
        if (error != 0) {
            errno = error;
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        watched_pid = pid;
    }
    if (!wrapped) {
        struct sigaction ours = current;
        ours.sa_flags |= SA_SIGINFO;
        ours.sa_sigaction = on_sigterm;
        python_action = current;
        if (sigaction(SIGTERM, &ours, NULL) != 0) {
            return PyErr_SetFromErrno(PyExc_OSError);
        }
    }
    Py_RETURN_TRUE;
}

static PyObject *sigterm_handled(PyObject *module, PyObject *unused)
{
    term_pending = 0;
    Py_RETURN_NONE;
}

/* Dying with the launcher, and taking the program's own children along.
 *
 * PR_SET_PDEATHSIG sends this process a signal when the launcher dies, even by kill -9. With
 * SIGKILL the program would die alone: its children (a compiler, a shell, a server it started)
 * are reparented to init and run on. So the signal is DEATH_SIGNAL (SIGRTMAX, which Python
 * programs do not use), caught here in C: the handler walks the tree of processes below this
 * one through /proc/PID/task/TID/children (each found process is stopped first, so that it
 * cannot fork or be reparented while the walk goes on), kills them all (SIGKILL), then kills
 * this process. Everything it calls is async-signal-safe (open, read, close, getdents64, kill);
 * the tree is kept in a static array of MAX_TREE pids.
 *
 * Not covered: processes that left the tree (a daemon's double fork: init is their parent), a
 * program that installs its own handler for SIGRTMAX (then it gets the signal instead), and
 * after os.exec* the new program dies alone (exec resets the handler; the signal's default
 * action still kills it).
 */

#ifdef __linux__
#  include <dirent.h>
#  include <fcntl.h>
#  include <sys/syscall.h>

#define MAX_TREE 4096

static pid_t tree[MAX_TREE];
static char walk_buffer[8192];

static char *append_text(char *out, const char *text)
{
    while (*text) *out++ = *text++;
    return out;
}

static char *append_number(char *out, long value)
{
    char digits[24];
    int n = 0;
    do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value > 0);
    while (n > 0) *out++ = digits[--n];
    return out;
}

/* /proc/PID/task, or /proc/PID/task/TID/children with tid >= 0 (snprintf is not async-signal-safe). */
static void proc_path(char *out, long pid, long tid)
{
    out = append_number(append_text(out, "/proc/"), pid);
    out = append_text(out, "/task");
    if (tid >= 0) {
        out = append_text(append_number(append_text(out, "/"), tid), "/children");
    }
    *out = '\0';
}

/* Add the children that thread tid of process pid started to tree[*count...], each stopped. */
static void add_children(pid_t pid, long tid, int *count)
{
    char path[96];
    proc_path(path, pid, tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t size = read(fd, walk_buffer, sizeof walk_buffer - 1);
    close(fd);
    if (size <= 0) return;
    walk_buffer[size] = '\0';
    long value = -1;
    for (char *c = walk_buffer;; c++) {
        if (*c >= '0' && *c <= '9') {
            value = (value < 0 ? 0 : value * 10) + (*c - '0');
        } else {
            if (value > 0 && *count < MAX_TREE) {
                kill((pid_t)value, SIGSTOP);
                tree[(*count)++] = (pid_t)value;
            }
            value = -1;
            if (*c == '\0') break;
        }
    }
}

/* Add the children of every thread of process pid. */
static void add_children_of_process(pid_t pid, int *count)
{
    char path[64];
    proc_path(path, pid, -1);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    char entries[4096];
    long size;
    while ((size = syscall(SYS_getdents64, fd, entries, sizeof entries)) > 0) {
        for (long offset = 0; offset < size;) {
            struct {
                unsigned long long inode;
                long long next;
                unsigned short length;
                unsigned char type;
                char name[];
            } *entry = (void *)(entries + offset);
            long tid = 0;
            const char *c = entry->name;
            for (; *c >= '0' && *c <= '9'; c++) tid = tid * 10 + (*c - '0');
            if (*c == '\0' && c != entry->name) add_children(pid, tid, count);
            offset += entry->length;
        }
    }
    close(fd);
}

static void kill_tree_and_die(int signum)
{
    (void)signum;
    int count = 0, next = 0;
    pid_t self = getpid();
    add_children_of_process(self, &count);
    while (next < count) add_children_of_process(tree[next++], &count);
    for (int i = 0; i < count; i++) kill(tree[i], SIGKILL);
    kill(self, SIGKILL);
}
#endif

static PyObject *die_with_parent(PyObject *module, PyObject *arg)
{
    long parent = PyLong_AsLong(arg);
    if (parent == -1 && PyErr_Occurred()) {
        return NULL;
    }
#ifdef __linux__
    int death_signal = SIGRTMAX;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = kill_tree_and_die;
    sigfillset(&action.sa_mask);  /* nothing else runs in this thread while it walks */
    if (sigaction(death_signal, &action, NULL) != 0) {
        death_signal = SIGKILL;  /* the program dies alone, as before */
    }
    if (prctl(PR_SET_PDEATHSIG, death_signal, 0, 0, 0) != 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (getppid() != (pid_t)parent) {  /* the parent died before prctl took effect */
        _exit(1);
    }
    Py_RETURN_TRUE;
#else
    Py_RETURN_FALSE;
#endif
}

/* Saving on a crash.
 *
 * A program that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) ends without its atexit
 * handlers: what was recorded lives in its memory and is lost. save_on_crash(function) installs
 * a handler for these signals (where their action is the default: a faulthandler enabled before
 * us is left alone) that, best effort, calls function (the bootstrap's save) in the crashing
 * thread, then dies of the signal as it would have (exit code 128 + N for the launcher).
 *
 * Calling Python from a fault handler is not safe in general: the interpreter or the C heap may
 * be what the fault broke. So: the handler runs once (a second fault, of any of these signals,
 * ends the process at once with the first one's signal; the same signal again, blocked while its
 * handler runs, is forced to its default action by the kernel), and an alarm of
 * CRASH_SAVE_SECONDS makes the process die of the original signal if the save hangs (a lock the
 * fault left held). What the save writes is
 * complete or absent (a temporary file renamed), never a torn profile.
 */

#define CRASH_SAVE_SECONDS 10

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define CRASH_SIGNALS ((int)(sizeof crash_signals / sizeof crash_signals[0]))
static PyObject *crash_save;               /* the function to call (a strong reference, kept) */
static volatile sig_atomic_t crash_signal; /* the signal that is being handled (0: none) */


static void on_save_timeout(int unused)
{
    (void)unused;
    die_of(crash_signal);
}

static void on_crash(int signum)
{
    if (crash_signal != 0) {  /* a fault while handling one: die of the first */
        die_of(crash_signal);
    }
    crash_signal = signum;  /* from now on, any fault ends the process with this signal */
    struct sigaction timeout_action;
    memset(&timeout_action, 0, sizeof timeout_action);
    sigemptyset(&timeout_action.sa_mask);
    timeout_action.sa_handler = on_save_timeout;
    sigaction(SIGALRM, &timeout_action, NULL);
    alarm(CRASH_SAVE_SECONDS);
    if (crash_save != NULL && Py_IsInitialized()) {
        PyGILState_STATE state = PyGILState_Ensure();
        PyObject *result = PyObject_CallObject(crash_save, NULL);
        if (result == NULL) {
            PyErr_Clear();
        }
        Py_XDECREF(result);
        (void)state;  /* not released: the process ends here */
    }
    die_of(signum);
}

static PyObject *save_on_crash(PyObject *module, PyObject *function)
{
    (void)module;
    if (!PyCallable_Check(function)) {
        PyErr_SetString(PyExc_TypeError, "save_on_crash() needs a callable");
        return NULL;
    }
    Py_INCREF(function);
    Py_XSETREF(crash_save, function);
    crash_signal = 0;
    int installed = 0;
    for (int i = 0; i < CRASH_SIGNALS; i++) {
        struct sigaction current;
        if (sigaction(crash_signals[i], NULL, &current) != 0) {
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        int ours = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == on_crash;
        if (!ours && ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)) {
            continue;  /* faulthandler, or the program's own: left alone */
        }
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_crash;
        /* not SA_ONSTACK: Python needs more stack than an alternate signal stack has */
        sigemptyset(&action.sa_mask);
        if (sigaction(crash_signals[i], &action, NULL) != 0) {
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        installed++;
    }
    return PyBool_FromLong(installed > 0);
}

static PyMethodDef module_methods[] = {
    {"die_with_parent", die_with_parent, METH_O,
     "die_with_parent(pid) -> set: be killed, with the processes below this one, when the parent thread that "
     "started this process ends "
     "(Linux; False elsewhere); exit at once if the parent is no longer process pid"},
    {"watch_sigterm", watch_sigterm, METH_NOARGS,
     "watch_sigterm() -> watching: make sure the Python SIGTERM handler runs soon after the signal "
     "(call it from the main thread once that handler is installed, and again in a forked child)"},
    {"save_on_crash", save_on_crash, METH_O,
     "save_on_crash(function) -> installed: call function (best effort) when the process crashes "
     "(SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), then die of the signal"},
    {"sigterm_handled", sigterm_handled, METH_NOARGS,
     "sigterm_handled(): the Python SIGTERM handler runs (the watchdog stands down)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_waiter", "The sampler's punctual sleep (see _waiter.c).", -1, module_methods,
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
#ifdef Py_GIL_DISABLED
    /* Process-wide state (signal handlers, the main thread's id, a static type): a free-threaded build keeps the GIL on while this module is loaded. */
    PyUnstable_Module_SetGIL(module, Py_MOD_GIL_USED);
#endif
    return module;
}
