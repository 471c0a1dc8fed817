/* The max-t permutation test's inner loop (stats/maxt.py): the t of every stack on every
 * relabelling of a batch, reduced as it is made, never kept as a relabellings x stacks matrix.
 *
 * permuted(x, sq, total, total2, labels, count, runs, p, n1, n2, floor, paired, weighted, prior_df,
 *          threshold, mode, max_high, max_low, exceed, out) -> None
 *
 * x, sq: runs x p float64 (C order): the centred values and their squares (unpaired), or the
 * differences within pairs (paired: sq unused). labels: count x runs uint8, 1 for a run in group 1
 * (unpaired) or a pair whose difference changes sign (paired). total, total2: the column sums
 * of x and sq over all runs. For each relabelling b and stack j the statistic t is the one
 * maxt.py's numpy path computes (the same operations in the same order, but for the order of
 * the sums over runs, so results agree to rounding): Welch's t with each group's variance
 * floored at ``floor``, or the paired t of the mean difference (the variance of differences
 * floored at ``floor``; total2 then holds the sums of squares of the differences). Each variance
 * is moderated first (stats/moderation.py): its sum of squares plus weighted[j] = d0·s0²_j, over
 * its degrees of freedom plus prior_df = d0 (weighted all 0 and prior_df 0: Welch's variance, the
 * same bits, since adding +0.0 to a non-negative number changes nothing). A NaN t (0/0) is 0.
 * Reductions, into buffers the caller owns: max_high[b] = max_j t, max_low[b] = max_j -t;
 * exceed[j] += #{b: s(t) >= threshold[j]} with s(t) = t (mode 0), -t (1) or |t| (2); and, when
 * ``out`` is not None (B x p float64), every t.
 *
 * The group sums by the "four Russians" method: the runs are taken ``bits`` at a time (8, or
 * fewer for a small batch), and for a block of COLUMNS stacks every subset of each ``bits``
 * runs is summed once into a table (2^bits entries, each sum the previous subset's plus one
 * run); a relabelling's sums over its group are then one table entry per ``bits`` runs: 13
 * additions for 100 runs instead of 50 (and of 100
 * multiply-adds in a matrix product with the 0/1 label matrix). The tables of a block (13 x 256
 * entries of 4 sums and 4 sums of squares: 213 KB) stay in the L2 cache while every relabelling
 * of the batch reads them. Sums are made in a fixed order, without fused multiply-adds (see
 * pyproject.toml), so the results are the same bits on every x86-64, with or without AVX2.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COLUMNS 4 /* stacks per block: one vector of 4 doubles */
#define MAX_BITS 8 /* runs per table: at most 2^8 subset sums (codes fit a byte) */

typedef struct {
    Py_buffer view;
    int held;
} Buf;

