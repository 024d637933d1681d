/*
 * The project's FMI 2.0 co-simulation wrapper for pythonfmu slaves.
 *
 * tools/native_wrapper.py compiles this file into binaries/linux64/<model>.so of each FMU, in
 * place of pythonfmu 0.7.0's stock binary. It runs the same Python slaves (a subclass of
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
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

extern char **environ;

/* ---------------------------------------------------------------- FMI 2.0 types (the standard's ABI) */
typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;
#define fmi2True 1
#define fmi2False 0

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum { fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated } fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String, ...);
typedef void *(*fmi2CallbackAllocateMemory)(size_t, size_t);
typedef void (*fmi2CallbackFreeMemory)(void *);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment, fmi2Status);

typedef struct {
    const fmi2CallbackLogger logger;
    const fmi2CallbackAllocateMemory allocateMemory;
    const fmi2CallbackFreeMemory freeMemory;
    const fmi2StepFinished stepFinished;
    const fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

#define EXPORT __attribute__((visibility("default")))

/* ---------------------------------------------------------------- the Python C API, by dlsym */
typedef struct _object PyObject;   /* only pointers, and the type of an object (below) */
typedef ssize_t Py_ssize_t;
typedef int PyGILState_STATE;

/* The head every Python object starts with (PyObject's ob_refcnt and ob_type, members of the
 * stable ABI): the direct transfers compare an object's type with float, int, bool, list and
 * dict without a call. */
typedef struct {
    Py_ssize_t ob_refcnt;
    void *ob_type;
} ObjectHead;
#define TYPE_OF(object) (((const ObjectHead *)(object))->ob_type)

/* The buffer protocol's view (unchanged since Python 3.3; in the stable ABI since 3.11). */
typedef struct {
    void *buf;
    PyObject *obj;
    Py_ssize_t len;
    Py_ssize_t itemsize;
    int readonly;
    int ndim;
    char *format;
    Py_ssize_t *shape;
    Py_ssize_t *strides;
    Py_ssize_t *suboffsets;
    void *internal;
} Py_buffer;
#define PyBUF_WRITABLE 0x0001
#define PyBUF_RECORDS_RO 0x001c   /* PyBUF_STRIDES | PyBUF_FORMAT */

/* numpy's concrete integer scalar types (numpy_scalar_types() below lists fewer). */
#define MAX_NUMPY_INTEGER_TYPES 16

/* Every function the wrapper calls, with its stable-ABI signature. */
#define PYTHON_FUNCTIONS(X)                                                                     \
    X(int, Py_IsInitialized, (void))                                                            \
    X(void, Py_InitializeEx, (int))                                                             \
    X(void *, PyEval_SaveThread, (void))                                                        \
    X(PyGILState_STATE, PyGILState_Ensure, (void))                                              \
    X(void, PyGILState_Release, (PyGILState_STATE))                                             \
    X(void, Py_IncRef, (PyObject *))                                                            \
    X(void, Py_DecRef, (PyObject *))                                                            \
    X(PyObject *, PyImport_ImportModule, (const char *))                                        \
    X(PyObject *, PyObject_GetAttrString, (PyObject *, const char *))                           \
    X(PyObject *, PyObject_GetAttr, (PyObject *, PyObject *))                                   \
    X(PyObject *, PyUnicode_InternFromString, (const char *))                                   \
    X(PyObject *, PyObject_CallObject, (PyObject *, PyObject *))                                \
    X(PyObject *, PyObject_Str, (PyObject *))                                                   \
    X(int, PyObject_IsTrue, (PyObject *))                                                       \
    X(PyObject *, PyTuple_New, (Py_ssize_t))                                                    \
    X(int, PyTuple_SetItem, (PyObject *, Py_ssize_t, PyObject *))                               \
    X(PyObject *, PyList_New, (Py_ssize_t))                                                     \
    X(int, PyList_SetItem, (PyObject *, Py_ssize_t, PyObject *))                                \
    X(Py_ssize_t, PySequence_Size, (PyObject *))                                                \
    X(PyObject *, PySequence_GetItem, (PyObject *, Py_ssize_t))                                 \
    X(PyObject *, PyLong_FromLong, (long))                                                      \
    X(PyObject *, PyLong_FromUnsignedLong, (unsigned long))                                     \
    X(long, PyLong_AsLong, (PyObject *))                                                        \
    X(PyObject *, PyFloat_FromDouble, (double))                                                 \
    X(double, PyFloat_AsDouble, (PyObject *))                                                   \
    X(PyObject *, PyBool_FromLong, (long))                                                      \
    X(PyObject *, PyUnicode_FromString, (const char *))                                         \
    X(PyObject *, PyUnicode_AsUTF8String, (PyObject *))                                         \
    X(PyObject *, PyBytes_FromStringAndSize, (const char *, Py_ssize_t))                        \
    X(char *, PyBytes_AsString, (PyObject *))                                                   \
    X(Py_ssize_t, PyBytes_Size, (PyObject *))                                                   \
    X(PyObject *, PyErr_Occurred, (void))                                                       \
    X(void, PyErr_Fetch, (PyObject **, PyObject **, PyObject **))                               \
    X(void, PyErr_NormalizeException, (PyObject **, PyObject **, PyObject **))                  \
    X(void, PyErr_Clear, (void))                                                                \
    X(PyObject *, Py_CompileString, (const char *, const char *, int))                          \
    X(PyObject *, PyImport_ExecCodeModule, (const char *, PyObject *))                          \
    X(PyObject *, PyDict_New, (void))                                                           \
    X(int, PyDict_SetItemString, (PyObject *, const char *, PyObject *))                       \
    X(PyObject *, PyDict_GetItem, (PyObject *, PyObject *))                                     \
    X(int, PyDict_SetItem, (PyObject *, PyObject *, PyObject *))                                \
    X(Py_ssize_t, PyList_Size, (PyObject *))                                                    \
    X(PyObject *, PyList_GetItem, (PyObject *, Py_ssize_t))                                     \
    X(int, PyObject_SetAttr, (PyObject *, PyObject *, PyObject *))                              \
    X(Py_ssize_t, PyLong_AsSsize_t, (PyObject *))

/* The slave's methods that the wrapper calls (pythonfmu's slave API). */
typedef enum {
    SETUP_EXPERIMENT, ENTER_INITIALIZATION_MODE, EXIT_INITIALIZATION_MODE, TERMINATE, DO_STEP,
    GET_REAL, GET_INTEGER, GET_BOOLEAN, GET_STRING, SET_REAL, SET_INTEGER, SET_BOOLEAN, SET_STRING,
    GET_FMU_STATE, SET_FMU_STATE, FMU_STATE_TO_BYTES, FMU_STATE_FROM_BYTES, STATUS_QUERY, METHOD_COUNT
} Method;

static const char *const METHOD_NAMES[METHOD_COUNT] = {
    [SETUP_EXPERIMENT] = "setup_experiment",
    [ENTER_INITIALIZATION_MODE] = "enter_initialization_mode",
    [EXIT_INITIALIZATION_MODE] = "exit_initialization_mode",
    [TERMINATE] = "terminate",
    [DO_STEP] = "do_step",
    [GET_REAL] = "get_real",
    [GET_INTEGER] = "get_integer",
    [GET_BOOLEAN] = "get_boolean",
    [GET_STRING] = "get_string",
    [SET_REAL] = "set_real",
    [SET_INTEGER] = "set_integer",
    [SET_BOOLEAN] = "set_boolean",
    [SET_STRING] = "set_string",
    [GET_FMU_STATE] = "_get_fmu_state",
    [SET_FMU_STATE] = "_set_fmu_state",
    [FMU_STATE_TO_BYTES] = "_fmu_state_to_bytes",
    [FMU_STATE_FROM_BYTES] = "_fmu_state_from_bytes",
    [STATUS_QUERY] = "status_query",
};

typedef struct {
#define DECLARE(ret, name, args) ret(*name) args;
    PYTHON_FUNCTIONS(DECLARE)
#undef DECLARE
    /* optional: the interpreter to act as (removed from the stable ABI in Python 3.13+) */
    void (*Py_SetProgramName)(const wchar_t *);
    /* optional: without them a direct transfer reads no numpy array (see "direct transfers") */
    int (*PyObject_GetBuffer)(PyObject *, Py_buffer *, int);
    void (*PyBuffer_Release)(Py_buffer *);
    /* Python helpers compiled from HELPER_SOURCE below */
    PyObject *create_slave;
    PyObject *drain_log;
    PyObject *numpy_scalar_types;
    /* the attribute names looked up on every call, made (and interned) once */
    PyObject *log_queue_name;
    PyObject *method_names[METHOD_COUNT];
    /* for the direct transfers: the names they use, True, and the exact types they accept */
    PyObject *epoch_name, *plan_name, *values_changed_name;
    PyObject *true_object, *none_object;
    void *float_type, *int_type, *bool_type, *list_type, *dict_type;
    /* numpy's scalar types once numpy is imported (by anyone: the wrapper never imports it) */
    void *float64_type;   /* numpy.float64 (a float whose float() is its value) */
    void *numpy_bool_type;   /* numpy.bool_ (bool() and int() read it; it has no __index__) */
    void *numpy_integer_types[MAX_NUMPY_INTEGER_TYPES];   /* int8 ... uint64, longlong ... (have __index__) */
    Py_ssize_t n_numpy_integer_types;
} PythonApi;

/* The one process-wide interpreter handle of this library: allocated once, never freed, so
 * no exit handler or library destructor can release it twice (see the header comment). */
static PythonApi *python = NULL;
static pthread_mutex_t python_lock = PTHREAD_MUTEX_INITIALIZER;

#define Py_file_input 257

/* Python side of the wrapper: finding the slave class and reading the log queue are a few
 * lines of Python and hundreds of C. Compiled once per library and process (as the module
 * _fmu_native_wrapper_helpers; each library keeps its own functions). */
static const char HELPER_SOURCE[] =
    "import importlib, os, sys\n"
    "CHECKED = {}\n"
    "def requirements_check(resources):\n"
    "    if resources not in CHECKED:\n"
    "        CHECKED[resources] = _requirements_check(resources)\n"
    "    return CHECKED[resources]\n"
    "def _requirements_check(resources):\n"
    "    from importlib import metadata\n"
    "    path = os.path.join(resources, 'requirements.txt')\n"
    "    try:\n"
    "        lines = open(path, encoding='utf-8').read().splitlines()\n"
    "    except OSError:\n"
    "        return []\n"
    "    missing, other = [], []\n"
    "    for line in lines:\n"
    "        line = line.split('#')[0].strip()\n"
    "        if not line:\n"
    "            continue\n"
    "        dist, _, pinned = line.partition('==')\n"
    "        try:\n"
    "            have = metadata.version(dist.strip())\n"
    "        except metadata.PackageNotFoundError:\n"
    "            missing.append(line)\n"
    "            continue\n"
    "        if pinned and have != pinned.strip():\n"
    "            other.append(f'{dist.strip()} {have} (built with {pinned.strip()})')\n"
    "    if missing:\n"
    "        raise RuntimeError(f'the Python of this process ({sys.executable}) lacks what the FMU '\n"
    "                           f'needs: {\", \".join(missing)}. Install it with: {sys.executable} -m pip '\n"
    "                           f'install -r {path}')\n"
    "    return other\n"
    "def create_slave(resources, module_name, instance_name, visible):\n"
    "    other = requirements_check(resources)\n"
    "    if resources not in sys.path:\n"
    "        sys.path.insert(0, resources)\n"
    "    module = importlib.import_module(module_name)\n"
    "    from pythonfmu import Fmi2Slave\n"
    "    found = [c for c in vars(module).values() if isinstance(c, type)\n"
    "             and issubclass(c, Fmi2Slave) and c.__module__ == module.__name__]\n"
    "    if len(found) != 1:\n"
    "        raise RuntimeError(f'{module.__file__} defines {len(found)} subclasses of '\n"
    "                           f'pythonfmu.Fmi2Slave, expected one')\n"
    "    slave = found[0](instance_name=instance_name, resources=resources, visible=bool(visible),\n"
    "                     fmi2_exception_status=True)\n"
    "    if other and hasattr(slave, 'log'):\n"
    "        from pythonfmu.enums import Fmi2Status\n"
    "        slave.log('packages at other versions than the FMU was built and tested with: '\n"
    "                  + ', '.join(other), Fmi2Status.warning)\n"
    "    return slave\n"
    "EXACT_TYPES = (float, int, bool, list, dict)\n"
    "NONE = None\n"
    "def numpy_scalar_types():\n"
    "    numpy = sys.modules.get('numpy')\n"
    "    if numpy is None:\n"
    "        return None\n"
    "    integers = {numpy.dtype(code).type for code in 'bhilqpBHILQP'}\n"
    "    return (numpy.float64, numpy.bool_) + tuple(sorted(integers, key=str))\n"
    "def drain_log(slave):\n"
    "    queue = getattr(slave, 'log_queue', None)\n"
    "    if not queue:\n"
    "        return ()\n"
    "    out = tuple((int(m.status), str(m.category or ''), str(m.msg)) for m in queue)\n"
    "    del queue[:]\n"
    "    return out\n";

/* ---------------------------------------------------------------- one instance */
/* Where the values of one getter's or setter's references live, as the slave described them
 * (FmuSlave._native_plan; see "direct transfers" below): a few sources, and per value the
 * source and the place in it. */
typedef struct {
    PyObject *epoch;          /* owned: the slave's _native_epoch the plan was asked under; NULL: not asked */
    int usable;               /* the slave gave a plan for that epoch (else: the usual call) */
    Py_ssize_t n_sources;
    char *source_kind;        /* 'a': the attribute named by source (a float64 buffer or a list); 'm': the dict source */
    PyObject **source;        /* owned */
    size_t n;
    Py_ssize_t *slot_source;  /* per value: its source */
    Py_ssize_t *slot_index;   /* per value from an 'a' source: the index */
    PyObject **slot_key;      /* per value from an 'm' source: the key (owned), else NULL */
    double *slot_low;         /* a Real set's declared range per value (-inf, inf: none); NULL: no */
    double *slot_high;        /*   value has one */
} Plan;

/* The value references of one of a getter's or setter's recent calls and the Python tuple of
 * them that was passed to the slave: a host asks for the same references at every step, and
 * then the same (immutable) tuple is passed again instead of a new one. A host may make a few
 * different calls of one kind per step (a vehicle's commands, then the other vehicles' wakes):
 * REFERENCE_SETS of them are kept per kind, the least recently used replaced, so that calls
 * that alternate keep their tuples and their plans. */
#define REFERENCE_SETS 4

typedef struct {
    fmi2ValueReference *vr;
    size_t n;
    PyObject *tuple;      /* owned; NULL: nothing cached */
    Plan plan;            /* for these references */
    unsigned long used;   /* when it was last used (the instance's clock) */
} References;

typedef struct {
    char *instance_name;
    char *resources;      /* the resources folder, a plain path */
    char *module_name;    /* from resources/slavemodule.txt */
    int visible;
    fmi2CallbackFunctions callbacks;
    int logging_on;
    char **categories;    /* categories enabled by fmi2SetDebugLogging; NULL = all */
    size_t n_categories;
    PyObject *slave;      /* the Python slave instance (owned reference) */
    char **strings;       /* what the last fmi2GetString returned, freed on the next call */
    size_t n_strings;
    References references[METHOD_COUNT][REFERENCE_SETS];   /* used for GET_* and SET_* only */
    unsigned long clock;      /* counts the uses of references[][] */
    int no_direct_transfers;  /* the slave has no _native_epoch / _native_plan */
} Instance;

/* ---------------------------------------------------------------- logging */
static int category_enabled(const Instance *inst, const char *category)
{
    if (!inst->logging_on) return 0;
    if (inst->categories == NULL) return 1;
    for (size_t i = 0; i < inst->n_categories; i++)
        if (category && strcmp(inst->categories[i], category) == 0) return 1;
    return 0;
}

/* Pass `message` to the host's logger as a format with every '%' doubled. */
static void emit(const Instance *inst, fmi2Status status, const char *category, const char *message)
{
    if (inst->callbacks.logger == NULL) return;
    if (status < fmi2Warning && !category_enabled(inst, category)) return;
    size_t n = 0;
    for (const char *p = message; *p; p++) n += (*p == '%') ? 2 : 1;
    char *escaped = malloc(n + 1);
    if (escaped == NULL) return;
    char *q = escaped;
    for (const char *p = message; *p; p++) {
        *q++ = *p;
        if (*p == '%') *q++ = '%';
    }
    *q = '\0';
    inst->callbacks.logger(inst->callbacks.componentEnvironment, inst->instance_name, status,
                           category ? category : "logAll", escaped);
    free(escaped);
}

static void emitf(const Instance *inst, fmi2Status status, const char *category, const char *format, ...)
{
    char buffer[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    emit(inst, status, category, buffer);
}

static void log_error(const Instance *inst, const char *format, ...)
{
    char buffer[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    emit(inst, fmi2Error, "logStatusError", buffer);
}

/* The UTF-8 text of a Python object (str() of it) into buffer; "" on any failure. */
static void text_of(PyObject *object, char *buffer, size_t size)
{
    buffer[0] = '\0';
    if (object == NULL) return;
    PyObject *text = python->PyObject_Str(object);
    if (text == NULL) { python->PyErr_Clear(); return; }
    PyObject *bytes = python->PyUnicode_AsUTF8String(text);
    python->Py_DecRef(text);
    if (bytes == NULL) { python->PyErr_Clear(); return; }
    const char *s = python->PyBytes_AsString(bytes);
    if (s) snprintf(buffer, size, "%s", s);
    python->Py_DecRef(bytes);
}

/* Forward what the slave queued since the last call (GIL held). The queue is almost always
 * empty: that is found here, without calling the Python helper (which reads a non-empty queue,
 * or anything that is not a plain list, exactly as before: `if not queue: nothing`). */
static void drain_log(const Instance *inst)
{
    if (inst->slave == NULL) return;
    PyObject *queue = python->PyObject_GetAttr(inst->slave, python->log_queue_name);
    if (queue == NULL) { python->PyErr_Clear(); return; }   /* no queue: nothing to forward */
    int pending = python->PyObject_IsTrue(queue);
    python->Py_DecRef(queue);
    if (pending == 0) return;
    python->PyErr_Clear();   /* pending < 0: the helper meets the same failure and says nothing */
    PyObject *args = python->PyTuple_New(1);
    python->Py_IncRef(inst->slave);
    python->PyTuple_SetItem(args, 0, inst->slave);
    PyObject *messages = python->PyObject_CallObject(python->drain_log, args);
    python->Py_DecRef(args);
    if (messages == NULL) { python->PyErr_Clear(); return; }
    Py_ssize_t n = python->PySequence_Size(messages);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = python->PySequence_GetItem(messages, i);
        PyObject *status = python->PySequence_GetItem(m, 0);
        PyObject *category = python->PySequence_GetItem(m, 1);
        PyObject *text = python->PySequence_GetItem(m, 2);
        char category_text[128], message[8192];
        text_of(category, category_text, sizeof category_text);
        text_of(text, message, sizeof message);
        long s = python->PyLong_AsLong(status);
        if (s < fmi2OK || s > fmi2Fatal) s = fmi2OK;
        emit(inst, (fmi2Status)s, category_text[0] ? category_text : NULL, message);
        python->Py_DecRef(status);
        python->Py_DecRef(category);
        python->Py_DecRef(text);
        python->Py_DecRef(m);
    }
    python->Py_DecRef(messages);
    python->PyErr_Clear();
}

/* The status of the Python exception that is set (GIL held): its integer `fmi2_status`
 * attribute if it has one in fmi2Warning..fmi2Fatal (then its text is the whole message),
 * else fmi2Error with "Type: text". Logs the message and clears the exception. */
static fmi2Status report_exception(const Instance *inst, const char *function)
{
    PyObject *type = NULL, *value = NULL, *traceback = NULL;
    python->PyErr_Fetch(&type, &value, &traceback);
    python->PyErr_NormalizeException(&type, &value, &traceback);
    fmi2Status status = fmi2Error;
    int chosen = 0;
    if (value != NULL) {
        PyObject *attribute = python->PyObject_GetAttrString(value, "fmi2_status");
        if (attribute != NULL) {
            long s = python->PyLong_AsLong(attribute);
            if (s >= fmi2Warning && s <= fmi2Fatal) { status = (fmi2Status)s; chosen = 1; }
            python->Py_DecRef(attribute);
        }
        python->PyErr_Clear();
    }
    char type_name[128] = "", text[8192] = "";
    if (type != NULL) {
        PyObject *name = python->PyObject_GetAttrString(type, "__name__");
        text_of(name, type_name, sizeof type_name);
        if (name) python->Py_DecRef(name);
        python->PyErr_Clear();
    }
    text_of(value, text, sizeof text);
    drain_log(inst);  /* what the slave logged before raising comes first */
    static const char *categories[] = {"logAll", "logStatusWarning", "logStatusDiscard",
                                       "logStatusError", "logStatusFatal"};
    if (chosen)
        emitf(inst, status, categories[status], "%s", text[0] ? text : function);
    else
        emitf(inst, status, categories[status], "%s: %s%s%s", function, type_name,
              text[0] ? ": " : "", text);
    if (type) python->Py_DecRef(type);
    if (value) python->Py_DecRef(value);
    if (traceback) python->Py_DecRef(traceback);
    python->PyErr_Clear();
    return status;
}

/* ---------------------------------------------------------------- starting or finding Python */
static char *read_file_line(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    char line[4096];
    char *result = NULL;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        result = strdup(line);
    }
    fclose(f);
    return result;
}

/* The value of `key=` in resources/python_environment.txt, or NULL. */
static char *environment_setting(const char *resources, const char *key)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/python_environment.txt", resources);
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    char line[4096];
    char *result = NULL;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, key, n) == 0 && line[n] == '=' && line[n + 1] != '\0') {
            result = strdup(line + n + 1);
            break;
        }
    }
    fclose(f);
    return result;
}

