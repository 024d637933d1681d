/* The master's stepping loop in C: auv_cosim/master/native_loop.py compiles this
 * file once per machine and auv_cosim/master/loop.py (NativeSteps) calls run_steps through ctypes,
 * in place of its Python backend, for as long as nothing in the run needs Python between two steps.
 *
 * It does what the Python loop does, call for call and in the same order: for each
 * communication step, the signal values into the row, then for each instance (in the plan's
 * order) its input transfers (gather from the row, check the connected Real values are finite,
 * fmi2Set*), fmi2DoStep, its output reads (fmi2Get* into the row); then the row is appended to
 * the block the recorder receives. It stops, and hands back to Python, when the block is full,
 * when a stop condition may fire, when a second has passed since the last flush, when a call
 * fails (its index and status are written out: Python raises exactly the error it always has),
 * or after `count` steps. Python keeps everything else (the recorder, the stop conditions'
 * bookkeeping, the progress bar, Ctrl-C), at most a block of steps later.
 *
 * No Python API: plain C over pointers that Python prepared, so one build serves any Python.
 * Every number goes through exactly the operations of the Python loop (copies and int <->
 * double conversions), so the results are the same bit for bit.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef void *fmi2Component;
typedef int (*SetRealFunction)(fmi2Component, const unsigned int *, size_t, const double *);
typedef int (*SetIntFunction)(fmi2Component, const unsigned int *, size_t, const int *);
typedef int (*GetRealFunction)(fmi2Component, const unsigned int *, size_t, double *);
typedef int (*GetIntFunction)(fmi2Component, const unsigned int *, size_t, int *);
typedef int (*DoStepFunction)(fmi2Component, double, double, int);

/* the kinds of call (auv_cosim/master/native_loop.py: CALL_*) */
enum { SET_REAL = 0, SET_DISCRETE = 1, DO_STEP = 2, GET_REAL = 3, GET_DISCRETE = 4 };

/* one FMI call of a step; the fields a kind does not use are zero */
typedef struct {
    int64_t kind;
    void *function;           /* the FMU's fmi2SetReal, fmi2DoStep, ... */
    void *component;
    const unsigned int *vr;   /* value references */
    int64_t n;                /* number of values */
    const int64_t *source;    /* SET_*: the row index of each value */
    int64_t checked;          /* SET_REAL: the first `checked` values (the connected ones) must be finite */
    void *buffer;             /* SET_REAL: double[n]; SET_DISCRETE, GET_DISCRETE: int[n] */
    int64_t offset;           /* GET_*: the row index of the first value read */
} Call;

/* a stop condition: row[column] <op> value, and when it has fired, the time the run ends */
typedef struct {
    int64_t column;
    int64_t op;               /* 0 ==, 1 !=, 2 <=, 3 >=, 4 <, 5 > (auv_cosim/master/native_loop.py: STOP_OPS) */
    double value;
    int64_t met;              /* 1 once the condition has been met (Python's stop_met) */
    double deadline;          /* when met: the end time; the step reaching it hands back */
} Stop;

/* what run_steps reports back */
typedef struct {
    int64_t steps;            /* steps completed (their rows are in the block) */
    int64_t failed_call;      /* -1, or the index of the call that failed in step `steps` */
    int64_t status;           /* its fmi2Status, or -1: a connected value was not finite */
} Outcome;

static int compare(double x, int64_t op, double value)
{
    switch (op) {
    case 0: return x == value;
    case 1: return x != value;
    case 2: return x <= value;
    case 3: return x >= value;
    case 4: return x < value;
    default: return x > value;
    }
}

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static int64_t monotonic_nanoseconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + (int64_t)now.tv_nsec;
}

/* Where a step's time goes, for benchmarks (benchmarks/bench_stack.py --breakdown): while
 * `timed_ns` is set, the nanoseconds spent in call i (the FMU's function, nothing around it)
 * are added to timed_ns[i] and its kind written to timed_kind[i], for the first `timed_calls`
 * calls. Off in every run of the master (no call is timed): one comparison a call. */
static int64_t *timed_ns = NULL, *timed_kind = NULL;
static int64_t timed_calls = 0;

