/*
 * The project's FMI 2.0 co-simulation wrapper for pythonfmu slaves.
 *
 * auv_cosim/build/native_wrapper.py compiles this file and its parts (wrapper.h names them: finding
 * and starting Python, logging, the direct transfers) into binaries/linux64/<model>.so of each
 * FMU, in place of pythonfmu 0.7.0's stock binary. It runs the same Python slaves (a subclass of
 * pythonfmu's Fmi2Slave in resources/<slavemodule.txt>.py) and differs where the stock binary
 * fails its hosts (docs/using_auv_fmu.md, "The native wrapper"):
 *
 *  - Python is found at run time. A Python host (fmpy, ecospy...) already has an interpreter:
 *    its symbols are in the process and the FMU uses it. A host without Python (a C or C++
 *    tool) gets one started here: libpython is loaded with dlopen(RTLD_GLOBAL), so numpy's and
 *    scipy's extension modules find its symbols, and nobody needs LD_PRELOAD. The binary does
 *    not link libpython, so it never brings a second interpreter into a Python host.
 *  - Nothing is ever torn down: the interpreter state lives in one heap block that is never
 *    freed, Py_Finalize is never called, and the library has no destructor. (pythonfmu 0.7.0's
 *    static std::shared_ptr guard was released twice at exit, and its Py_Finalize read objects
 *    that scipy had already freed: aborts and SIGSEGV at host exit.)
 *  - A Python exception is a status, not the end of the instance: fmi2Error (or the status in
 *    the exception's integer attribute `fmi2_status`), with the exception's text logged. The
 *    instance keeps every reference, so fmi2Reset, fmi2SetFMUstate and fmi2FreeInstance work
 *    afterwards. do_step returning False is fmi2Discard, as in pythonfmu.
 *  - Logging: every message the slave queued (Fmi2Slave.log) reaches the host's logger after
 *    each call; warnings and errors always, the others when logging is on for their category
 *    (fmi2Instantiate's loggingOn, fmi2SetDebugLogging). The message is passed as the format
 *    with each '%' doubled, so printf-style hosts and plain-text hosts both show it as is.
 *
 * The slave is constructed with the keyword arguments of pythonfmu (instance_name, resources,
 * visible) plus `fmi2_exception_status=True`, which tells it that raising is how to report a
 * failure here (auv_cosim/fmu/slave.py uses it; plain pythonfmu slaves ignore it).
 *
 * Only functions of Python's stable ABI are used, looked up with dlsym, so this file needs no
 * Python header and the binary works with any CPython 3 whose packages the slave can import.
 * When this wrapper starts Python (a host without one), it tries in this order, and uses the
 * first that fits (docs/using_auv_fmu.md, "Which Python"):
 *   1. FMU_PYTHON_EXECUTABLE (the one variable a user needs);
 *   2. the interpreter recorded at build (`executable=` of resources/python_environment.txt,
 *      written by tools/native_wrapper.py), if it still exists;
 *   3. python3 on PATH.
 * Each candidate is asked (by running it: PROBE_SOURCE) for its own shared libpython (sysconfig)
 * and which of resources/requirements.txt it lacks; one that lacks a requirement, has no shared
 * libpython or does not run is refused, and when none fits fmi2Instantiate fails with one message
 * naming each candidate, why it was refused, and the pip line that would fix it.
 * FMU_PYTHON_LIBRARY, when set, is the libpython to load for whichever candidate is chosen.
 * A Python host's own interpreter is checked for the requirements too (create_slave).
 * PYTHONPATH and PYTHONHOME work as for any Python.
 */
#include "wrapper.h"

/* ---------------------------------------------------------------- helpers */
/* A file: URI (file:///a/b, file:/a/b, file://localhost/a/b, percent-encoded) to a path. */
static char *path_of_uri(const char *uri)
{
    if (uri == NULL) return NULL;
    const char *p = uri;
    if (strncmp(p, "file://localhost/", 17) == 0) p += 16;
    else if (strncmp(p, "file:///", 8) == 0) p += 7;
    else if (strncmp(p, "file:/", 6) == 0) p += 5;
    else if (strncmp(p, "file:", 5) == 0) return NULL;
    char *path = malloc(strlen(p) + 1);
    if (path == NULL) return NULL;
    char *q = path;
    while (*p) {
        if (p[0] == '%' && p[1] && p[2]) {
            char hex[3] = {p[1], p[2], 0};
            char *end;
            long c = strtol(hex, &end, 16);
            if (*end == '\0') { *q++ = (char)c; p += 3; continue; }
        }
        *q++ = *p++;
    }
    *q = '\0';
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') path[--n] = '\0';
    return path;
}

