/* The offsets flamespace's tables for CPython 3.9-3.12 hold (src/flamespace/collect/remote/layouts.py),
 * printed from a version's own headers: tests/remote/test_layouts.py compiles this against every
 * Python installed here and compares. Build: gcc -I<include> -I<include>/internal layout_offsets.c */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stdio.h>
#include <stddef.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_frame.h"
#include "internal/pycore_dict.h"
#else
#include <frameobject.h>
#endif
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#include "internal/pycore_gil.h"
#define P(name, expr) printf("\"%s\": %zu,\n", name, (size_t)(expr))
int main(void) {
#if PY_VERSION_HEX >= 0x030D0000
    /* 3.13: only what its debug offsets leave out (collect/remote/layouts.py, _DEBUG_EXTRAS_313) */
    P("heaptype.cached_keys", offsetof(PyHeapTypeObject, ht_cached_keys));
    P("values.values", offsetof(PyDictValues, values));
#else
#if PY_VERSION_HEX >= 0x030C0000
    P("interp.modules", offsetof(PyInterpreterState, imports.modules));
#else
    P("interp.modules", offsetof(PyInterpreterState, modules));
#endif
    P("heaptype.cached_keys", offsetof(PyHeapTypeObject, ht_cached_keys));
#if PY_VERSION_HEX >= 0x030B0000
    P("frame.localsplus", offsetof(_PyInterpreterFrame, localsplus));
    P("code.localsplusnames", offsetof(PyCodeObject, co_localsplusnames));
    P("values.values", offsetof(PyDictValues, values));
#else
    P("frame.localsplus", offsetof(PyFrameObject, f_localsplus));
    P("code.varnames", offsetof(PyCodeObject, co_varnames));
    P("code.cellvars", offsetof(PyCodeObject, co_cellvars));
    P("code.freevars", offsetof(PyCodeObject, co_freevars));
#endif
    P("runtime.interpreters_head", offsetof(_PyRuntimeState, interpreters.head));
    P("interp.next", offsetof(PyInterpreterState, next));
#if PY_VERSION_HEX >= 0x030B0000
    P("interp.threads_head", offsetof(PyInterpreterState, threads.head));
#else
    P("interp.threads_head", offsetof(PyInterpreterState, tstate_head));
#endif
    P("tstate.next", offsetof(PyThreadState, next));
    P("tstate.interp", offsetof(PyThreadState, interp));
    P("tstate.thread_id", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030B0000
    P("tstate.native_thread_id", offsetof(PyThreadState, native_thread_id));
    P("tstate.cframe", offsetof(PyThreadState, cframe));
    P("cframe.current_frame", offsetof(_PyCFrame, current_frame));
    P("frame.previous", offsetof(_PyInterpreterFrame, previous));
    P("frame.code", offsetof(_PyInterpreterFrame, f_code));
    P("frame.instr", offsetof(_PyInterpreterFrame, prev_instr));
    P("frame.owner", offsetof(_PyInterpreterFrame, owner));
    P("code.qualname", offsetof(PyCodeObject, co_qualname));
    P("code.linetable", offsetof(PyCodeObject, co_linetable));
    P("code.code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
#else
    P("tstate.frame", offsetof(PyThreadState, frame));
    P("frame.previous", offsetof(PyFrameObject, f_back));
    P("frame.code", offsetof(PyFrameObject, f_code));
    P("frame.instr", offsetof(PyFrameObject, f_lasti));
#if PY_VERSION_HEX >= 0x030A0000
    P("code.linetable", offsetof(PyCodeObject, co_linetable));
#else
    P("code.linetable", offsetof(PyCodeObject, co_lnotab));
#endif
#endif
    P("code.filename", offsetof(PyCodeObject, co_filename));
    P("code.name", offsetof(PyCodeObject, co_name));
    P("code.firstlineno", offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX >= 0x030C0000
    P("gil.pointer", offsetof(PyInterpreterState, ceval.gil));
    P("gil.holder", offsetof(struct _gil_runtime_state, last_holder));
    P("gil.locked", offsetof(struct _gil_runtime_state, locked));
#else
    P("gil.holder", offsetof(_PyRuntimeState, ceval.gil.last_holder));
    P("gil.locked", offsetof(_PyRuntimeState, ceval.gil.locked));
#endif
    P("bytes.ob_size", offsetof(PyVarObject, ob_size));
    P("bytes.ob_sval", offsetof(PyBytesObject, ob_sval));
    P("unicode.state", offsetof(PyASCIIObject, state));
    P("unicode.length", offsetof(PyASCIIObject, length));
    P("unicode.ascii_size", sizeof(PyASCIIObject));
    P("unicode.compact_size", sizeof(PyCompactUnicodeObject));
#endif
    return 0;
}