/* ---------------------------------------------------------------- choosing a Python (a host without one) */
/* The script a candidate interpreter runs (`python -I -c PROBE requirements.txt`): it prints
 * where its shared libpython is (sysconfig, as the candidate itself knows it) and which of the
 * FMU's requirements it lacks. Standard library only. */
static const char PROBE_SOURCE[] =
    "import os, sys, sysconfig\n"
    "from importlib import metadata\n"
    "v = sysconfig.get_config_var\n"
    "name = v('INSTSONAME') or ''\n"
    "folders = [v('LIBDIR') or '', os.path.join(v('LIBDIR') or '', v('MULTIARCH') or ''),\n"
    "           os.path.join(sys.base_prefix, 'lib')]\n"
    "found = [os.path.join(f, name) for f in folders if name and os.path.isfile(os.path.join(f, name))]\n"
    "print('library=' + (found[0] if found else ('' if not v('Py_ENABLE_SHARED') else name)))\n"
    "missing, other = [], []\n"
    "try:\n"
    "    lines = open(sys.argv[1], encoding='utf-8').read().splitlines()\n"
    "except OSError:\n"
    "    lines = []\n"
    "for line in lines:\n"
    "    line = line.split('#')[0].strip()\n"
    "    if not line:\n"
    "        continue\n"
    "    dist, _, pinned = line.partition('==')\n"
    "    try:\n"
    "        have = metadata.version(dist.strip())\n"
    "    except metadata.PackageNotFoundError:\n"
    "        missing.append(line)\n"
    "        continue\n"
    "    if pinned and have != pinned.strip():\n"
    "        other.append(f'{dist.strip()} {have}')\n"
    "print('missing=' + ' '.join(missing))\n"
    "print('other=' + ', '.join(other))\n";