static void free_strings(Instance *inst)
{
    for (size_t i = 0; i < inst->n_strings; i++) free(inst->strings[i]);
    free(inst->strings);
    inst->strings = NULL;
    inst->n_strings = 0;
}

static void free_categories(Instance *inst)
{
    for (size_t i = 0; i < inst->n_categories; i++) free(inst->categories[i]);
    free(inst->categories);
    inst->categories = NULL;
    inst->n_categories = 0;
}

/* Forget a plan (GIL held): its Python references and its arrays. */
void clear_plan(Plan *plan)
{
    if (plan->epoch) python->Py_DecRef(plan->epoch);
    for (Py_ssize_t i = 0; i < plan->n_sources; i++)
        if (plan->source[i]) python->Py_DecRef(plan->source[i]);
    for (size_t i = 0; plan->slot_key && i < plan->n; i++)
        if (plan->slot_key[i]) python->Py_DecRef(plan->slot_key[i]);
    free(plan->source_kind);
    free(plan->source);
    free(plan->slot_source);
    free(plan->slot_index);
    free(plan->slot_key);
    free(plan->slot_low);
    free(plan->slot_high);
    memset(plan, 0, sizeof *plan);
}

/* Forget every plan: the slave they describe is replaced (GIL held). */
static void clear_plans(Instance *inst)
{
    for (int m = 0; m < METHOD_COUNT; m++)
        for (int k = 0; k < REFERENCE_SETS; k++) clear_plan(&inst->references[m][k].plan);
    inst->no_direct_transfers = 0;
}

/* Release the cached reference tuples and plans (GIL held, Python still running). */
static void release_references(Instance *inst)
{
    for (int m = 0; m < METHOD_COUNT; m++)
        for (int k = 0; k < REFERENCE_SETS; k++)
            if (inst->references[m][k].tuple) python->Py_DecRef(inst->references[m][k].tuple);
    clear_plans(inst);
}

static void free_instance(Instance *inst)
{
    for (int m = 0; m < METHOD_COUNT; m++)
        for (int k = 0; k < REFERENCE_SETS; k++) free(inst->references[m][k].vr);
    free_strings(inst);
    free_categories(inst);
    free(inst->instance_name);
    free(inst->resources);
    free(inst->module_name);
    free(inst);
}

/* Create the Python slave (GIL held); replaces inst->slave on success. */
static fmi2Status create_slave(Instance *inst)
{
    PyObject *args = python->PyTuple_New(4);
    python->PyTuple_SetItem(args, 0, python->PyUnicode_FromString(inst->resources));
    python->PyTuple_SetItem(args, 1, python->PyUnicode_FromString(inst->module_name));
    python->PyTuple_SetItem(args, 2, python->PyUnicode_FromString(inst->instance_name));
    python->PyTuple_SetItem(args, 3, python->PyBool_FromLong(inst->visible));
    PyObject *slave = python->PyObject_CallObject(python->create_slave, args);
    python->Py_DecRef(args);
    if (slave == NULL) return report_exception(inst, "fmi2Instantiate");
    if (inst->slave) {
        drain_log(inst);
        python->Py_DecRef(inst->slave);
    }
    clear_plans(inst);
    inst->slave = slave;
    drain_log(inst);
    return fmi2OK;
}

/* Call slave.<method>(*args) (GIL held; steals `args`, may be NULL). On success returns fmi2OK
 * and the result in *result (owned) if result is not NULL. */