void time_calls(int64_t *ns, int64_t *kind, int64_t n)
{
    timed_ns = ns;
    timed_kind = kind;
    timed_calls = ns != NULL ? n : 0;
}

/* One step's calls; the index of the failing call (status in *status), or -1. */
static int64_t one_step(const Call *calls, int64_t n_calls, double *row, double t, double h, int64_t *status)
{
    for (int64_t i = 0; i < n_calls; i++) {
        const Call *c = &calls[i];
        int result;
        const int timed = i < timed_calls;
        const int64_t started = timed ? monotonic_nanoseconds() : 0;
        switch (c->kind) {
        case SET_REAL: {
            double *values = (double *)c->buffer;
            for (int64_t j = 0; j < c->n; j++)
                values[j] = row[c->source[j]];
            for (int64_t j = 0; j < c->checked; j++) {
                if (!isfinite(values[j])) {
                    *status = -1;
                    return i;
                }
            }
            result = ((SetRealFunction)c->function)(c->component, c->vr, (size_t)c->n, values);
            break;
        }
        case SET_DISCRETE: {
            int *values = (int *)c->buffer;
            for (int64_t j = 0; j < c->n; j++)
                values[j] = (int)row[c->source[j]];   /* numpy's float64 -> int32 cast: truncation */
            result = ((SetIntFunction)c->function)(c->component, c->vr, (size_t)c->n, values);
            break;
        }
        case DO_STEP:
            result = ((DoStepFunction)c->function)(c->component, t, h, 1);
            break;
        case GET_REAL:
            result = ((GetRealFunction)c->function)(c->component, c->vr, (size_t)c->n, row + c->offset);
            break;
        default: { /* GET_DISCRETE */
            int *values = (int *)c->buffer;
            result = ((GetIntFunction)c->function)(c->component, c->vr, (size_t)c->n, values);
            if (result <= 1) {
                for (int64_t j = 0; j < c->n; j++)
                    row[c->offset + j] = (double)values[j];
            }
            break;
        }
        }
        if (timed) {
            timed_ns[i] += monotonic_nanoseconds() - started;
            timed_kind[i] = c->kind;
        }
        if (result > 1) {   /* above fmi2Warning, as fmpy and the Python loop check */
            *status = result;
            return i;
        }
    }
    return -1;
}

/* Up to `count` steps from the communication point times[0]: step j goes from times[j] to
 * times[j + 1] (so `times` holds count + 1 values) with the signal values signals[j] (a
 * row-major table of n_signals columns, written to row[signal_column...]), and appends the row
 * to block[j] (rows of n_columns values). Hands back early as the file's comment says;
 * `flush_deadline` is a time of CLOCK_MONOTONIC (Python's time.monotonic). */
void run_steps(const Call *calls, int64_t n_calls, double *row, int64_t n_columns,
               const double *times, int64_t count, double h,
               const double *signals, int64_t signal_column, int64_t n_signals,
               double *block, Stop *stops, int64_t n_stops, double flush_deadline, double epsilon,
               Outcome *outcome)
{
    outcome->steps = 0;
    outcome->failed_call = -1;
    outcome->status = 0;
    for (int64_t k = 0; k < count; k++) {
        for (int64_t j = 0; j < n_signals; j++)
            row[signal_column + j] = signals[k * n_signals + j];
        int64_t status = 0;
        int64_t failed = one_step(calls, n_calls, row, times[k], h, &status);
        if (failed >= 0) {
            outcome->failed_call = failed;
            outcome->status = status;
            return;
        }
        double t_next = times[k + 1];
        row[0] = t_next;
        double *out = block + k * n_columns;
        for (int64_t j = 0; j < n_columns; j++)
            out[j] = row[j];
        outcome->steps = k + 1;
        /* hand back whenever Python's stop bookkeeping would do something at this step */
        for (int64_t s = 0; s < n_stops; s++) {
            const Stop *stop = &stops[s];
            if (stop->met ? t_next >= stop->deadline - epsilon : compare(row[stop->column], stop->op, stop->value))
                return;
        }
        if (monotonic_seconds() > flush_deadline)
            return;
    }
}