static int get(PyObject *object, Buf *buf, int writable, Py_ssize_t size, const char *format, const char *name) {
    buf->held = 0;
    if (PyObject_GetBuffer(object, &buf->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    buf->held = 1;
    const char *f = buf->view.format ? buf->view.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    if (strcmp(f, format) != 0 || buf->view.len != size * buf->view.itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of format '%s'", name, size, format);
        return -1;
    }
    return 0;
}

static void release(Buf *buf) {
    if (buf->held) PyBuffer_Release(&buf->view);
    buf->held = 0;
}

/* Built with -ffp-contract=off (no fused multiply-add: the same bits on every x86-64, with
 * or without AVX2) and -fno-math-errno (a sqrt that sets no errno vectorises); see pyproject.toml. */
/* an AVX2 clone of the loop, chosen when the module loads (GNU ifunc: GCC on x86-64 glibc) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

typedef double v4d __attribute__((vector_size(32), aligned(8))); /* unaligned loads and stores */

/* The constants of the statistic, per test (see maxt.py's _permuted_t and _paired_t, whose
 * operations these are, divisions by n turned into products with 1/n). */
typedef struct {
    double inv_n1, inv_n2, inv_df1, inv_df2, floor; /* inv_df: 1/(n − 1 + d0) */
} Constants;

/* Welch's t of COLUMNS cells from the group-1 sums s and sums of squares q. */
static inline void welch_t(const double *s, const double *q, const double *total, const double *total2,
                           const double *weighted, Constants k, double *t) {
    for (int c = 0; c < COLUMNS; c++) {
        double m1 = s[c] * k.inv_n1;
        double m2 = (total[c] - s[c]) * k.inv_n2;
        double v1 = q[c] - s[c] * m1;
        v1 = ((v1 > 0.0 ? v1 : 0.0) + weighted[c]) * k.inv_df1;
        v1 = v1 > k.floor ? v1 : k.floor;
        double v2 = (total2[c] - q[c]) - (total[c] - s[c]) * m2;
        v2 = ((v2 > 0.0 ? v2 : 0.0) + weighted[c]) * k.inv_df2;
        v2 = v2 > k.floor ? v2 : k.floor;
        double value = (m2 - m1) / sqrt(v1 * k.inv_n1 + v2 * k.inv_n2);
        t[c] = value == value ? value : 0.0; /* 0/0: no difference, no variance */
    }
}

/* The paired t of COLUMNS cells from the sums s of the flipped differences. */
static inline void paired_t(const double *s, const double *total, const double *squares, const double *weighted,
                            Constants k, double *t) {
    for (int c = 0; c < COLUMNS; c++) {
        double sum = total[c] - 2.0 * s[c];
        double mean = sum * k.inv_n1;
        double var = squares[c] - sum * mean;
        var = ((var > 0.0 ? var : 0.0) + weighted[c]) * k.inv_df1;
        var = var > k.floor ? var : k.floor;
        double value = mean / sqrt(var * k.inv_n1);
        t[c] = value == value ? value : 0.0;
    }
}

/* The subset sums of every ``bits`` runs on the COLUMNS stacks from j0 (x, and sq unless NULL),
 * entry m of group g at table[((g << bits) + m) * width] (width: 2 vectors with sq, else 1). */
static inline void tables(const double *X, const double *SQ, Py_ssize_t p, Py_ssize_t runs, Py_ssize_t j0, int bits,
                          v4d *table) {
    int width = SQ ? 2 : 1;
    for (Py_ssize_t first = 0; first < runs; first += bits) {
        v4d *tab = table + (first / bits << bits) * width;
        int size = runs - first < bits ? (int)(runs - first) : bits;
        tab[0] = (v4d){0.0, 0.0, 0.0, 0.0};
        if (SQ) tab[1] = tab[0];
        for (unsigned m = 1; m < 1u << size; m++) {
            unsigned prev = m & (m - 1); /* without its lowest run, which is added */
            Py_ssize_t row = first + __builtin_ctz(m);
            v4d value;
            memcpy(&value, X + row * p + j0, sizeof value);
            tab[m * width] = tab[prev * width] + value;
            if (SQ) {
                memcpy(&value, SQ + row * p + j0, sizeof value);
                tab[m * width + 1] = tab[prev * width + 1] + value;
            }
        }
    }
}

/* Every relabelling (``codes``: per relabelling, the subset of each ``bits`` runs it sums) on the
 * COLUMNS stacks from j0: reductions and, with ``out``, every t. */
CLONES static void block(const double *X, const double *SQ, Py_ssize_t p, Py_ssize_t runs, Py_ssize_t j0,
                         const double *total, const double *total2, const double *weighted, const double *threshold, int mode,
                         const uint8_t *codes, int bits, Py_ssize_t groups, Py_ssize_t count, Constants k, v4d *table,
                         double *high, double *low, double *exceed, double *out) {
    double hits[COLUMNS] = {0};
    double s[COLUMNS], q[COLUMNS], t[COLUMNS], w[COLUMNS];
    memcpy(w, weighted + j0, sizeof w); /* a local copy: no store in the loop can alias it, so it stays in registers */
    tables(X, SQ, p, runs, j0, bits, table);
    for (Py_ssize_t b = 0; b < count; b++) {
        const uint8_t *code = codes + b * groups;
        if (SQ) {
            v4d a = table[2 * code[0]], c = table[2 * code[0] + 1];
            for (Py_ssize_t g = 1; g < groups; g++) {
                const v4d *entry = table + 2 * ((g << bits) + code[g]);
                a += entry[0];
                c += entry[1];
            }
            memcpy(s, &a, sizeof s);
            memcpy(q, &c, sizeof q);
            welch_t(s, q, total + j0, total2 + j0, w, k, t);
        } else {
            v4d a = table[code[0]];
            for (Py_ssize_t g = 1; g < groups; g++) a += table[(g << bits) + code[g]];
            memcpy(s, &a, sizeof s);
            paired_t(s, total + j0, total2 + j0, w, k, t);
        }
        double top = high[b], bottom = low[b];
        for (int c = 0; c < COLUMNS; c++) {
            top = t[c] > top ? t[c] : top;
            bottom = -t[c] > bottom ? -t[c] : bottom;
        }
        const double *limit = threshold + j0;
        if (mode == 0)
            for (int c = 0; c < COLUMNS; c++) hits[c] += t[c] >= limit[c];
        else if (mode == 1)
            for (int c = 0; c < COLUMNS; c++) hits[c] += -t[c] >= limit[c];
        else
            for (int c = 0; c < COLUMNS; c++) hits[c] += fabs(t[c]) >= limit[c];
        high[b] = top;
        low[b] = bottom;
        if (out) memcpy(out + b * p + j0, t, sizeof t);
    }
    for (int c = 0; c < COLUMNS; c++) exceed[j0 + c] += hits[c];
}

static PyObject *permuted(PyObject *self, PyObject *args) {
    PyObject *ox, *osq, *ototal, *ototal2, *olabels, *oweighted, *othreshold, *ohigh, *olow, *oexceed, *oout;
    Py_ssize_t count, runs, p, n1, n2;
    double floor, prior_df;
    int paired, mode;
    if (!PyArg_ParseTuple(args, "OOOOOnnnnndpOdOiOOOO", &ox, &osq, &ototal, &ototal2, &olabels, &count, &runs, &p, &n1, &n2,
                          &floor, &paired, &oweighted, &prior_df, &othreshold, &mode, &ohigh, &olow, &oexceed, &oout))
        return NULL;
    if (count < 0 || runs < 2 || p < 0 || mode < 0 || mode > 2 || !(prior_df >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "count and p must be >= 0, runs >= 2, prior_df >= 0 and mode 0, 1 or 2");
        return NULL;
    }
    Buf total = {0}, total2 = {0}, weighted = {0}, threshold = {0}, labels = {0}, x = {0}, sq = {0}, high = {0}, low = {0},
        exceed = {0}, out = {0};
    PyObject *result = NULL;
    uint8_t *codes = NULL;
    v4d *table = NULL;
    int failed = 0;
    if (get(ox, &x, 0, runs * p, "d", "x") < 0 || get(ototal, &total, 0, p, "d", "total") < 0 ||
        get(ototal2, &total2, 0, p, "d", "total2") < 0 || get(oweighted, &weighted, 0, p, "d", "weighted") < 0 ||
        get(olabels, &labels, 0, count * runs, "B", "labels") < 0 ||
        get(othreshold, &threshold, 0, p, "d", "threshold") < 0 || get(ohigh, &high, 1, count, "d", "max_high") < 0 ||
        get(olow, &low, 1, count, "d", "max_low") < 0 || get(oexceed, &exceed, 1, p, "d", "exceed") < 0)
        goto done;
    if (!paired && get(osq, &sq, 0, runs * p, "d", "sq") < 0) goto done;
    if (oout != Py_None && get(oout, &out, 1, count * p, "d", "out") < 0) goto done;

    /* the runs each relabelling sums (group 1, unpaired; the flipped pairs, paired), ``bits`` at a
     * time: tables no larger than a quarter of the relabellings that read them, so that making
     * them costs at most about a quarter of reading them */
    int bits = 1;
    while (bits < MAX_BITS && bits < runs && (Py_ssize_t)2 << bits <= count / 4) bits++;
    Py_ssize_t groups = (runs + bits - 1) / bits;
    codes = PyMem_Malloc((size_t)(count * groups) + 1);
    table = PyMem_Malloc(sizeof(v4d) * (size_t)((groups << bits) * (paired ? 1 : 2)));
    if (codes == NULL || table == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const uint8_t *lab = labels.view.buf;
    for (Py_ssize_t b = 0; b < count; b++) {
        Py_ssize_t chosen = 0;
        for (Py_ssize_t g = 0; g < groups; g++) {
            unsigned code = 0;
            for (Py_ssize_t i = g * bits; i < runs && i < (g + 1) * bits; i++)
                if (lab[b * runs + i]) {
                    code |= 1u << (i - g * bits);
                    chosen++;
                }
            codes[b * groups + g] = (uint8_t)code;
        }
        if (!paired && chosen != n1) {
            PyErr_Format(PyExc_ValueError, "labelling %zd puts %zd runs in group 1, not %zd", b, chosen, n1);
            goto done;
        }
    }

    const double *X = x.view.buf, *SQ = paired ? NULL : sq.view.buf;
    const double *T = total.view.buf, *T2 = total2.view.buf, *W = weighted.view.buf, *thr = threshold.view.buf;
    double *hi = high.view.buf, *lo = low.view.buf, *ex = exceed.view.buf, *o = out.held ? out.view.buf : NULL;
    double dn1 = (double)n1, dn2 = (double)n2, dn = (double)runs;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t b = 0; b < count; b++) {
        hi[b] = -INFINITY;
        lo[b] = -INFINITY;
    }
    Constants k = {1.0 / dn1, 1.0 / dn2, 1.0 / (dn1 - 1.0 + prior_df), 1.0 / (dn2 - 1.0 + prior_df), floor};
    if (paired) k = (Constants){1.0 / dn, 1.0 / dn, 1.0 / (dn - 1.0 + prior_df), 1.0 / (dn - 1.0 + prior_df), floor};
    Py_ssize_t whole = p - p % COLUMNS;
    for (Py_ssize_t j0 = 0; j0 < whole; j0 += COLUMNS)
        block(X, SQ, p, runs, j0, T, T2, W, thr, mode, codes, bits, groups, count, k, table, hi, lo, ex, o);
    if (whole < p) { /* the last stacks, padded to a block with copies of the first columns that count nowhere */
        Py_ssize_t rest = p - whole;
        double *pad = malloc(sizeof(double) * (size_t)(runs * (paired ? 1 : 2) * COLUMNS + 4 * COLUMNS));
        double *pad_out = o ? malloc(sizeof(double) * (size_t)(count * COLUMNS)) : NULL;
        if (pad == NULL || (o && pad_out == NULL)) {
            free(pad);
            failed = 1;
        } else {
            double *px = pad, *psq = pad + runs * COLUMNS, *rest_t = psq + (paired ? 0 : runs * COLUMNS);
            double *pt2 = rest_t + COLUMNS, *pthr = pt2 + COLUMNS, *pw = pthr + COLUMNS, pex[COLUMNS] = {0};
            for (Py_ssize_t i = 0; i < runs; i++)
                for (Py_ssize_t c = 0; c < COLUMNS; c++) {
                    Py_ssize_t j = whole + (c < rest ? c : 0);
                    px[i * COLUMNS + c] = X[i * p + j];
                    if (!paired) psq[i * COLUMNS + c] = SQ[i * p + j];
                }
            for (Py_ssize_t c = 0; c < COLUMNS; c++) {
                Py_ssize_t j = whole + (c < rest ? c : 0);
                rest_t[c] = T[j];
                pt2[c] = T2[j];
                pthr[c] = thr[j];
                pw[c] = W[j];
            }
            block(px, paired ? NULL : psq, COLUMNS, runs, 0, rest_t, pt2, pw, pthr, mode, codes, bits, groups, count, k, table, hi, lo,
                  pex, pad_out);
            for (Py_ssize_t c = 0; c < rest; c++) ex[whole + c] += pex[c];
            if (o)
                for (Py_ssize_t b = 0; b < count; b++) memcpy(o + b * p + whole, pad_out + b * COLUMNS, sizeof(double) * (size_t)rest);
            free(pad);
            free(pad_out);
        }
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyMem_Free(codes);
    PyMem_Free(table);
    release(&x);
    release(&sq);
    release(&total);
    release(&total2);
    release(&weighted);
    release(&labels);
    release(&threshold);
    release(&high);
    release(&low);
    release(&exceed);
    release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"permuted", permuted, METH_VARARGS,
     "permuted(x, sq, total, total2, labels, count, runs, p, n1, n2, floor, paired, weighted, prior_df, threshold, mode, "
     "max_high, max_low, exceed, out): "
     "the t of every stack on every relabelling in labels, reduced to max_high, max_low and exceed (and written to out "
     "unless it is None)."},
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
    PyModuleDef_HEAD_INIT, "_maxt", "The max-t permutation test's inner loop (see stats/maxt.py).", 0, methods, slots,
};

PyMODINIT_FUNC PyInit__maxt(void) { return PyModuleDef_Init(&module); }