static fmi2Status call(Instance *inst, const char *function, Method method, PyObject *args, PyObject **result)
{
    if (result) *result = NULL;
    PyObject *callable = python->PyObject_GetAttr(inst->slave, python->method_names[method]);
    PyObject *value = NULL;
    if (callable != NULL) {
        value = python->PyObject_CallObject(callable, args);
        python->Py_DecRef(callable);
    }
    if (args) python->Py_DecRef(args);
    if (value == NULL) return report_exception(inst, function);
    if (result) *result = value;
    else python->Py_DecRef(value);
    drain_log(inst);
    return fmi2OK;
}

PyObject *tuple_of(int n, ...)
{
    PyObject *t = python->PyTuple_New(n);
    va_list items;
    va_start(items, n);
    for (int i = 0; i < n; i++) python->PyTuple_SetItem(t, i, va_arg(items, PyObject *));
    va_end(items);
    return t;
}

/* The tuple of the n references for slave.<method> (a new reference; NULL with the Python
 * exception set on failure): the cached one when they are those of a recent call (GIL held).
 * *entry (if not NULL) is set to the cache entry that holds them, or NULL: not cached. */
PyObject *references_of(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n,
                               References **entry)
{
    References *sets = inst->references[method], *cached = &sets[0];
    if (entry) *entry = NULL;
    for (int k = 0; k < REFERENCE_SETS; k++) {
        References *r = &sets[k];
        if (r->tuple != NULL && r->n == n && memcmp(r->vr, vr, n * sizeof *vr) == 0) {
            r->used = ++inst->clock;
            if (entry) *entry = r;
            python->Py_IncRef(r->tuple);
            return r->tuple;
        }
        if (cached->tuple != NULL && (r->tuple == NULL || r->used < cached->used)) cached = r;
    }
    PyObject *tuple = python->PyTuple_New((Py_ssize_t)n);
    if (tuple == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *reference = python->PyLong_FromUnsignedLong(vr[i]);
        if (reference == NULL) { python->Py_DecRef(tuple); return NULL; }
        python->PyTuple_SetItem(tuple, (Py_ssize_t)i, reference);
    }
    fmi2ValueReference *copy = malloc(n * sizeof *copy);
    if (copy != NULL) {   /* else simply not cached */
        memcpy(copy, vr, n * sizeof *vr);
        if (cached->tuple) python->Py_DecRef(cached->tuple);
        clear_plan(&cached->plan);   /* it was for the references replaced here */
        free(cached->vr);
        cached->vr = copy;
        cached->n = n;
        cached->tuple = tuple;
        cached->used = ++inst->clock;
        python->Py_IncRef(tuple);
        if (entry) *entry = cached;
    }
    return tuple;
}

/* A usable instance, or NULL after logging nothing (there is nobody to log to). */
#define INSTANCE(c) Instance *inst = (Instance *)(c); if (inst == NULL || python == NULL) return fmi2Error
#define WITH_GIL(statement)                                                                     \
    do {                                                                                        \
        PyGILState_STATE gil_ = python->PyGILState_Ensure();                                    \
        statement;                                                                              \
        python->PyGILState_Release(gil_);                                                       \
    } while (0)

/* ---------------------------------------------------------------- FMI 2.0: common functions */
EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
EXPORT const char *fmi2GetVersion(void) { return "2.0"; }

EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                     fmi2String fmuResourceLocation,
                                     const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                                     fmi2Boolean loggingOn)
{
    (void)fmuGUID;
    Instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL) return NULL;
    inst->instance_name = strdup(instanceName ? instanceName : "");
    if (functions) memcpy((void *)&inst->callbacks, functions, sizeof inst->callbacks);
    inst->logging_on = loggingOn ? 1 : 0;
    inst->visible = visible ? 1 : 0;
    if (fmuType != fmi2CoSimulation) {
        log_error(inst, "fmi2Instantiate: this FMU supports co-simulation only");
        free_instance(inst);
        return NULL;
    }
    inst->resources = path_of_uri(fmuResourceLocation);
    if (inst->resources == NULL) {
        log_error(inst, "fmi2Instantiate: the resource location %s is not a file: URI",
                  fmuResourceLocation ? fmuResourceLocation : "(null)");
        free_instance(inst);
        return NULL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/slavemodule.txt", inst->resources);
    inst->module_name = read_file_line(path);
    if (inst->module_name == NULL || inst->module_name[0] == '\0') {
        log_error(inst, "fmi2Instantiate: cannot read the slave module's name from %s", path);
        free_instance(inst);
        return NULL;
    }
    char error[4096], note[2048] = "";
    if (!ensure_python(inst->resources, error, sizeof error, note, sizeof note)) {
        log_error(inst, "fmi2Instantiate: %s", error);
        free_instance(inst);
        return NULL;
    }
    if (note[0]) emitf(inst, fmi2Warning, "logStatusWarning", "fmi2Instantiate: %s", note);
    fmi2Status status;
    WITH_GIL(status = create_slave(inst));
    if (status > fmi2Warning) {
        free_instance(inst);
        return NULL;
    }
    return inst;
}

