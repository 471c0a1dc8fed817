/* pprof's wire decoding in C: the same contract as formats/_pprof_wire.py, field for field.
 *
 * decode(data) -> (sample_types, samples, locations, functions, mappings, strings,
 *                  default_sample_type, period_type, period, duration, comments, time_nanos)
 * samples(data, where) -> (rows, failure): rows [(location ids tuple, [values], [labels])],
 *                  failure None or (index, message, offset) of the first malformed sample
 * set_error(cls): the exception class raised as cls(message, offset) (_protobuf.WireError)
 * sum_texts(...): the reader's loop over samples for the common ones (see its doc string); any
 *                  sample it does not take is left to formats/pprof.py, which reads it as before
 *
 * Why: a pushed window of 2,000 stacks took ~10 ms to decode in Python (a generator call per
 * field); serve's ingest is bounded by it. The Python module is the specification: this port
 * walks the bytes in the same order, reads past a message's end exactly where it does (a
 * varint is bounded by the data, not by its message; the message then ends in an error) and
 * raises the same messages at the same offsets, which the fuzz test checks on random bytes.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

enum { VARINT = 0, FIXED64 = 1, BYTES = 2, FIXED32 = 5 };

static PyObject *wire_error = NULL; /* set by set_error; ValueError until then */

typedef struct {
    const unsigned char *data;
    Py_ssize_t size;
} Buffer;

static void fail(const char *message, PyObject *offset) {
    PyObject *cls = wire_error ? wire_error : PyExc_ValueError;
    if (offset == NULL) return; /* MemoryError already set */
    PyObject *exc = PyObject_CallFunction(cls, "sO", message, offset);
    Py_DECREF(offset);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
}

static void fail_at(const char *message, Py_ssize_t offset) { fail(message, PyLong_FromSsize_t(offset)); }

/* _protobuf.varint: the value at *pos (masked to 64 bits), *pos moved past it; -1 on error. */
static int read_varint(const Buffer *b, Py_ssize_t *pos, uint64_t *out) {
    Py_ssize_t p = *pos, start = p;
    if (p >= b->size) {
        fail_at("the data ends inside a varint (truncated file?)", p);
        return -1;
    }
    unsigned char byte = b->data[p];
    if (byte < 0x80) {
        *out = byte;
        *pos = p + 1;
        return 0;
    }
    uint64_t result = byte & 0x7F;
    int shift = 7;
    p++;
    for (;;) {
        if (p >= b->size) {
            fail_at("the data ends inside a varint (truncated file?)", p);
            return -1;
        }
        byte = b->data[p++];
        if (shift < 64) result |= (uint64_t)(byte & 0x7F) << shift;
        if (byte < 0x80) {
            *out = result;
            *pos = p;
            return 0;
        }
        shift += 7;
        if (shift >= 70) {
            fail_at("a varint longer than 10 bytes", start);
            return -1;
        }
    }
}

/* One step of _protobuf.fields over [*pos, end): 1 with a field, 0 at the end, -1 on error. */
typedef struct {
    uint64_t number;
    int wire;
    uint64_t value; /* a varint's or fixed field's value, or where a length-delimited field starts */
    Py_ssize_t end; /* the next position, or where a length-delimited field ends */
} Field;

static int next_field(const Buffer *b, Py_ssize_t *pos, Py_ssize_t end, Field *f) {
    if (*pos >= end) {
        if (*pos != end) {
            fail_at("a field runs past the end of its message", *pos);
            return -1;
        }
        return 0;
    }
    Py_ssize_t at = *pos;
    uint64_t key;
    if (read_varint(b, pos, &key) < 0) return -1;
    f->number = key >> 3;
    f->wire = (int)(key & 7);
    if (f->number == 0) {
        fail_at("a field numbered 0", at);
        return -1;
    }
    if (f->wire == VARINT) {
        if (read_varint(b, pos, &f->value) < 0) return -1;
        f->end = *pos;
        return 1;
    }
    if (f->wire == BYTES) {
        uint64_t size;
        if (read_varint(b, pos, &size) < 0) return -1;
        if (*pos > end || size > (uint64_t)(end - *pos)) {
            char message[96];
            snprintf(message, sizeof message, "a field of %llu bytes runs past the end of its message (truncated file?)",
                     (unsigned long long)size);
            fail_at(message, at);
            return -1;
        }
        f->value = (uint64_t)*pos;
        f->end = *pos + (Py_ssize_t)size;
        *pos = f->end;
        return 1;
    }
    if (f->wire == FIXED64 || f->wire == FIXED32) {
        int width = f->wire == FIXED64 ? 8 : 4;
        if (width > end - *pos) {
            fail_at("the data ends inside a fixed-width field (truncated file?)", at);
            return -1;
        }
        uint64_t value = 0;
        for (int k = width - 1; k >= 0; k--) value = value << 8 | b->data[*pos + k];
        f->value = value;
        *pos += width;
        f->end = *pos;
        return 1;
    }
    char message[80];
    snprintf(message, sizeof message, "wire type %d (groups or garbage) where a field was expected", f->wire);
    fail_at(message, at);
    return -1;
}

