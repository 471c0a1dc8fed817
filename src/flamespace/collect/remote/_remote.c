/* Reading another process's memory (Linux's process_vm_readv), for the out-of-process sampler
 * (collect/remote/): one read, and one walk of a thread's chain of frames, which at 1,000 Hz
 * would cost too many Python calls one read at a time (docs/attach.md, "Speed").
 *
 * Every read may fail: the target runs on while we read it, frames are freed and reused, the
 * process exits. A failed read is an OSError with the errno (ESRCH: the process is gone; EFAULT:
 * the address is no longer mapped; EPERM: not allowed), and a walk that meets one stops there
 * and says so: the caller counts a partial stack, it never crashes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Copy size bytes at address in process pid into buffer; 0, or -1 with errno set (EFAULT for a
 * short read: the end of the range is not mapped). */
static int read_memory(pid_t pid, uint64_t address, void *buffer, size_t size) {
    struct iovec local = {buffer, size};
    struct iovec remote = {(void *)(uintptr_t)address, size};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got < 0) {
        return -1;
    }
    if ((size_t)got != size) {
        errno = EFAULT;
        return -1;
    }
    return 0;
}

static PyObject *read_bytes(PyObject *module, PyObject *args) {
    int pid;
    unsigned long long address;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "iKn:read", &pid, &address, &size)) {
        return NULL;
    }
    if (size < 0 || size > (1 << 26)) {
        PyErr_Format(PyExc_ValueError, "cannot read %zd bytes at once", size);
        return NULL;
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, size);
    if (result == NULL) {
        return NULL;
    }
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = read_memory((pid_t)pid, address, PyBytes_AS_STRING(result), (size_t)size);
    Py_END_ALLOW_THREADS
    if (failed) {
        Py_DECREF(result);
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return result;
}

/* How a walk ended (the second item of walk()'s result). */
enum { WALK_COMPLETE = 0, WALK_READ_FAILED = 1, WALK_NOT_CODE = 2, WALK_TOO_DEEP = 3 };

#define MAX_FRAME_BYTES 512

static uint64_t field(const unsigned char *frame, Py_ssize_t offset, Py_ssize_t size) {
    uint64_t value = 0;
    if (size == 4) {
        int32_t small;
        memcpy(&small, frame + offset, 4);
        value = (uint64_t)(int64_t)small;
    } else if (size == 1) {
        value = frame[offset];
    } else {
        memcpy(&value, frame + offset, 8);
    }
    return value;
}

/* A frame with no Python code: its owner byte is skip_owner or more (3.12, 3.13: the C stack's 3;
 * 3.14+: the interpreter's 3 and the C stack's 4). skip_owner < 0: no such frames (3.11). */
static int is_shim(const unsigned char *frame, Py_ssize_t owner, Py_ssize_t skip_owner) {
    return owner >= 0 && skip_owner >= 0 && (Py_ssize_t)frame[owner] >= skip_owner;
}

