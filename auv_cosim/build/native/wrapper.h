/*
 * The native FMI 2.0 wrapper's shared declarations: the FMI 2.0 types (the standard's ABI), the
 * part of Python's stable ABI the wrapper calls (looked up with dlsym, so no Python header is
 * needed), one instance and what it keeps, and the functions one part of the wrapper offers the
 * others. The parts (see python_fmu.c for what the wrapper does and why):
 *   python_fmu.c         the FMI 2.0 functions and one instance's life;
 *   python_api.c         finding, starting and binding a Python (a host without one: which);
 *   logging.c            the slave's log and its exceptions to the host's logger;
 *   direct_transfers.c   getters and setters served without running Python.
 * tools/native_wrapper.py compiles them into one shared library; only the fmi2* functions are
 * exported (-fvisibility=hidden, EXPORT).
 */
#ifndef PYTHON_FMU_WRAPPER_H
#define PYTHON_FMU_WRAPPER_H

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

/* The one process-wide interpreter handle of this library (python_api.c). */
extern PythonApi *python;

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

/* ---------------------------------------------------------------- what the parts offer */
/* python_api.c */
char *read_file_line(const char *path);
int ensure_python(const char *resources, char *error, size_t size, char *note, size_t note_size);
/* logging.c */
void emitf(const Instance *inst, fmi2Status status, const char *category, const char *format, ...);
void log_error(const Instance *inst, const char *format, ...);
void drain_log(const Instance *inst);
fmi2Status report_exception(const Instance *inst, const char *function);
/* python_fmu.c */
void clear_plan(Plan *plan);
PyObject *tuple_of(int n, ...);
PyObject *references_of(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n,
                        References **entry);
/* direct_transfers.c */
int direct_get(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n, void *value);
int direct_set(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n, const void *value);

#endif