/* What a probe of one candidate found. */
typedef struct {
    char library[1024];   /* its shared libpython ("" : none) */
    char missing[1024];   /* the requirements it lacks, space-separated */
    char other[1024];     /* installed at another version than the FMU was built with */
} Probe;

static void copy_value(char *target, size_t size, const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0) return;
    size_t length = strlen(line + n);
    if (length >= size) length = size - 1;   /* a longer answer is cut */
    memcpy(target, line + n, length);
    target[length] = '\0';
}

/* Run `executable PROBE resources/requirements.txt` (the environment as it is: PYTHONPATH and
 * PYTHONHOME apply to the probe as to the interpreter started later). 1 when it ran and
 * answered; else 0 with the reason in `why`. */
static int probe_candidate(const char *executable, const char *resources, Probe *probe, char *why, size_t size)
{
    memset(probe, 0, sizeof *probe);
    char requirements[4096];
    snprintf(requirements, sizeof requirements, "%s/requirements.txt", resources);
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0) { snprintf(why, size, "cannot make a pipe"); return 0; }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 1);
    posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)executable, "-c", (char *)PROBE_SOURCE, requirements, NULL};
    pid_t pid;
    int spawned = posix_spawnp(&pid, executable, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_ends[1]);
    if (spawned != 0) {
        close(pipe_ends[0]);
        snprintf(why, size, "cannot run it (%s)", strerror(spawned));
        return 0;
    }
    FILE *out = fdopen(pipe_ends[0], "r");
    char line[2048];
    int answered = 0;
    while (out && fgets(line, sizeof line, out)) {
        line[strcspn(line, "\r\n")] = '\0';
        copy_value(probe->library, sizeof probe->library, line, "library=");
        copy_value(probe->missing, sizeof probe->missing, line, "missing=");
        copy_value(probe->other, sizeof probe->other, line, "other=");
        if (strncmp(line, "other=", 6) == 0) answered = 1;
    }
    if (out) fclose(out); else close(pipe_ends[0]);
    int code = 0;
    while (waitpid(pid, &code, 0) < 0 && errno == EINTR) {}
    if (!answered || !WIFEXITED(code) || WEXITSTATUS(code) != 0) {
        snprintf(why, size, "it did not answer as a CPython 3 interpreter");
        return 0;
    }
    return 1;
}