static int append_u64(PyObject *list, uint64_t value) {
    PyObject *number = PyLong_FromUnsignedLongLong(value);
    if (number == NULL) return -1;
    int status = PyList_Append(list, number);
    Py_DECREF(number);
    return status;
}

/* _protobuf.repeated_varints: one value (a varint field) or a packed run, appended to ``into``. */
static int repeated_varints(const Buffer *b, const Field *f, PyObject *into) {
    if (f->wire == VARINT) return append_u64(into, f->value);
    if (f->wire != BYTES) {
        char message[64];
        snprintf(message, sizeof message, "wire type %d for a repeated integer field", f->wire);
        fail(message, PyLong_FromUnsignedLongLong(f->value));
        return -1;
    }
    Py_ssize_t pos = (Py_ssize_t)f->value, end = f->end;
    while (pos < end) {
        if (pos >= b->size) goto truncated;
        unsigned char byte = b->data[pos++];
        if (byte < 0x80) {
            if (append_u64(into, byte) < 0) return -1;
            continue;
        }
        uint64_t number = byte & 0x7F;
        int shift = 7;
        for (;;) {
            if (pos >= b->size) goto truncated;
            byte = b->data[pos++];
            if (shift < 64) number |= (uint64_t)(byte & 0x7F) << shift;
            if (byte < 0x80) break;
            shift += 7;
            if (shift >= 70) {
                fail_at("a varint longer than 10 bytes", pos);
                return -1;
            }
        }
        if (append_u64(into, number) < 0) return -1;
    }
    if (pos != end) {
        fail_at("a packed field runs past its end", pos);
        return -1;
    }
    return 0;
truncated:
    fail_at("the data ends inside a varint (truncated file?)", pos);
    return -1;
}

/* _pprof_wire._ints: varint fields 1..count of a small message. */
static int read_ints(const Buffer *b, Py_ssize_t pos, Py_ssize_t end, int count, uint64_t *values) {
    for (int k = 0; k < count; k++) values[k] = 0;
    Field f;
    int status;
    while ((status = next_field(b, &pos, end, &f)) > 0) {
        if (f.number <= (uint64_t)count && f.wire == VARINT) values[f.number - 1] = f.value;
    }
    return status;
}

static int64_t as_signed(uint64_t value) { return (int64_t)value; }

/* A location: (id, (mapping, address, [(function, line)])). */
static PyObject *read_location(const Buffer *b, Py_ssize_t pos, Py_ssize_t end, uint64_t *location_id) {
    uint64_t mapping = 0, address = 0;
    *location_id = 0;
    PyObject *lines = PyList_New(0);
    if (lines == NULL) return NULL;
    Field f;
    int status;
    while ((status = next_field(b, &pos, end, &f)) > 0) {
        if (f.number == 4 && f.wire == BYTES) {
            uint64_t line[2];
            if (read_ints(b, (Py_ssize_t)f.value, f.end, 2, line) < 0) goto error;
            PyObject *pair = Py_BuildValue("(KL)", (unsigned long long)line[0], (long long)as_signed(line[1]));
            if (pair == NULL || PyList_Append(lines, pair) < 0) {
                Py_XDECREF(pair);
                goto error;
            }
            Py_DECREF(pair);
        } else if (f.wire == VARINT && f.number >= 1 && f.number <= 3) {
            if (f.number == 1) *location_id = f.value;
            else if (f.number == 2) mapping = f.value;
            else address = f.value;
        }
    }
    if (status < 0) goto error;
    PyObject *result = Py_BuildValue("(KKN)", (unsigned long long)mapping, (unsigned long long)address, lines);
    return result;
error:
    Py_DECREF(lines);
    return NULL;
}