static PyObject *walk(PyObject *module, PyObject *args) {
    int pid;
    unsigned long long frame_address, code_type;
    Py_ssize_t previous, code, instr, instr_size, owner, skip_owner, tag_bits, type_offset, max_depth;
    Py_ssize_t name_offset, file_offset, line_offset;
    if (!PyArg_ParseTuple(args, "iK(nnnnnnn)nKn(nnn):walk", &pid, &frame_address, &previous, &code, &instr, &instr_size,
                          &owner, &skip_owner, &tag_bits, &type_offset, &code_type, &max_depth, &name_offset,
                          &file_offset, &line_offset)) {
        return NULL;
    }
    /* The code object's head, read in one go: its type, and the words that tell one code object from
     * another that took its address after it was freed (its name, its file name, its first line). */
    Py_ssize_t head = type_offset + 8;
    Py_ssize_t head_ends[] = {name_offset + 8, file_offset + 8, line_offset + 4};
    for (int i = 0; i < 3; i++) {
        if (head_ends[i] > head) {
            head = head_ends[i];
        }
    }
    if (name_offset < 0 || file_offset < 0 || line_offset < 0 || head > MAX_FRAME_BYTES) {
        PyErr_SetString(PyExc_ValueError, "walk(): bad code layout");
        return NULL;
    }
    Py_ssize_t span = 0;
    Py_ssize_t ends[] = {previous + 8, code + 8, instr + instr_size, owner + 1};
    for (int i = 0; i < 4; i++) {
        if (ends[i] > span) {
            span = ends[i];
        }
    }
    if (previous < 0 || code < 0 || instr < 0 || (instr_size != 4 && instr_size != 8) || span > MAX_FRAME_BYTES ||
        type_offset < 0 || max_depth < 1 || tag_bits < 0 || tag_bits > 7) {
        PyErr_SetString(PyExc_ValueError, "walk(): bad frame layout");
        return NULL;
    }
    PyObject *frames = PyList_New(0);
    if (frames == NULL) {
        return NULL;
    }
    unsigned char buffer[MAX_FRAME_BYTES];
    unsigned char code_head[MAX_FRAME_BYTES];
    int status = WALK_COMPLETE;
    int error = 0;
    Py_ssize_t depth = 0;
    uint64_t address = frame_address;
    while (address != 0) {
        if (depth >= max_depth) {
            status = WALK_TOO_DEEP;
            break;
        }
        int failed;
        uint64_t type = 0;
        uint64_t code_address = 0;
        Py_BEGIN_ALLOW_THREADS
        failed = read_memory((pid_t)pid, address, buffer, (size_t)span);
        if (!failed) {
            code_address = field(buffer, code, 8) & ~(uint64_t)tag_bits;
            int shim = is_shim(buffer, owner, skip_owner);
            if (!shim && code_address != 0) {
                failed = read_memory((pid_t)pid, code_address, code_head, (size_t)head);
                if (!failed) {
                    type = field(code_head, type_offset, 8);
                }
            }
        }
        Py_END_ALLOW_THREADS
        if (failed) {
            status = WALK_READ_FAILED;
            error = errno;
            break;
        }
        uint64_t next = field(buffer, previous, 8);
        if (is_shim(buffer, owner, skip_owner)) {
            address = next;  /* a C stack's or the interpreter's shim frame (3.12+): no Python code */
            continue;
        }
        if (type != code_type) {
            status = WALK_NOT_CODE;
            break;
        }
        uint64_t identity = field(code_head, name_offset, 8) ^ (field(code_head, file_offset, 8) * 31u) ^
                            (uint64_t)field(code_head, line_offset, 4);
        PyObject *item = Py_BuildValue("(KLK)", (unsigned long long)code_address,
                                       (long long)(int64_t)field(buffer, instr, instr_size),
                                       (unsigned long long)identity);
        if (item == NULL || PyList_Append(frames, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(frames);
            return NULL;
        }
        Py_DECREF(item);
        depth++;
        address = next;
    }
    return Py_BuildValue("(Nii)", frames, status, error);
}

static PyMethodDef methods[] = {
    {"read", read_bytes, METH_VARARGS,
     "read(pid, address, size) -> bytes: size bytes of process pid's memory at address (OSError with the errno "
     "if they cannot all be read)."},
    {"walk", walk, METH_VARARGS,
     "walk(pid, frame, (previous, code, instr, instr_size, owner, skip_owner, tag_bits), type_offset, code_type, "
     "max_depth, (name, filename, firstlineno)) -> (frames, status, errno): the (code address, instruction, identity) "
     "of each frame from frame along previous (frames whose owner byte is skip_owner or more skipped; tag_bits "
     "cleared from the code pointer), checking that each code object's type is code_type (identity: its name, file "
     "name and first line, mixed); status 0 complete, 1 a read failed, 2 not a code object, "
     "3 deeper than max_depth."},
    {NULL, NULL, 0, NULL},
};

/* Multi-phase init and no state of its own (the functions touch only their arguments): one module
 * object per interpreter, and no GIL needed on free-threaded builds. */
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
    PyModuleDef_HEAD_INIT, "_remote", "Reads of another process's memory (see collect/remote/).", 0, methods, slots,
};

PyMODINIT_FUNC PyInit__remote(void) { return PyModuleDef_Init(&module); }