static void append(char *text, size_t size, const char *format, ...)
{
    size_t used = strlen(text);
    if (used + 1 >= size) return;
    va_list args;
    va_start(args, format);
    vsnprintf(text + used, size - used, format, args);
    va_end(args);
}

/* The libpython (dlopen'ed, RTLD_GLOBAL) of the first candidate that fits, its executable in
 * *chosen (to free); NULL with the whole story in `error` when none does. `note` says which
 * candidates were passed over and which packages differ from the build's versions. */
static void *choose_python(const char *resources, char **chosen, char *error, size_t size,
                           char *note, size_t note_size)
{
    const char *user = getenv("FMU_PYTHON_EXECUTABLE");
    const char *library = getenv("FMU_PYTHON_LIBRARY");
    char *recorded = environment_setting(resources, "executable");
    const char *candidates[3] = {user && *user ? user : NULL, recorded, "python3"};
    const char *labels[3] = {"FMU_PYTHON_EXECUTABLE=", "the interpreter recorded at build, ",
                             "python3 on PATH"};
    char story[3072] = "", fixable[1024] = "";
    void *handle = NULL;
    note[0] = '\0';
    for (int i = 0; i < 3 && handle == NULL; i++) {
        const char *candidate = candidates[i];
        if (candidate == NULL) continue;
        const char *shown = i == 2 ? "" : candidate;
        if (i == 1 && access(candidate, X_OK) != 0) {
            append(story, sizeof story, "%s%s%s: no longer exists", story[0] ? "; " : "", labels[i], shown);
            continue;
        }
        Probe probe;
        char why[512];
        if (!probe_candidate(candidate, resources, &probe, why, sizeof why)) {
            append(story, sizeof story, "%s%s%s: %s", story[0] ? "; " : "", labels[i], shown, why);
            continue;
        }
        if (probe.missing[0]) {
            append(story, sizeof story, "%s%s%s: lacks %s", story[0] ? "; " : "", labels[i], shown, probe.missing);
            if (!fixable[0]) snprintf(fixable, sizeof fixable, "%s", candidate);
            continue;
        }
        const char *shared = library && *library ? library : probe.library;
        if (!shared[0]) {
            append(story, sizeof story, "%s%s%s: has no shared libpython (a Python built without "
                   "--enable-shared cannot be embedded)", story[0] ? "; " : "", labels[i], shown);
            continue;
        }
        handle = dlopen(shared, RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL) {
            append(story, sizeof story, "%s%s%s: cannot load %s (%s)", story[0] ? "; " : "", labels[i],
                   shown, shared, dlerror());
            continue;
        }
        *chosen = strdup(candidate);
        if (story[0]) append(note, note_size, "Python: %s%s chosen, after: %s. ", labels[i], shown, story);
        if (probe.other[0]) append(note, note_size, "Packages at other versions than the FMU was "
                                   "built and tested with: %s.", probe.other);
    }
    if (handle == NULL) {
        snprintf(error, size, "no Python fits this FMU (a host without Python: tried in order "
                 "FMU_PYTHON_EXECUTABLE, the interpreter recorded at build, python3 on PATH): %s. "
                 "Install what it needs with: %s -m pip install -r %s/requirements.txt%s",
                 story[0] ? story : "no candidate", fixable[0] ? fixable : "python3", resources,
                 fixable[0] ? "" : " (or set FMU_PYTHON_EXECUTABLE to a Python 3 that has it)");
    }
    free(recorded);
    return handle;
}