static int set_u64(PyObject *dict, uint64_t key, PyObject *value) {
    if (value == NULL) return -1;
    PyObject *k = PyLong_FromUnsignedLongLong(key);
    if (k == NULL) {
        Py_DECREF(value);
        return -1;
    }
    int status = PyDict_SetItem(dict, k, value);
    Py_DECREF(k);
    Py_DECREF(value);
    return status;
}

static PyObject *decode(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    Buffer b = {(const unsigned char *)view.buf, view.len};
    PyObject *sample_types = PyList_New(0), *sample_at = PyList_New(0), *locations = PyDict_New();
    PyObject *functions = PyDict_New(), *mappings = PyDict_New(), *strings = PyList_New(0), *comments = PyList_New(0);
    PyObject *result = NULL;
    uint64_t default_sample_type = 0, period_type[2] = {0, 0};
    int64_t period = 0, duration = 0, time_nanos = 0;
    if (!sample_types || !sample_at || !locations || !functions || !mappings || !strings || !comments) goto done;
    Py_ssize_t pos = 0;
    Field f;
    int status;
    while ((status = next_field(&b, &pos, b.size, &f)) > 0) {
        Py_ssize_t start = (Py_ssize_t)f.value;
        if (f.number == 2 && f.wire == BYTES) {
            PyObject *where = Py_BuildValue("(nn)", start, f.end);
            if (where == NULL || PyList_Append(sample_at, where) < 0) {
                Py_XDECREF(where);
                goto done;
            }
            Py_DECREF(where);
        } else if (f.number == 4 && f.wire == BYTES) {
            uint64_t location_id;
            PyObject *location = read_location(&b, start, f.end, &location_id);
            if (set_u64(locations, location_id, location) < 0) goto done;
        } else if (f.number == 5 && f.wire == BYTES) {
            uint64_t v[4];
            if (read_ints(&b, start, f.end, 4, v) < 0) goto done;
            PyObject *function = Py_BuildValue("(KKK)", (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3]);
            if (set_u64(functions, v[0], function) < 0) goto done;
        } else if (f.number == 6 && f.wire == BYTES) {
            PyObject *text = PyUnicode_DecodeUTF8((const char *)b.data + start, f.end - start, "replace");
            if (text == NULL || PyList_Append(strings, text) < 0) {
                Py_XDECREF(text);
                goto done;
            }
            Py_DECREF(text);
        } else if ((f.number == 1 || f.number == 11) && f.wire == BYTES) {
            uint64_t pair[2];
            if (read_ints(&b, start, f.end, 2, pair) < 0) goto done;
            if (f.number == 1) {
                PyObject *t = Py_BuildValue("(KK)", (unsigned long long)pair[0], (unsigned long long)pair[1]);
                if (t == NULL || PyList_Append(sample_types, t) < 0) {
                    Py_XDECREF(t);
                    goto done;
                }
                Py_DECREF(t);
            } else {
                period_type[0] = pair[0];
                period_type[1] = pair[1];
            }
        } else if (f.number == 3 && f.wire == BYTES) {
            uint64_t v[5];
            if (read_ints(&b, start, f.end, 5, v) < 0) goto done;
            if (set_u64(mappings, v[0], PyLong_FromUnsignedLongLong(v[4])) < 0) goto done;
        } else if (f.number == 12 && f.wire == VARINT) {
            period = as_signed(f.value);
        } else if (f.number == 10 && f.wire == VARINT) {
            duration = as_signed(f.value);
        } else if (f.number == 9 && f.wire == VARINT) {
            time_nanos = as_signed(f.value);
        } else if (f.number == 13) {
            if (repeated_varints(&b, &f, comments) < 0) goto done;
        } else if (f.number == 14 && f.wire == VARINT) {
            default_sample_type = f.value;
        }
    }
    if (status < 0) goto done;
    result = Py_BuildValue("(OOOOOOK(KK)LLOL)", sample_types, sample_at, locations, functions, mappings, strings,
                           (unsigned long long)default_sample_type, (unsigned long long)period_type[0],
                           (unsigned long long)period_type[1], (long long)period, (long long)duration, comments,
                           (long long)time_nanos);
done:
    Py_XDECREF(sample_types);
    Py_XDECREF(sample_at);
    Py_XDECREF(locations);
    Py_XDECREF(functions);
    Py_XDECREF(mappings);
    Py_XDECREF(strings);
    Py_XDECREF(comments);
    PyBuffer_Release(&view);
    return result;
}