EXPORT void fmi2FreeInstance(fmi2Component c)
{
    Instance *inst = (Instance *)c;
    if (inst == NULL) return;
    /* After the host's own Py_Finalize the objects are gone with the interpreter. */
    if (python != NULL && python->Py_IsInitialized()) {
        PyGILState_STATE gil = python->PyGILState_Ensure();
        if (inst->slave != NULL) python->Py_DecRef(inst->slave);
        release_references(inst);
        python->PyGILState_Release(gil);
    }
    free_instance(inst);
}

EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                                      const fmi2String categories[])
{
    Instance *inst = (Instance *)c;
    if (inst == NULL) return fmi2Error;
    inst->logging_on = loggingOn ? 1 : 0;
    free_categories(inst);
    if (nCategories > 0 && categories != NULL) {
        inst->categories = calloc(nCategories, sizeof *inst->categories);
        if (inst->categories == NULL) return fmi2Error;
        for (size_t i = 0; i < nCategories; i++)
            inst->categories[i] = strdup(categories[i] ? categories[i] : "");
        inst->n_categories = nCategories;
    }
    return fmi2OK;
}

EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                                      fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    INSTANCE(c);
    fmi2Status status;
    /* pythonfmu passes the start time only; so does this wrapper (the slave API). */
    WITH_GIL(status = call(inst, "fmi2SetupExperiment", SETUP_EXPERIMENT,
                           tuple_of(1, python->PyFloat_FromDouble(startTime)), NULL));
    return status;
}

EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    INSTANCE(c);
    fmi2Status status;
    WITH_GIL(status = call(inst, "fmi2EnterInitializationMode", ENTER_INITIALIZATION_MODE, NULL, NULL));
    return status;
}

EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    INSTANCE(c);
    fmi2Status status;
    WITH_GIL(status = call(inst, "fmi2ExitInitializationMode", EXIT_INITIALIZATION_MODE, NULL, NULL));
    return status;
}

EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    INSTANCE(c);
    fmi2Status status;
    WITH_GIL(status = call(inst, "fmi2Terminate", TERMINATE, NULL, NULL));
    return status;
}

EXPORT fmi2Status fmi2Reset(fmi2Component c)
{
    INSTANCE(c);
    fmi2Status status;
    /* As pythonfmu: a new slave object, built as in fmi2Instantiate. */
    WITH_GIL(status = create_slave(inst));
    return status == fmi2OK ? fmi2OK : fmi2Error;
}

/* ---------------------------------------------------------------- getters and setters */
/* Call slave.<method>(vrs) and check that it returned n values (GIL held). */
static fmi2Status get_values(Instance *inst, const char *function, Method method,
                             const fmi2ValueReference vr[], size_t n, PyObject **values)
{
    *values = NULL;
    PyObject *references = references_of(inst, method, vr, n, NULL);
    if (references == NULL) return report_exception(inst, function);
    fmi2Status status = call(inst, function, method, tuple_of(1, references), values);
    if (status > fmi2Warning) return status;
    Py_ssize_t got = python->PySequence_Size(*values);
    if (got != (Py_ssize_t)n) {
        python->PyErr_Clear();
        log_error(inst, "%s: the slave returned %zd values for %zu references", function, got, n);
        python->Py_DecRef(*values);
        *values = NULL;
        return fmi2Error;
    }
    return status;
}

#define CONVERSION_CHECK(function)                                                              \
    if (python->PyErr_Occurred()) { status = report_exception(inst, function); break; }

EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    if (direct_get(inst, GET_REAL, vr, nvr, value)) {
        python->PyGILState_Release(gil);
        return fmi2OK;
    }
    PyObject *values;
    status = get_values(inst, "fmi2GetReal", GET_REAL, vr, nvr, &values);
    if (status <= fmi2Warning) {
        for (size_t i = 0; i < nvr; i++) {
            PyObject *item = python->PySequence_GetItem(values, (Py_ssize_t)i);
            value[i] = item ? python->PyFloat_AsDouble(item) : 0.0;
            if (item) python->Py_DecRef(item);
            CONVERSION_CHECK("fmi2GetReal");
        }
        python->Py_DecRef(values);
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    if (direct_get(inst, GET_INTEGER, vr, nvr, value)) {
        python->PyGILState_Release(gil);
        return fmi2OK;
    }
    PyObject *values;
    status = get_values(inst, "fmi2GetInteger", GET_INTEGER, vr, nvr, &values);
    if (status <= fmi2Warning) {
        for (size_t i = 0; i < nvr; i++) {
            PyObject *item = python->PySequence_GetItem(values, (Py_ssize_t)i);
            value[i] = item ? (fmi2Integer)python->PyLong_AsLong(item) : 0;
            if (item) python->Py_DecRef(item);
            CONVERSION_CHECK("fmi2GetInteger");
        }
        python->Py_DecRef(values);
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    if (direct_get(inst, GET_BOOLEAN, vr, nvr, value)) {
        python->PyGILState_Release(gil);
        return fmi2OK;
    }
    PyObject *values;
    status = get_values(inst, "fmi2GetBoolean", GET_BOOLEAN, vr, nvr, &values);
    if (status <= fmi2Warning) {
        for (size_t i = 0; i < nvr; i++) {
            PyObject *item = python->PySequence_GetItem(values, (Py_ssize_t)i);
            int truth = item ? python->PyObject_IsTrue(item) : -1;
            if (item) python->Py_DecRef(item);
            value[i] = truth > 0 ? fmi2True : fmi2False;
            CONVERSION_CHECK("fmi2GetBoolean");
        }
        python->Py_DecRef(values);
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *values;
    /* The strings stay valid until the next fmi2GetString or fmi2FreeInstance. */
    free_strings(inst);
    status = get_values(inst, "fmi2GetString", GET_STRING, vr, nvr, &values);
    if (status <= fmi2Warning) {
        inst->strings = calloc(nvr, sizeof *inst->strings);
        inst->n_strings = inst->strings ? nvr : 0;
        for (size_t i = 0; i < nvr && inst->strings; i++) {
            PyObject *item = python->PySequence_GetItem(values, (Py_ssize_t)i);
            PyObject *bytes = item ? python->PyUnicode_AsUTF8String(item) : NULL;
            if (item) python->Py_DecRef(item);
            CONVERSION_CHECK("fmi2GetString");
            inst->strings[i] = strdup(python->PyBytes_AsString(bytes));
            python->Py_DecRef(bytes);
            value[i] = inst->strings[i];
        }
        python->Py_DecRef(values);
    }
    python->PyGILState_Release(gil);
    return status;
}

static fmi2Status set_values(Instance *inst, const char *function, Method method,
                             const fmi2ValueReference vr[], size_t n, PyObject *values)
{
    PyObject *references = references_of(inst, method, vr, n, NULL);
    if (references == NULL) {
        python->Py_DecRef(values);
        return report_exception(inst, function);
    }
    PyObject *result;
    fmi2Status status = call(inst, function, method, tuple_of(2, references, values), &result);
    if (status <= fmi2Warning) {
        /* A setter that set every value may say fmi2Warning (a value beyond its declared range,
         * auv_cosim/fmu/transfers.py) by returning that status; None is fmi2OK. */
        if (result != python->none_object) {
            long said = python->PyLong_AsLong(result);
            if (said == -1 && python->PyErr_Occurred()) python->PyErr_Clear();
            else if (said == fmi2Warning) status = fmi2Warning;
        }
        python->Py_DecRef(result);
    }
    return status;
}

EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    if (direct_set(inst, SET_REAL, vr, nvr, value)) {
        python->PyGILState_Release(gil);
        return fmi2OK;
    }
    PyObject *values = python->PyList_New((Py_ssize_t)nvr);
    for (size_t i = 0; i < nvr; i++)
        python->PyList_SetItem(values, (Py_ssize_t)i, python->PyFloat_FromDouble(value[i]));
    status = set_values(inst, "fmi2SetReal", SET_REAL, vr, nvr, values);
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    if (direct_set(inst, SET_INTEGER, vr, nvr, value)) {
        python->PyGILState_Release(gil);
        return fmi2OK;
    }
    PyObject *values = python->PyList_New((Py_ssize_t)nvr);
    for (size_t i = 0; i < nvr; i++)
        python->PyList_SetItem(values, (Py_ssize_t)i, python->PyLong_FromLong(value[i]));
    status = set_values(inst, "fmi2SetInteger", SET_INTEGER, vr, nvr, values);
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    if (direct_set(inst, SET_BOOLEAN, vr, nvr, value)) {
        python->PyGILState_Release(gil);
        return fmi2OK;
    }
    PyObject *values = python->PyList_New((Py_ssize_t)nvr);
    for (size_t i = 0; i < nvr; i++)
        python->PyList_SetItem(values, (Py_ssize_t)i, python->PyBool_FromLong(value[i] != fmi2False));
    status = set_values(inst, "fmi2SetBoolean", SET_BOOLEAN, vr, nvr, values);
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    INSTANCE(c);
    if (nvr == 0) return fmi2OK;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *values = python->PyList_New((Py_ssize_t)nvr);
    int bad = 0;
    for (size_t i = 0; i < nvr; i++) {
        PyObject *s = python->PyUnicode_FromString(value[i] ? value[i] : "");
        if (s == NULL) { bad = 1; break; }
        python->PyList_SetItem(values, (Py_ssize_t)i, s);
    }
    if (bad) {
        status = report_exception(inst, "fmi2SetString");
        python->Py_DecRef(values);
    } else {
        status = set_values(inst, "fmi2SetString", SET_STRING, vr, nvr, values);
    }
    python->PyGILState_Release(gil);
    return status;
}

/* ---------------------------------------------------------------- FMU state */
/* An fmi2FMUstate is the Python object the slave's _get_fmu_state returned (owned). */
EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    INSTANCE(c);
    if (state == NULL) return fmi2Error;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *value;
    status = call(inst, "fmi2GetFMUstate", GET_FMU_STATE, NULL, &value);
    if (status <= fmi2Warning) {
        if (*state != NULL) python->Py_DecRef((PyObject *)*state);
        *state = value;
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state)
{
    INSTANCE(c);
    if (state == NULL) { log_error(inst, "fmi2SetFMUstate: no state given"); return fmi2Error; }
    fmi2Status status;
    PyObject *object = (PyObject *)state;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    python->Py_IncRef(object);
    status = call(inst, "fmi2SetFMUstate", SET_FMU_STATE, tuple_of(1, object), NULL);
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    INSTANCE(c);
    if (state == NULL || *state == NULL) return fmi2OK;
    WITH_GIL(python->Py_DecRef((PyObject *)*state));
    *state = NULL;
    return fmi2OK;
}

/* The bytes of a state: type(slave)._fmu_state_to_bytes(state) (GIL held). */
static fmi2Status state_bytes(Instance *inst, const char *function, fmi2FMUstate state, PyObject **bytes)
{
    PyObject *object = (PyObject *)state;
    python->Py_IncRef(object);
    return call(inst, function, FMU_STATE_TO_BYTES, tuple_of(1, object), bytes);
}

EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state, size_t *size)
{
    INSTANCE(c);
    if (state == NULL || size == NULL) return fmi2Error;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *bytes;
    status = state_bytes(inst, "fmi2SerializedFMUstateSize", state, &bytes);
    if (status <= fmi2Warning) {
        *size = (size_t)python->PyBytes_Size(bytes);
        python->Py_DecRef(bytes);
        if (python->PyErr_Occurred()) status = report_exception(inst, "fmi2SerializedFMUstateSize");
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state, fmi2Byte serializedState[], size_t size)
{
    INSTANCE(c);
    if (state == NULL || serializedState == NULL) return fmi2Error;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *bytes;
    status = state_bytes(inst, "fmi2SerializeFMUstate", state, &bytes);
    if (status <= fmi2Warning) {
        Py_ssize_t n = python->PyBytes_Size(bytes);
        if (n < 0 || (size_t)n > size) {
            python->PyErr_Clear();
            log_error(inst, "fmi2SerializeFMUstate: the state takes %zd bytes, the buffer %zu", n, size);
            status = fmi2Error;
        } else {
            memcpy(serializedState, python->PyBytes_AsString(bytes), (size_t)n);
        }
        python->Py_DecRef(bytes);
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                          fmi2FMUstate *state)
{
    INSTANCE(c);
    if (serializedState == NULL || state == NULL) return fmi2Error;
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *bytes = python->PyBytes_FromStringAndSize(serializedState, (Py_ssize_t)size);
    PyObject *value;
    status = call(inst, "fmi2DeSerializeFMUstate", FMU_STATE_FROM_BYTES, tuple_of(1, bytes), &value);
    if (status <= fmi2Warning) {
        if (*state != NULL) python->Py_DecRef((PyObject *)*state);
        *state = value;
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                               size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                               size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown; (void)dvUnknown;
    INSTANCE(c);
    log_error(inst, "fmi2GetDirectionalDerivative: not provided by this FMU");
    return fmi2Error;
}

/* ---------------------------------------------------------------- FMI 2.0: co-simulation */
EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                              const fmi2Integer order[], const fmi2Real value[])
{
    (void)vr; (void)nvr; (void)order; (void)value;
    INSTANCE(c);
    log_error(inst, "fmi2SetRealInputDerivatives: not provided by this FMU (canInterpolateInputs is false)");
    return fmi2Error;
}

EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                               const fmi2Integer order[], fmi2Real value[])
{
    (void)vr; (void)nvr; (void)order; (void)value;
    INSTANCE(c);
    log_error(inst, "fmi2GetRealOutputDerivatives: not provided by this FMU (maxOutputDerivativeOrder is 0)");
    return fmi2Error;
}

EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                             fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    INSTANCE(c);
    fmi2Status status;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *result;
    status = call(inst, "fmi2DoStep", DO_STEP,
                  tuple_of(2, python->PyFloat_FromDouble(currentCommunicationPoint),
                           python->PyFloat_FromDouble(communicationStepSize)), &result);
    if (status <= fmi2Warning) {
        /* pythonfmu's contract: do_step returns True on success, False for fmi2Discard. */
        int truth = python->PyObject_IsTrue(result);
        python->Py_DecRef(result);
        if (truth < 0) status = report_exception(inst, "fmi2DoStep");
        else if (truth == 0) status = fmi2Discard;
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2CancelStep(fmi2Component c)
{
    INSTANCE(c);
    log_error(inst, "fmi2CancelStep: fmi2DoStep is synchronous in this FMU, there is nothing to cancel");
    return fmi2Error;
}

/* Asynchronous-step status: never pending here, so the information is not available
 * (fmi2Discard), in the states where FMI 2.0 allows the call; fmi2Error elsewhere (the slave's
 * status_query says, when it has one: auv_cosim/fmu/slave.py). */
static fmi2Status status_query(Instance *inst)
{
    fmi2Status status = fmi2Discard;
    PyGILState_STATE gil = python->PyGILState_Ensure();
    PyObject *callable = python->PyObject_GetAttr(inst->slave, python->method_names[STATUS_QUERY]);
    if (callable == NULL) python->PyErr_Clear();   /* a plain pythonfmu slave: no state table */
    else {
        python->Py_DecRef(callable);
        if (call(inst, "fmi2GetStatus", STATUS_QUERY, NULL, NULL) > fmi2Warning) status = fmi2Error;
    }
    python->PyGILState_Release(gil);
    return status;
}

EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    (void)s; (void)value; INSTANCE(c); return status_query(inst);
}
EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    (void)s; (void)value; INSTANCE(c); return status_query(inst);
}
EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)s; (void)value; INSTANCE(c); return status_query(inst);
}
EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    (void)s; (void)value; INSTANCE(c); return status_query(inst);
}
EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    (void)s; (void)value; INSTANCE(c); return status_query(inst);
}