/* Look up every function in `handle` (RTLD_DEFAULT: the process). 0 if one is missing. */
static int bind_api(PythonApi *api, void *handle, char *missing, size_t size)
{
#define BIND(ret, name, args)                                                                   \
    *(void **)(&api->name) = dlsym(handle, #name);                                              \
    if (api->name == NULL) { snprintf(missing, size, "%s", #name); return 0; }
    PYTHON_FUNCTIONS(BIND)
#undef BIND
    *(void **)(&api->Py_SetProgramName) = dlsym(handle, "Py_SetProgramName");
    *(void **)(&api->PyObject_GetBuffer) = dlsym(handle, "PyObject_GetBuffer");
    *(void **)(&api->PyBuffer_Release) = dlsym(handle, "PyBuffer_Release");
    if (api->PyObject_GetBuffer == NULL || api->PyBuffer_Release == NULL)
        api->PyObject_GetBuffer = NULL, api->PyBuffer_Release = NULL;
    return 1;
}

/* The types float, int, bool, list and dict, and None, kept for good (GIL held). 1 on success. */
static int load_exact_types(PythonApi *api, PyObject *module)
{
    api->none_object = api->PyObject_GetAttrString(module, "NONE");
    PyObject *types = api->PyObject_GetAttrString(module, "EXACT_TYPES");
    if (types == NULL || api->none_object == NULL) return 0;
    void **slots[] = {&api->float_type, &api->int_type, &api->bool_type, &api->list_type, &api->dict_type};
    int ok = 1;
    for (Py_ssize_t i = 0; i < 5 && ok; i++) {
        PyObject *type = api->PySequence_GetItem(types, i);   /* the reference is kept */
        ok = type != NULL;
        if (ok) *slots[i] = type;
    }
    api->Py_DecRef(types);
    return ok;
}

/* Compile HELPER_SOURCE (GIL held). */
static int load_helpers(PythonApi *api, char *error, size_t size)
{
    PyObject *code = api->Py_CompileString(HELPER_SOURCE, "<fmu native wrapper>", Py_file_input);
    PyObject *module = code ? api->PyImport_ExecCodeModule("_fmu_native_wrapper_helpers", code) : NULL;
    if (code) api->Py_DecRef(code);
    int typed = 0;
    if (module != NULL) {
        api->create_slave = api->PyObject_GetAttrString(module, "create_slave");
        api->drain_log = api->PyObject_GetAttrString(module, "drain_log");
        api->numpy_scalar_types = api->PyObject_GetAttrString(module, "numpy_scalar_types");
        typed = load_exact_types(api, module);
        api->Py_DecRef(module);
    }
    int named = (api->log_queue_name = api->PyUnicode_InternFromString("log_queue")) != NULL;
    for (int m = 0; m < METHOD_COUNT && named; m++)
        named = (api->method_names[m] = api->PyUnicode_InternFromString(METHOD_NAMES[m])) != NULL;
    named = named && (api->epoch_name = api->PyUnicode_InternFromString("_native_epoch")) != NULL
            && (api->plan_name = api->PyUnicode_InternFromString("_native_plan")) != NULL
            && (api->values_changed_name = api->PyUnicode_InternFromString("values_changed")) != NULL
            && (api->true_object = api->PyBool_FromLong(1)) != NULL;
    if (api->create_slave == NULL || api->drain_log == NULL || api->numpy_scalar_types == NULL || !named || !typed) {
        snprintf(error, size, "cannot compile the wrapper's Python helpers");
        api->PyErr_Clear();
        return 0;
    }
    return 1;
}

/* Make `python` usable: the process's interpreter, else one started here. 1 on success. */
static int ensure_python(const char *resources, char *error, size_t size, char *note, size_t note_size)
{
    pthread_mutex_lock(&python_lock);
    if (python != NULL) { pthread_mutex_unlock(&python_lock); return 1; }
    PythonApi *api = calloc(1, sizeof *api);
    char missing[128] = "";
    char *chosen = NULL;
    void *handle = NULL;
    int ok = 0;
    if (api == NULL) { snprintf(error, size, "out of memory"); goto done; }

    if (!bind_api(api, RTLD_DEFAULT, missing, sizeof missing)) {
        /* No Python in the process: choose an interpreter and load its libpython globally
         * (its extension modules need its symbols). */
        handle = choose_python(resources, &chosen, error, size, note, note_size);
        if (handle == NULL) goto done;
        memset(api, 0, sizeof *api);
        if (!bind_api(api, handle, missing, sizeof missing)) {
            snprintf(error, size, "the libpython of %s lacks %s", chosen, missing);
            goto done;
        }
    }

    if (!api->Py_IsInitialized()) {
        char *executable = chosen;
        chosen = NULL;
        if (executable != NULL && api->Py_SetProgramName != NULL) {
            /* Python keeps the pointer: the copy is never freed. */
            size_t n = mbstowcs(NULL, executable, 0);
            wchar_t *wide = (n != (size_t)-1) ? calloc(n + 1, sizeof *wide) : NULL;
            if (wide != NULL) {
                mbstowcs(wide, executable, n + 1);
                api->Py_SetProgramName(wide);
            }
        }
        free(executable);
        api->Py_InitializeEx(0);  /* 0: the host keeps its own signal handlers */
        if (!api->Py_IsInitialized()) {
            snprintf(error, size, "Python failed to start");
            goto done;
        }
        /* Started here: this thread holds the GIL. Release it for good (every call takes it
         * with PyGILState_Ensure, from whichever thread the host uses); the thread state
         * stays alive, as does the interpreter, until the process ends. */
        api->PyEval_SaveThread();
    }

    PyGILState_STATE gil = api->PyGILState_Ensure();
    ok = load_helpers(api, error, size);
    api->PyGILState_Release(gil);

done:
    free(chosen);
    if (ok) python = api;
    else free(api);
    pthread_mutex_unlock(&python_lock);
    return ok;
}

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
static void clear_plan(Plan *plan)
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

static PyObject *tuple_of(int n, ...)
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
static PyObject *references_of(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n,
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

/* ---------------------------------------------------------------- direct transfers */
/* A host sets an instance's inputs and reads its outputs with the same references at every
 * step. When the slave says where those values live (FmuSlave._native_plan: elements of a
 * float64 buffer or of a list held in one of its attributes, entries of a dict), the getter or
 * setter reads or writes them there, without calling any Python method: the slave's Python
 * code for the same call would only have copied them (auv_cosim/fmu/slave.py, "Direct
 * transfers"). The plan is asked again whenever the slave's _native_epoch changes (a new phase,
 * a new variable). At every call the wrapper checks everything it relies on (the attribute's
 * current object, a buffer's format, dimension and size, a list's length, a value's exact type)
 * and when anything differs it serves nothing and the call goes the usual way, through the
 * slave's method: the values and the errors are then those of the Python code. A set checks
 * every value's place before it stores the first, so it stores all or nothing. */
#define MAX_SOURCES 8

typedef enum { SOURCE_BUFFER, SOURCE_LIST, SOURCE_DICT } SourceKind;

/* One source of a plan as found at this call. */
typedef struct {
    SourceKind kind;
    PyObject *object;     /* owned */
    Py_buffer view;       /* SOURCE_BUFFER: held until release_sources */
    Py_ssize_t size;      /* elements of a buffer or a list */
} Source;

static int is_type(PyObject *object, void *type) { return object != NULL && TYPE_OF(object) == type; }

/* A float, or a numpy.float64: PyFloat_AsDouble reads either's value as float() does. */
static int is_real(PyObject *object)
{
    return is_type(object, python->float_type) ||
           (python->float64_type != NULL && is_type(object, python->float64_type));
}

/* numpy.bool_: bool() and int() read its truth (PyObject_IsTrue). */
static int is_numpy_bool(PyObject *object)
{
    return python->numpy_bool_type != NULL && is_type(object, python->numpy_bool_type);
}

/* One of numpy's integer scalars: int() and bool() read its value (PyLong_AsLong goes through
 * its __index__, PyObject_IsTrue through its __bool__), as for an int. */
static int is_numpy_integer(PyObject *object)
{
    if (object == NULL) return 0;
    for (Py_ssize_t i = 0; i < python->n_numpy_integer_types; i++)
        if (TYPE_OF(object) == python->numpy_integer_types[i]) return 1;
    return 0;
}

/* Look for numpy's scalar types (float64, bool_, the integers) until numpy is imported (GIL
 * held): a slave computing with numpy hands its getters numpy's scalars, which are read
 * directly as Python's float, bool and int are. The references are kept. */
static void find_numpy_types(void)
{
    if (python->float64_type != NULL) return;
    PyObject *types = python->PyObject_CallObject(python->numpy_scalar_types, NULL);
    Py_ssize_t n = types != NULL && types != python->none_object ? python->PySequence_Size(types) : -1;
    if (n >= 2 && n - 2 <= MAX_NUMPY_INTEGER_TYPES) {
        for (Py_ssize_t i = 2; i < n; i++)   /* each reference kept */
            python->numpy_integer_types[python->n_numpy_integer_types++] = python->PySequence_GetItem(types, i);
        python->numpy_bool_type = python->PySequence_GetItem(types, 1);
        python->float64_type = python->PySequence_GetItem(types, 0);   /* last: the types are found */
    }
    if (types != NULL) python->Py_DecRef(types);
    python->PyErr_Clear();
}

/* Read the declared ranges of a Real set's plan (the answer's third item: per value None or
 * (low, high)) into plan->slot_low / slot_high (GIL held). 1 if they are readable. */
static int parse_bounds(Plan *plan, PyObject *bounds, size_t n)
{
    if (python->PySequence_Size(bounds) != (Py_ssize_t)n) return 0;
    plan->slot_low = malloc(n * sizeof *plan->slot_low);
    plan->slot_high = malloc(n * sizeof *plan->slot_high);
    int ok = plan->slot_low != NULL && plan->slot_high != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        PyObject *pair = python->PySequence_GetItem(bounds, (Py_ssize_t)i);
        plan->slot_low[i] = -INFINITY;
        plan->slot_high[i] = INFINITY;
        if (pair != NULL && pair != python->none_object) {
            PyObject *low = python->PySequence_GetItem(pair, 0);
            PyObject *high = python->PySequence_GetItem(pair, 1);
            ok = is_real(low) && is_real(high);
            if (ok) {
                plan->slot_low[i] = python->PyFloat_AsDouble(low);
                plan->slot_high[i] = python->PyFloat_AsDouble(high);
            }
            if (low) python->Py_DecRef(low);
            if (high) python->Py_DecRef(high);
        }
        ok = ok && pair != NULL;
        if (pair) python->Py_DecRef(pair);
    }
    return ok;
}

/* Read the plan the slave returned into `plan` (GIL held). 1 if it is usable. */
static int parse_plan(Plan *plan, PyObject *answer, size_t n)
{
    PyObject *sources = python->PySequence_GetItem(answer, 0);
    PyObject *slots = python->PySequence_GetItem(answer, 1);
    int ok = sources != NULL && slots != NULL && python->PySequence_Size(slots) == (Py_ssize_t)n;
    Py_ssize_t n_sources = ok ? python->PySequence_Size(sources) : -1;
    ok = ok && n_sources > 0 && n_sources <= MAX_SOURCES;
    if (ok) {
        plan->source_kind = calloc((size_t)n_sources, 1);
        plan->source = calloc((size_t)n_sources, sizeof *plan->source);
        plan->slot_source = calloc(n, sizeof *plan->slot_source);
        plan->slot_index = calloc(n, sizeof *plan->slot_index);
        plan->slot_key = calloc(n, sizeof *plan->slot_key);
        plan->n = n;
        ok = plan->source_kind && plan->source && plan->slot_source && plan->slot_index && plan->slot_key;
    }
    for (Py_ssize_t i = 0; ok && i < n_sources; i++) {   /* (kind, object) */
        PyObject *source = python->PySequence_GetItem(sources, i);
        PyObject *kind = source ? python->PySequence_GetItem(source, 0) : NULL;
        PyObject *bytes = kind ? python->PyUnicode_AsUTF8String(kind) : NULL;
        const char *text = bytes ? python->PyBytes_AsString(bytes) : NULL;
        plan->source_kind[i] = text ? text[0] : 0;
        plan->source[i] = source ? python->PySequence_GetItem(source, 1) : NULL;
        plan->n_sources = i + 1;
        ok = plan->source[i] != NULL && (plan->source_kind[i] == 'a' || plan->source_kind[i] == 'm');
        if (bytes) python->Py_DecRef(bytes);
        if (kind) python->Py_DecRef(kind);
        if (source) python->Py_DecRef(source);
    }
    for (size_t i = 0; ok && i < n; i++) {   /* (source number, index or key) */
        PyObject *slot = python->PySequence_GetItem(slots, (Py_ssize_t)i);
        PyObject *number = slot ? python->PySequence_GetItem(slot, 0) : NULL;
        PyObject *place = slot ? python->PySequence_GetItem(slot, 1) : NULL;
        Py_ssize_t s = number ? python->PyLong_AsSsize_t(number) : -1;
        ok = place != NULL && s >= 0 && s < n_sources;
        if (ok) {
            plan->slot_source[i] = s;
            if (plan->source_kind[s] == 'a') {
                plan->slot_index[i] = python->PyLong_AsSsize_t(place);
                ok = plan->slot_index[i] >= 0;
            } else {
                plan->slot_key[i] = place;
                place = NULL;   /* kept */
            }
        }
        if (place) python->Py_DecRef(place);
        if (number) python->Py_DecRef(number);
        if (slot) python->Py_DecRef(slot);
    }
    if (ok && python->PySequence_Size(answer) > 2) {   /* the declared ranges of a Real set */
        PyObject *bounds = python->PySequence_GetItem(answer, 2);
        ok = bounds != NULL && parse_bounds(plan, bounds, n);
        if (bounds) python->Py_DecRef(bounds);
    }
    if (sources) python->Py_DecRef(sources);
    if (slots) python->Py_DecRef(slots);
    python->PyErr_Clear();
    return ok;
}

/* The plan for this call's references, or NULL: none (GIL held; leaves no exception set). */
static Plan *plan_for(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n)
{
    if (inst->no_direct_transfers) return NULL;
    References *cached;
    PyObject *references = references_of(inst, method, vr, n, &cached);
    if (references == NULL) { python->PyErr_Clear(); return NULL; }
    int keyed = cached != NULL;   /* else not cached (no memory): no plan either */
    PyObject *epoch = keyed ? python->PyObject_GetAttr(inst->slave, python->epoch_name) : NULL;
    if (epoch == NULL) {
        if (keyed) { python->PyErr_Clear(); inst->no_direct_transfers = 1; }   /* not an FmuSlave */
        python->Py_DecRef(references);
        return NULL;
    }
    Plan *plan = &cached->plan;
    if (plan->epoch == epoch) {   /* the kept reference keeps the address from being reused */
        python->Py_DecRef(epoch);
        python->Py_DecRef(references);
        return plan->usable ? plan : NULL;
    }
    clear_plan(plan);
    plan->epoch = epoch;
    find_numpy_types();
    const char *type = (method == GET_REAL || method == SET_REAL) ? "Real"
                       : (method == GET_INTEGER || method == SET_INTEGER) ? "Integer" : "Boolean";
    int setting = method == SET_REAL || method == SET_INTEGER || method == SET_BOOLEAN;
    PyObject *ask = python->PyObject_GetAttr(inst->slave, python->plan_name);
    PyObject *answer = NULL;
    if (ask != NULL) {
        answer = python->PyObject_CallObject(ask, tuple_of(3, python->PyUnicode_FromString(type), references,
                                                           python->PyBool_FromLong(setting)));
        python->Py_DecRef(ask);
    } else {
        inst->no_direct_transfers = 1;
        python->Py_DecRef(references);
    }
    python->PyErr_Clear();
    if (answer != NULL) {
        if (answer != python->none_object && !parse_plan(plan, answer, n)) {
            PyObject *kept = plan->epoch;   /* a plan it cannot read: none for this epoch */
            plan->epoch = NULL;
            clear_plan(plan);
            plan->epoch = kept;
        } else if (answer != python->none_object) {
            plan->usable = 1;
        }
        python->Py_DecRef(answer);
    }
    return plan->usable ? plan : NULL;
}

static void release_sources(Source *sources, Py_ssize_t count)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        if (sources[i].kind == SOURCE_BUFFER) python->PyBuffer_Release(&sources[i].view);
        python->Py_DecRef(sources[i].object);
    }
}

/* Find each source of the plan as it is now (GIL held). 1 if all are usable (then release
 * them with release_sources); 0 leaves nothing held and no exception set. */
static int find_sources(Instance *inst, const Plan *plan, Source *sources, int writable)
{
    for (Py_ssize_t i = 0; i < plan->n_sources; i++) {
        Source *found = &sources[i];
        int ok = 0;
        if (plan->source_kind[i] == 'm') {
            found->object = plan->source[i];
            python->Py_IncRef(found->object);
            found->kind = SOURCE_DICT;
            ok = is_type(found->object, python->dict_type);
        } else {
            found->object = python->PyObject_GetAttr(inst->slave, plan->source[i]);
            if (is_type(found->object, python->list_type)) {
                found->kind = SOURCE_LIST;
                found->size = python->PyList_Size(found->object);
                ok = 1;
            } else if (found->object != NULL && python->PyObject_GetBuffer != NULL &&
                       python->PyObject_GetBuffer(found->object, &found->view,
                                                  PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0)) == 0) {
                const Py_buffer *v = &found->view;
                ok = v->ndim == 1 && v->itemsize == (Py_ssize_t)sizeof(double) && v->format != NULL &&
                     strcmp(v->format, "d") == 0 && v->shape != NULL && v->strides != NULL && v->suboffsets == NULL;
                if (ok) { found->kind = SOURCE_BUFFER; found->size = v->shape[0]; }
                else python->PyBuffer_Release(&found->view);
            }
        }
        if (!ok) {
            if (found->object) python->Py_DecRef(found->object);
            release_sources(sources, i);
            python->PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* The object of value i in a list or a dict (borrowed), or NULL. */
static PyObject *item_of(const Plan *plan, const Source *sources, size_t i)
{
    const Source *source = &sources[plan->slot_source[i]];
    if (source->kind == SOURCE_DICT) return python->PyDict_GetItem(source->object, plan->slot_key[i]);
    if (source->kind == SOURCE_LIST && plan->slot_index[i] < source->size)
        return python->PyList_GetItem(source->object, plan->slot_index[i]);
    return NULL;
}

/* Value i of a Real read: a buffer's double or an exact float's. 0 if it is neither. */
static int read_real(const Plan *plan, const Source *sources, size_t i, fmi2Real *value)
{
    const Source *source = &sources[plan->slot_source[i]];
    if (source->kind == SOURCE_BUFFER) {
        Py_ssize_t index = plan->slot_index[i];
        if (index >= source->size) return 0;
        *value = *(const double *)((const char *)source->view.buf + index * source->view.strides[0]);
        return 1;
    }
    PyObject *item = item_of(plan, sources, i);
    if (!is_real(item)) return 0;
    *value = python->PyFloat_AsDouble(item);
    return 1;
}

/* Serve a getter from the plan (GIL held): 1 with every value in value[], else 0 (make the
 * call the usual way). `method` is GET_REAL, GET_INTEGER or GET_BOOLEAN. */
static int direct_get(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n, void *value)
{
    Plan *plan = plan_for(inst, method, vr, n);
    Source sources[MAX_SOURCES];
    if (plan == NULL || !find_sources(inst, plan, sources, 0)) return 0;
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        if (method == GET_REAL) {
            ok = read_real(plan, sources, i, (fmi2Real *)value + i);
            continue;
        }
        PyObject *item = item_of(plan, sources, i);
        if (method == GET_INTEGER) {   /* int(item), as the slave's getter, for an int or a bool (numpy's too) */
            long number = 0;
            if (is_numpy_bool(item)) {
                number = python->PyObject_IsTrue(item);
                ok = number >= 0;
            } else {
                ok = is_type(item, python->int_type) || is_type(item, python->bool_type) || is_numpy_integer(item);
                number = ok ? python->PyLong_AsLong(item) : 0;   /* an int too large: through Python */
                ok = ok && !(number == -1 && python->PyErr_Occurred());
            }
            ((fmi2Integer *)value)[i] = (fmi2Integer)number;
        } else {                       /* bool(item), for a bool, an int or a float (numpy's too) */
            ok = is_type(item, python->bool_type) || is_type(item, python->int_type) || is_real(item) ||
                 is_numpy_bool(item) || is_numpy_integer(item);
            ((fmi2Boolean *)value)[i] = ok && python->PyObject_IsTrue(item) > 0 ? fmi2True : fmi2False;
        }
    }
    release_sources(sources, plan->n_sources);
    python->PyErr_Clear();
    return ok;
}

/* The Python object a set stores for value i (a new reference), or NULL. */
static PyObject *object_to_store(Method method, const void *value, size_t i)
{
    if (method == SET_REAL) return python->PyFloat_FromDouble(((const fmi2Real *)value)[i]);
    if (method == SET_INTEGER) return python->PyLong_FromLong(((const fmi2Integer *)value)[i]);
    return python->PyBool_FromLong(((const fmi2Boolean *)value)[i] != fmi2False);
}

/* Serve a setter from the plan (GIL held): 1 with every value stored and the slave's
 * values_changed set, as its setter does; else 0 with nothing changed (make the call the
 * usual way). `method` is SET_REAL, SET_INTEGER or SET_BOOLEAN. */
static int direct_set(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n, const void *value)
{
    Plan *plan = plan_for(inst, method, vr, n);
    Source sources[MAX_SOURCES];
    if (plan == NULL || !find_sources(inst, plan, sources, 1)) return 0;
    PyObject **objects = calloc(n, sizeof *objects);   /* what goes into lists and dicts */
    int ok = objects != NULL;
    /* A value beyond its declared range is the slave's to warn about (once per variable, and
     * fmi2Warning): the call goes the usual way. NaN is within (no range's business), as there. */
    for (size_t i = 0; i < n && ok && plan->slot_low != NULL; i++) {
        double v = ((const fmi2Real *)value)[i];
        ok = !(v < plan->slot_low[i] || v > plan->slot_high[i]);
    }
    for (size_t i = 0; i < n && ok; i++) {   /* every place checked before the first store */
        const Source *source = &sources[plan->slot_source[i]];
        if (source->kind == SOURCE_BUFFER) ok = method == SET_REAL && plan->slot_index[i] < source->size;
        else if (source->kind == SOURCE_LIST) ok = method == SET_REAL && plan->slot_index[i] < source->size;
        if (ok && source->kind != SOURCE_BUFFER) ok = (objects[i] = object_to_store(method, value, i)) != NULL;
    }
    ok = ok && python->PyObject_SetAttr(inst->slave, python->values_changed_name, python->true_object) == 0;
    for (size_t i = 0; i < n && ok; i++) {
        const Source *source = &sources[plan->slot_source[i]];
        if (source->kind == SOURCE_BUFFER) {
            *(double *)((char *)source->view.buf + plan->slot_index[i] * source->view.strides[0]) =
                ((const fmi2Real *)value)[i];
        } else if (source->kind == SOURCE_LIST) {
            /* it steals the object (also when it fails: the list shrank, in a __setattr__) */
            ok = python->PyList_SetItem(source->object, plan->slot_index[i], objects[i]) == 0;
            objects[i] = NULL;
        } else {
            /* fails only without memory: then the call goes the usual way and sets them again */
            ok = python->PyDict_SetItem(source->object, plan->slot_key[i], objects[i]) == 0;
        }
    }
    for (size_t i = 0; objects && i < n; i++)
        if (objects[i]) python->Py_DecRef(objects[i]);
    free(objects);
    release_sources(sources, plan->n_sources);
    python->PyErr_Clear();
    return ok;
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