/* One sample: (location ids tuple, [values], [(key, str, num, num_unit)]), or NULL with the error set. */
static PyObject *read_sample(const Buffer *b, Py_ssize_t pos, Py_ssize_t end) {
    PyObject *locations = PyList_New(0), *values = PyList_New(0), *labels = PyList_New(0), *ids = NULL;
    if (!locations || !values || !labels) goto error;
    Field f;
    int status;
    while ((status = next_field(b, &pos, end, &f)) > 0) {
        if (f.number == 1) {
            if (repeated_varints(b, &f, locations) < 0) goto error;
        } else if (f.number == 2) {
            if (repeated_varints(b, &f, values) < 0) goto error;
        } else if (f.number == 3 && f.wire == BYTES) {
            uint64_t v[4];
            if (read_ints(b, (Py_ssize_t)f.value, f.end, 4, v) < 0) goto error;
            PyObject *label = Py_BuildValue("(KKKK)", (unsigned long long)v[0], (unsigned long long)v[1],
                                            (unsigned long long)v[2], (unsigned long long)v[3]);
            if (label == NULL || PyList_Append(labels, label) < 0) {
                Py_XDECREF(label);
                goto error;
            }
            Py_DECREF(label);
        }
    }
    if (status < 0) goto error;
    ids = PyList_AsTuple(locations);
    if (ids == NULL) goto error;
    Py_DECREF(locations);
    return Py_BuildValue("(NNN)", ids, values, labels);
error:
    Py_XDECREF(locations);
    Py_XDECREF(values);
    Py_XDECREF(labels);
    return NULL;
}

static PyObject *samples(PyObject *self, PyObject *args) {
    PyObject *data, *where;
    if (!PyArg_ParseTuple(args, "OO!", &data, &PyList_Type, &where)) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    Buffer b = {(const unsigned char *)view.buf, view.len};
    PyObject *rows = PyList_New(0), *failure = NULL, *result = NULL;
    if (rows == NULL) goto done;
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(where); index++) {
        Py_ssize_t start, end;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(where, index), "nn", &start, &end)) goto done;
        if (start < 0 || end < start || end > b.size) {
            PyErr_SetString(PyExc_ValueError, "a sample's place lies outside the data");
            goto done;
        }
        PyObject *row = read_sample(&b, start, end);
        if (row == NULL) {
            if (wire_error == NULL || !PyErr_ExceptionMatches(wire_error)) goto done;
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            PyErr_NormalizeException(&type, &value, &traceback);
            PyObject *message = PyObject_Str(value), *offset = PyObject_GetAttrString(value, "offset");
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(traceback);
            if (message == NULL || offset == NULL) {
                Py_XDECREF(message);
                Py_XDECREF(offset);
                goto done;
            }
            failure = Py_BuildValue("(nNN)", index, message, offset);
            if (failure == NULL) goto done;
            break;
        }
        int status = PyList_Append(rows, row);
        Py_DECREF(row);
        if (status < 0) goto done;
    }
    result = Py_BuildValue("(OO)", rows, failure ? failure : Py_None);
done:
    Py_XDECREF(rows);
    Py_XDECREF(failure);
    PyBuffer_Release(&view);
    return result;
}

/* A growable array of location ids. */
typedef struct {
    uint64_t *ids;
    Py_ssize_t size, capacity;
} Ids;

static int ids_push(Ids *ids, uint64_t value) {
    if (ids->size == ids->capacity) {
        Py_ssize_t capacity = ids->capacity ? ids->capacity * 2 : 64;
        uint64_t *grown = PyMem_Realloc(ids->ids, (size_t)capacity * sizeof(uint64_t));
        if (grown == NULL) return -1;
        ids->ids = grown;
        ids->capacity = capacity;
    }
    ids->ids[ids->size++] = value;
    return 0;
}

