#include "wrapper.h"

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
int direct_get(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n, void *value)
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
int direct_set(Instance *inst, Method method, const fmi2ValueReference vr[], size_t n, const void *value)
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