/* A packed or single varint field's values: into ``ids`` (when not NULL), counted in *count, the
 * one at ``column`` in *chosen. 0, or -1 for anything irregular (left to the Python reader). */
static int plain_varints(const Buffer *b, const Field *f, Ids *ids, Py_ssize_t *count, Py_ssize_t column, uint64_t *chosen) {
    if (f->wire == VARINT) {
        if (*count == column) *chosen = f->value;
        (*count)++;
        return ids ? ids_push(ids, f->value) : 0;
    }
    if (f->wire != BYTES) return -1;
    Py_ssize_t pos = (Py_ssize_t)f->value;
    while (pos < f->end) {
        uint64_t value;
        if (read_varint(b, &pos, &value) < 0) return -1;
        if (*count == column) *chosen = value;
        (*count)++;
        if (ids && ids_push(ids, value) < 0) return -1;
    }
    return pos == f->end ? 0 : -1;
}

enum { SAMPLE_ADDED, SAMPLE_SKIPPED, SAMPLE_DEFERRED, SAMPLE_STOP, SAMPLE_ERROR };

/* Location id -> its text (borrowed from the texts dict, which outlives the loop): an array when the
 * ids are small and dense enough (pprof numbers them 1, 2, 3, ...), so a sample's ids are looked up
 * without a Python int each; else the dict itself. */
typedef struct {
    PyObject **by_id;
    Py_ssize_t size;
    PyObject *dict;
} Texts;

static int texts_init(Texts *t, PyObject *dict) {
    t->by_id = NULL;
    t->size = 0;
    t->dict = dict;
    Py_ssize_t pos = 0, top = -1;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyLong_CheckExact(key) || !PyUnicode_CheckExact(value)) return 0;
        Py_ssize_t id = PyLong_AsSsize_t(key);
        if (id < 0 || id > 4 * PyDict_GET_SIZE(dict) + 1024) {
            PyErr_Clear();
            return 0; /* sparse or huge ids: the dict */
        }
        if (id > top) top = id;
    }
    t->by_id = PyMem_Calloc((size_t)(top + 1), sizeof(PyObject *));
    if (t->by_id == NULL) return -1;
    t->size = top + 1;
    pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) t->by_id[PyLong_AsSsize_t(key)] = value;
    return 0;
}

/* The text of location ``id`` (borrowed), or NULL: not known (no exception) or an error (set). */
static PyObject *texts_get(const Texts *t, uint64_t id) {
    if (t->by_id != NULL) return id < (uint64_t)t->size ? t->by_id[id] : NULL;
    PyObject *key = PyLong_FromUnsignedLongLong(id);
    if (key == NULL) return NULL;
    PyObject *text = PyDict_GetItemWithError(t->dict, key);
    Py_DECREF(key);
    return text;
}

/* One sample of the common kind: its value added to counts[its stack text]. */
static int sum_sample(const Buffer *b, Py_ssize_t pos, Py_ssize_t end, Py_ssize_t column, Py_ssize_t expected,
                      const Texts *texts, PyObject *counts, PyObject *separator, Ids *ids) {
    Field f;
    int status, labelled = 0;
    Py_ssize_t count = 0, ignored = 0;
    uint64_t chosen = 0;
    ids->size = 0;
    while ((status = next_field(b, &pos, end, &f)) > 0) {
        if (f.number == 1) {
            if (plain_varints(b, &f, ids, &ignored, -1, &chosen) < 0) goto stop;
        } else if (f.number == 2) {
            if (plain_varints(b, &f, NULL, &count, column, &chosen) < 0) goto stop;
        } else if (f.number == 3 && f.wire == BYTES) {
            labelled = 1;
        }
    }
    if (status < 0 || count != expected) goto stop;
    int64_t value = as_signed(chosen);
    if (value == 0) return SAMPLE_SKIPPED;
    if (value < 0) return SAMPLE_STOP;
    if (labelled) return SAMPLE_DEFERRED;
    PyObject *parts = PyTuple_New(ids->size);
    if (parts == NULL) return SAMPLE_ERROR;
    for (Py_ssize_t k = 0; k < ids->size; k++) { /* root first: pprof lists the leaf first */
        PyObject *text = texts_get(texts, ids->ids[ids->size - 1 - k]);
        if (text == NULL) {
            Py_DECREF(parts);
            return PyErr_Occurred() ? SAMPLE_ERROR : SAMPLE_STOP;
        }
        Py_INCREF(text);
        PyTuple_SET_ITEM(parts, k, text);
    }
    PyObject *stack = PyUnicode_Join(separator, parts);
    Py_DECREF(parts);
    if (stack == NULL) return SAMPLE_ERROR;
    PyObject *number = PyLong_FromLongLong(value), *total = NULL;
    if (number == NULL) goto error;
    PyObject *before = PyDict_GetItemWithError(counts, stack);
    if (before == NULL && PyErr_Occurred()) goto error;
    total = before ? PyNumber_Add(before, number) : (Py_INCREF(number), number);
    if (total == NULL || PyDict_SetItem(counts, stack, total) < 0) goto error;
    Py_DECREF(stack);
    Py_DECREF(number);
    Py_DECREF(total);
    return SAMPLE_ADDED;
error:
    Py_DECREF(stack);
    Py_XDECREF(number);
    Py_XDECREF(total);
    return SAMPLE_ERROR;
stop:
    if (PyErr_Occurred()) PyErr_Clear(); /* the Python reader decodes it again and says what is wrong */
    return SAMPLE_STOP;
}

static PyObject *sum_texts(PyObject *self, PyObject *args) {
    PyObject *data, *where, *texts, *counts, *deferred;
    Py_ssize_t first, column, expected;
    if (!PyArg_ParseTuple(args, "OO!nnnO!O!O!", &data, &PyList_Type, &where, &first, &column, &expected, &PyDict_Type,
                          &texts, &PyDict_Type, &counts, &PyList_Type, &deferred))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    Buffer b = {(const unsigned char *)view.buf, view.len};
    PyObject *separator = PyUnicode_FromString(";"), *result = NULL;
    Ids ids = {NULL, 0, 0};
    Texts table;
    Py_ssize_t index = first < 0 ? 0 : first;
    if (texts_init(&table, texts) < 0) {
        Py_XDECREF(separator);
        PyBuffer_Release(&view);
        return NULL;
    }
    if (separator == NULL) goto done;
    for (; index < PyList_GET_SIZE(where); index++) {
        Py_ssize_t start, end;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(where, index), "nn", &start, &end)) goto done;
        if (start < 0 || end < start || end > b.size) break; /* not a place decode gave: the Python reader's */
        int status = sum_sample(&b, start, end, column, expected, &table, counts, separator, &ids);
        if (status == SAMPLE_ERROR) goto done;
        if (status == SAMPLE_STOP) break;
        if (status == SAMPLE_DEFERRED) {
            PyObject *number = PyLong_FromSsize_t(index);
            if (number == NULL || PyList_Append(deferred, number) < 0) {
                Py_XDECREF(number);
                goto done;
            }
            Py_DECREF(number);
        }
    }
    result = PyLong_FromSsize_t(index);
done:
    Py_XDECREF(separator);
    PyMem_Free(ids.ids);
    PyMem_Free(table.by_id);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *set_error(PyObject *self, PyObject *cls) {
    Py_INCREF(cls);
    Py_XSETREF(wire_error, cls);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_O, "decode(data) -> the Profile message's tables (see formats/_pprof_wire.decode)."},
    {"samples", samples, METH_VARARGS,
     "samples(data, where) -> (rows, failure): the samples at [(start, end)] (see formats/_pprof_wire.samples)."},
    {"sum_texts", sum_texts, METH_VARARGS,
     "sum_texts(data, where, first, column, count, texts, counts, deferred) -> where it stopped: the common "
     "samples' values added to counts[stack text] (texts: location id -> its frames' text); samples with "
     "labels are listed in deferred; anything else stops the loop for the Python reader."},
    {"set_error", set_error, METH_O, "set_error(cls): raise cls(message, offset) for malformed bytes."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_pprof", "pprof's wire decoding (see formats/_pprof_wire.py).", 0, methods, slots,
};

PyMODINIT_FUNC PyInit__pprof(void) { return PyModuleDef_Init(&module); }
